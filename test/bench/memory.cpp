//
// test/bench/memory.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W5 (memory, doc/benchmarks.md): bytes per timer with one pending
// wait, i.e. the timer object + its wait operation + its share of the
// service (the wheel's slot array, steady_timer's heap vector), for
// steady_timer and wheel_timer at N = 1k, 100k and 1M (the budget: 100k and
// 1M); and the wheel service's own fixed memory with default options (the
// service created on a fresh io_context, before any timer).
//
// bytes per timer = sizeof(Timer) + live heap growth / N, where the timers
// live in a std::vector reserved before the baseline. The heap is counted two
// ways, because Asio allocates wait operations with std::aligned_alloc
// (boost/asio/detail/memory.hpp, aligned_new), not with operator new:
//   - replaced global operator new/delete count the usable size of every
//     live allocation made through them;
//   - mallinfo2() (in-use arena bytes + mmapped bytes) sees every malloc-
//     family allocation, aligned_alloc included, with malloc's own chunk
//     headers. This complete figure is the one the budget uses.
//

#include "bench_support.hpp"

#include <malloc.h>

#include <asio_wheel.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

// ---------------------------------------------------------------------------
// Counting global operator new/delete (all replaceable forms).

namespace {

std::atomic<std::int64_t> operator_new_live_bytes{0};

void* counted_alloc(std::size_t size, std::size_t align)
{
  if (size == 0)
    size = 1;
  void* p = align > alignof(std::max_align_t)
      ? std::aligned_alloc(align, (size + align - 1) / align * align)
      : std::malloc(size);
  if (p)
    operator_new_live_bytes.fetch_add(
        static_cast<std::int64_t>(malloc_usable_size(p)),
        std::memory_order_relaxed);
  return p;
}

void counted_free(void* p) noexcept
{
  if (!p)
    return;
  operator_new_live_bytes.fetch_sub(
      static_cast<std::int64_t>(malloc_usable_size(p)),
      std::memory_order_relaxed);
  std::free(p);
}

void* counted_alloc_or_throw(std::size_t size, std::size_t align)
{
  if (void* p = counted_alloc(size, align))
    return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t n)
{
  return counted_alloc_or_throw(n, 0);
}
void* operator new[](std::size_t n)
{
  return counted_alloc_or_throw(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a)
{
  return counted_alloc_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a)
{
  return counted_alloc_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept
{
  return counted_alloc(n, 0);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept
{
  return counted_alloc(n, 0);
}
void* operator new(
    std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept
{
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void* operator new[](
    std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept
{
  return counted_alloc(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept
{
  counted_free(p);
}
void operator delete[](void* p) noexcept
{
  counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
  counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept
{
  counted_free(p);
}
void operator delete(void* p, std::align_val_t) noexcept
{
  counted_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept
{
  counted_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept
{
  counted_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept
{
  counted_free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept
{
  counted_free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept
{
  counted_free(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept
{
  counted_free(p);
}
void operator delete[](
    void* p, std::align_val_t, const std::nothrow_t&) noexcept
{
  counted_free(p);
}

namespace {

using namespace std::chrono_literals;

/// Every malloc-family byte in use: arena chunks plus mmapped chunks.
std::int64_t malloc_in_use_bytes()
{
  const struct mallinfo2 mi = ::mallinfo2();
  return static_cast<std::int64_t>(mi.uordblks + mi.hblkhd);
}

struct memory_result
{
  std::size_t timer_object_bytes = 0;  // sizeof(Timer)
  double operator_new_per_timer = 0;  // heap through operator new / N
  double malloc_per_timer = 0;  // all heap (mallinfo2) / N
  double bytes_per_timer = 0;  // sizeof(Timer) + malloc_per_timer
  std::size_t handlers_ran = 0;
};

/// @p tuned: on the tuned steady_timer's context (bench_support.hpp), whose
/// heap reserve for N is allocated with the context's first timer, inside
/// the count.
template <class Timer>
memory_result measure_memory(std::size_t n, bool tuned = false)
{
  memory_result r;
  boost::asio::io_context io = bench::make_context(1, tuned ? n : 0);
  std::size_t handlers_ran = 0;
  std::vector<Timer> timers;
  timers.reserve(n);  // the vector's storage is sizeof(Timer) per timer

  const std::int64_t new_before = operator_new_live_bytes.load();
  const std::int64_t malloc_before = malloc_in_use_bytes();
  for (std::size_t i = 0; i < n; ++i)
  {
    timers.emplace_back(io);
    timers.back().expires_after(30s);
    // The same one-pointer handler as in churn.cpp.
    timers.back().async_wait(
        [counter = &handlers_ran](
            const boost::system::error_code&) { ++*counter; });
  }
  const std::int64_t new_after = operator_new_live_bytes.load();
  const std::int64_t malloc_after = malloc_in_use_bytes();

  r.timer_object_bytes = sizeof(Timer);
  r.operator_new_per_timer = static_cast<double>(new_after - new_before) / n;
  r.malloc_per_timer = static_cast<double>(malloc_after - malloc_before) / n;
  r.bytes_per_timer = static_cast<double>(sizeof(Timer)) + r.malloc_per_timer;
  io.poll();  // nothing is due: no handler may run
  r.handlers_ran = handlers_ran;
  return r;
}

/// The service's own fixed memory with default options: what creating the
/// service on a fresh io_context adds to the heap (the service object, the
/// slot array and bitmaps, and the reactor services it brings), before any
/// timer exists.
std::int64_t measure_service_fixed_bytes()
{
  boost::asio::io_context io{1};
  const std::int64_t before = malloc_in_use_bytes();
  boost::asio::use_service<
      asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io);
  return malloc_in_use_bytes() - before;
}

}  // namespace

int main(int argc, char** argv)
{
  const bench::options opts = bench::parse_options(argc, argv);
  bench::report report("memory", opts);

  const std::vector<std::size_t> sizes = opts.smoke
      ? std::vector<std::size_t>{200}
      : std::vector<std::size_t>{1000, 100000, 1000000};

  std::printf(
      "W5 memory: bytes per timer with one pending wait\n"
      "= sizeof(timer) + heap growth / N (heap from mallinfo2: arena + mmap,\n"
      "Asio's aligned_alloc'd operations and malloc headers included)\n\n");
  if (bench::has_tuned_peer())
    std::printf("steady_timer_tuned: steady_timer on a context configured "
                "with %s (%s)\n\n",
        bench::tuned_peer_label().c_str(), bench::asio_version_label().c_str());
  std::printf("%6s %-18s %9s %14s %12s %14s %8s\n", "N", "impl", "sizeof",
      "op-new B/timer", "heap B/timer", "total B/timer", "ratio");

  for (std::size_t n : sizes)
  {
    const memory_result steady = measure_memory<boost::asio::steady_timer>(n);
    const memory_result wheel = measure_memory<asio_wheel::wheel_timer>(n);
    const double ratio = wheel.bytes_per_timer / steady.bytes_per_timer;
    std::vector<std::pair<const char*, memory_result>> sides{
        {"steady_timer", steady}, {"wheel_timer", wheel}};
    memory_result tuned;
    if (bench::has_tuned_peer())
    {
      tuned = measure_memory<boost::asio::steady_timer>(n, true);
      sides.insert(sides.begin() + 1, {"steady_timer_tuned", tuned});
    }
    for (auto [impl, r] : sides)
    {
      const bool is_wheel = std::string(impl) == "wheel_timer";
      std::printf("%6s %-18s %9zu %14.1f %12.1f %14.1f %8s\n",
          bench::size_label(n).c_str(), impl, r.timer_object_bytes,
          r.operator_new_per_timer, r.malloc_per_timer, r.bytes_per_timer,
          is_wheel ? std::to_string(ratio).substr(0, 5).c_str() : "");
      report.measure("W5", impl, n, "sizeof_timer",
          static_cast<double>(r.timer_object_bytes));
      report.measure("W5", impl, n, "operator_new_bytes_per_timer",
          r.operator_new_per_timer);
      report.measure("W5", impl, n, "heap_bytes_per_timer", r.malloc_per_timer);
      report.measure("W5", impl, n, "bytes_per_timer", r.bytes_per_timer);
      report.check(r.handlers_ran == 0,
          std::string(impl)
              + " W5: no handler ran while the waits were pending");
      report.check(r.malloc_per_timer > 0,
          std::string(impl)
              + " W5: the heap grew with the pending waits (the count works)");
    }
    // The budget sets the ratio at 100k and 1M (1k shows the fixed share).
    // A build with the tuned peer names its Asio in its rows (run_all.sh
    // runs both builds).
    const std::string asio =
        bench::has_tuned_peer() ? " (" + bench::asio_version_label() + ")" : "";
    if (bench::has_tuned_peer())
    {
      std::printf("%6s %-18s %s\n", "", "  : tuned",
          std::to_string(wheel.bytes_per_timer / tuned.bytes_per_timer)
              .substr(0, 5)
              .c_str());
      report.measure("W5", "wheel_timer", n, "bytes_ratio_to_steady_tuned",
          wheel.bytes_per_timer / tuned.bytes_per_timer);
    }
    if (opts.smoke || n >= 100000)
    {
      report.budget("W5",
          "W5 wheel:steady bytes per timer at N=" + bench::size_label(n) + asio,
          ratio, 2.0 / 3, "");
      if (bench::has_tuned_peer())
        report.budget("W5",
            "W5 wheel:steady_timer tuned bytes per timer at N="
                + bench::size_label(n) + asio,
            wheel.bytes_per_timer / tuned.bytes_per_timer, 2.0 / 3,
            bench::tuned_peer_label());
    }
  }

  const std::int64_t fixed = measure_service_fixed_bytes();
  std::printf(
      "\nwheel_timer_service's fixed memory, default options: %lld bytes\n",
      static_cast<long long>(fixed));
  report.measure("W5", "wheel_timer_service", 0, "fixed_bytes",
      static_cast<double>(fixed));
  report.check(
      fixed > 0, "W5: creating the service grew the heap (the count works)");
  if (bench::has_tuned_peer())
    report.note("tuned_peer", bench::tuned_peer_label());
  report.budget("W5",
      "W5 wheel_timer_service fixed bytes (default options)"
          + std::string(bench::has_tuned_peer()
                  ? " (" + bench::asio_version_label() + ")"
                  : ""),
      static_cast<double>(fixed), 128 * 1024, "128 KiB");
  return report.finish();
}
