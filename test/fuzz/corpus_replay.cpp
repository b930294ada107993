// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// corpus_replay.cpp: a main() for builds without libFuzzer (gcc, or ASIO_WHEEL_BUILD_FUZZERS
// off). Runs every file given on the command line, or every file in a directory given there,
// through LLVMFuzzerTestOneInput once: the seed corpus becomes a regression test in every
// build, and a crash file saved by the fuzzer can be replayed without clang.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(
    const std::uint8_t* data, std::size_t size);

namespace {

bool run_file(const std::filesystem::path& p)
{
  std::ifstream in(p, std::ios::binary);
  if (!in)
  {
    std::fprintf(stderr, "corpus_replay: cannot read %s\n", p.string().c_str());
    return false;
  }
  const std::vector<char> bytes{
      std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  LLVMFuzzerTestOneInput(
      reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv)
{
  std::size_t files = 0;
  for (int i = 1; i < argc; ++i)
  {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg))
    {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file())
        {
          if (!run_file(entry.path()))
            return 1;
          ++files;
        }
    }
    else
    {
      if (!run_file(arg))
        return 1;
      ++files;
    }
  }
  if (files == 0)
  {
    std::fprintf(stderr,
        "usage: %s FILE_OR_DIRECTORY...  (no input files found)\n", argv[0]);
    return 1;
  }
  std::printf("corpus_replay: %zu inputs agree with the model\n", files);
  return 0;
}
