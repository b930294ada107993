// Command-line flags of the keepalive chat server, plus the small parsing helpers
// (durations with a unit such as "30s" or "250ms", bounded counts, fractions such
// as "1/64") that the load client and the HTTP example share. A bad flag or value
// throws usage_error whose message is one line naming the flag; main() prints it
// and exits with status 2.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace keepalive_chat {

struct server_options {
  std::string bind_address = "127.0.0.1";
  unsigned short port = 0;  // 0: the kernel picks a free port, printed on the first line
  std::chrono::nanoseconds idle_timeout = std::chrono::seconds(30);
  // Idle timeouts are seconds long, so 10 ms is plenty of precision; it also
  // caps the drive timer at 100 wakeups per second however many connections
  // there are, and 4096 slots x 10 ms = 41 s covers a 30 s timeout in one round.
  std::chrono::nanoseconds tick = std::chrono::milliseconds(10);
  // A write that makes no progress for this long marks a slow consumer.
  std::chrono::nanoseconds write_timeout = std::chrono::seconds(10);
  // wheel_options::tolerance, context-wide: each wheel wait may complete up to
  // this fraction of its length late, never early, so that idle closes due
  // close together share one wakeup. 0: every wait at its own tick.
  double idle_tolerance = 0.0;
  std::size_t max_connections = 100000;
  std::size_t threads = 1;
  std::size_t max_line = 1024;          // bytes, not counting the '\n' (or "\r\n")
  std::size_t max_queue = 256 * 1024;   // bytes queued for one client before it is cut off
  bool help = false;
};

// What main() prints before exiting with status 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "30s", "250ms", "1500us", "2m", "100ns": a non-negative integer with a unit.
std::chrono::nanoseconds parse_duration(const std::string& flag, const std::string& text);

// A decimal integer in [min, max].
std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t min,
                          std::uint64_t max);

// A fraction in [0, 1]: a decimal ("0.015625", ".5", "1") or a ratio of two
// decimals ("1/64"). No sign, exponent, inf or nan.
double parse_fraction(const std::string& flag, const std::string& text);

// "3s", "250ms", "1500us": the shortest exact spelling, for messages.
std::string format_duration(std::chrono::nanoseconds d);

// Walks argv as "--flag value" or "--flag=value". Calls on_flag(flag, value)
// for each; a flag in no_value_flags (such as --help) gets an empty value.
template <class OnFlag>
void for_each_flag(int argc, char** argv, std::initializer_list<const char*> no_value_flags,
                   OnFlag on_flag) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) throw usage_error("unexpected argument \"" + arg + "\" (flags start with --)");
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_value = true;
    }
    bool takes_value = true;
    for (const char* f : no_value_flags)
      if (arg == f) takes_value = false;
    if (takes_value && !has_value) {
      if (i + 1 >= argc) throw usage_error(arg + ": missing value");
      value = argv[++i];
    }
    on_flag(arg, value);
  }
}

// Parses the server's flags; throws usage_error on a bad flag or value.
server_options parse_server_options(int argc, char** argv);

// The --help text: every flag with its default.
std::string server_usage(const std::string& program);

// Raises the soft RLIMIT_NOFILE to the hard limit (a server holding ten
// thousand sockets needs more than the usual 1024). Returns the new soft limit
// (0 on Windows, which has no such limit).
std::uint64_t raise_open_files_limit();

}  // namespace keepalive_chat
