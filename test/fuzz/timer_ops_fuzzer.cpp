// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// timer_ops_fuzzer.cpp: the libFuzzer target (doc/reliability.md, section 2). The input bytes
// are a program in the operation language of test/model/timer_ops_encoding.hpp (byte 0 the
// wheel configuration, then 4 bytes per operation); the program runs against real
// basic_wheel_timer objects on a manual clock (manual_clock, or manual_wall_clock, which
// steps back and forth, when bit 4 of byte 0 is set; bits 5-7 pick the context's tolerance)
// and the reference model, exactly as in the randomized model test, and any disagreement
// aborts with a description of the failing operation. Built with clang and
// -fsanitize=fuzzer,address,undefined when ASIO_WHEEL_BUILD_FUZZERS=ON; otherwise
// corpus_replay.cpp supplies a main() that runs the seed corpus through the same function, so
// the corpus stays valid in every build.
#include "../model/timer_ops_encoding.hpp"
#include "../model/timer_ops_model.hpp"
#include "../model/timer_ops_printing.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

extern "C" int LLVMFuzzerTestOneInput(
    const std::uint8_t* data, std::size_t size)
{
  using namespace asio_wheel_model;
  if (size == 0)
    return 0;
  // The steady manual clock is process-wide and only moves forward; one input moves it by at
  // most 1024 ops * 2048 ticks of 1 ms, about 2e12 ns, and it starts at 1e18 ns of the 9.2e18
  // an int64 holds: millions of inputs. Should a very long campaign get near the end anyway,
  // skip inputs rather than report an overflow as a library bug. (The wall clock is set back
  // to the same start by every input that uses it: timer_ops_model.hpp, wall_clock_start_ns.)
  constexpr std::int64_t clock_headroom = 4'000'000'000'000;
  if (asio_wheel_model::manual_clock::now().time_since_epoch().count()
      > (std::numeric_limits<std::int64_t>::max)() - clock_headroom)
  {
    static bool warned = false;
    if (!warned)
      std::fprintf(stderr,
          "timer_ops_fuzzer: the manual clock is nearly exhausted; inputs are"
          " skipped from now on, restart the fuzzer\n");
    warned = true;
    return 0;
  }
  const wheel_config config = decode_config(data[0]);
  const std::vector<timer_op> ops = decode_ops(data + 1, size - 1);
  if (const auto f = run_program(config, ops))
  {
    std::fprintf(stderr,
        "timer_ops_fuzzer: the library disagrees with the model (%s)\n"
        "  after op %zu of %zu: [%s] %s\n  program:\n",
        describe(config).c_str(), f->op_index, ops.size(), f->category.c_str(),
        f->message.c_str());
    for (std::size_t i = 0; i < ops.size(); ++i)
      std::fprintf(stderr, "    %zu: %s\n", i, describe(ops[i]).c_str());
    std::abort();  // libFuzzer saves the input as a crash reproducer
  }
  return 0;
}
