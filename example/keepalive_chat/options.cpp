// Flag parsing for the keepalive chat server and the helpers the load client
// shares with it. Every error message starts with the flag it is about.
#include "options.hpp"

#if !defined(_WIN32)
#include <sys/resource.h>
#endif

#include <boost/asio/ip/address.hpp>

#include <cerrno>
#include <charconv>
#include <limits>
#include <sstream>
#include <string_view>

namespace keepalive_chat {

std::chrono::nanoseconds parse_duration(const std::string& flag, const std::string& text) {
  const auto bad = [&] {
    return usage_error(flag + ": expected a duration with a unit (e.g. 30s, 250ms), got \"" + text + "\"");
  };
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) throw bad();  // 12 digits: no overflow even in ns of minutes
  const std::int64_t n = std::stoll(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  using namespace std::chrono;
  if (unit == "ns") return nanoseconds(n);
  if (unit == "us") return microseconds(n);
  if (unit == "ms") return milliseconds(n);
  if (unit == "s") return seconds(n);
  if (unit == "m") return minutes(n);
  throw bad();
}

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t min,
                          std::uint64_t max) {
  const auto bad = [&] {
    return usage_error(flag + ": expected an integer in [" + std::to_string(min) + ", " +
                       std::to_string(max) + "], got \"" + text + "\"");
  };
  if (text.empty() || text.size() > 19) throw bad();
  for (char c : text)
    if (c < '0' || c > '9') throw bad();
  const std::uint64_t n = std::stoull(text);
  if (n < min || n > max) throw bad();
  return n;
}

double parse_fraction(const std::string& flag, const std::string& text) {
  const auto bad = [&](const std::string& what) { return usage_error(flag + ": " + what + ", got \"" + text + "\""); };
  // Digits with at most one '.'. Checked by hand because from_chars (like
  // strtod) would also take "inf", "nan" and exponents.
  const auto number = [](std::string_view part, double& value) {
    std::size_t digits = 0, points = 0;
    for (char c : part) {
      if (c >= '0' && c <= '9') ++digits;
      else if (c == '.') ++points;
      else return false;
    }
    if (digits == 0 || points > 1) return false;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value, std::chars_format::fixed);
    return ec == std::errc() && end == part.data() + part.size();
  };
  // A decimal, or a ratio of two: the dividend and the divisor (1 for a decimal).
  const auto ratio = [&](std::string_view s, double& dividend, double& divisor) {
    const auto slash = s.find('/');
    if (slash == std::string_view::npos) return number(s, dividend);
    return number(s.substr(0, slash), dividend) && number(s.substr(slash + 1), divisor);
  };
  double dividend = 0, divisor = 1;
  if (!ratio(text, dividend, divisor)) {
    // "-0.5" is a number, only out of range: say that rather than "expected a fraction".
    if (!text.empty() && text[0] == '-' && ratio(std::string_view(text).substr(1), dividend, divisor))
      throw bad("must be in [0, 1]");
    throw bad("expected a fraction in [0, 1], a decimal (e.g. 0.015625) or a ratio (e.g. 1/64)");
  }
  if (divisor == 0) throw bad("the ratio divides by zero");
  const double value = dividend / divisor;
  if (value > 1) throw bad("must be in [0, 1]");
  return value;
}

std::string format_duration(std::chrono::nanoseconds d) {
  using namespace std::chrono;
  const auto n = d.count();
  if (n != 0 && n % 1'000'000'000 == 0) return std::to_string(n / 1'000'000'000) + "s";
  if (n % 1'000'000 == 0) return std::to_string(n / 1'000'000) + "ms";
  if (n % 1'000 == 0) return std::to_string(n / 1'000) + "us";
  return std::to_string(n) + "ns";
}

server_options parse_server_options(int argc, char** argv) {
  server_options o;
  for_each_flag(argc, argv, {"--help"}, [&](const std::string& flag, const std::string& value) {
    if (flag == "--help") {
      o.help = true;
    } else if (flag == "--bind") {
      boost::system::error_code ec;
      boost::asio::ip::make_address(value, ec);
      if (ec) throw usage_error("--bind: expected an IP address (e.g. 127.0.0.1, ::1), got \"" + value + "\"");
      o.bind_address = value;
    } else if (flag == "--port") {
      o.port = static_cast<unsigned short>(parse_count(flag, value, 0, 65535));
    } else if (flag == "--idle-timeout") {
      o.idle_timeout = parse_duration(flag, value);
    } else if (flag == "--tick") {
      o.tick = parse_duration(flag, value);
      if (o.tick.count() == 0) throw usage_error("--tick: must be greater than 0, got \"" + value + "\"");
    } else if (flag == "--write-timeout") {
      o.write_timeout = parse_duration(flag, value);
      if (o.write_timeout.count() == 0)
        throw usage_error("--write-timeout: must be greater than 0, got \"" + value + "\"");
    } else if (flag == "--idle-tolerance") {
      o.idle_tolerance = parse_fraction(flag, value);
    } else if (flag == "--max-connections") {
      o.max_connections = parse_count(flag, value, 1, 10'000'000);
    } else if (flag == "--threads") {
      o.threads = parse_count(flag, value, 1, 256);
    } else if (flag == "--max-line") {
      o.max_line = parse_count(flag, value, 16, 1 << 20);
    } else if (flag == "--max-queue") {
      o.max_queue = parse_count(flag, value, 4096, std::uint64_t(1) << 30);
    } else {
      throw usage_error(flag + ": unknown flag (see --help)");
    }
  });
  // The PING goes out at idle/2, so both halves must be at least a tick long.
  if (o.idle_timeout < 2 * o.tick)
    throw usage_error("--idle-timeout: must be at least two ticks (" + format_duration(2 * o.tick) +
                      "), got " + format_duration(o.idle_timeout));
  return o;
}

std::string server_usage(const std::string& program) {
  const server_options d;
  std::ostringstream out;
  out << "usage: " << program << " [flags]\n"
      << "A line-based TCP chat server whose timeouts are asio_wheel::wheel_timer.\n"
      << "Durations take a unit: ns, us, ms, s, m (e.g. 30s, 250ms).\n\n"
      << "  --bind ADDRESS          address to listen on (default " << d.bind_address << ")\n"
      << "  --port N                port, 0 picks a free one (default 0)\n"
      << "  --idle-timeout D        close a connection silent this long; PING at half (default "
      << format_duration(d.idle_timeout) << ")\n"
      << "  --tick D                timing wheel tick, the timeout precision (default " << format_duration(d.tick)
      << ")\n"
      << "  --idle-tolerance F      an idle close may come up to F x the idle timeout late, never early, so\n"
      << "                          closes due close together share one wakeup; F in [0, 1] (0: precise),\n"
      << "                          e.g. 1/64 or 0.015625 (default " << d.idle_tolerance
      << "). Context-wide (wheel_options::tolerance):\n"
      << "                          the write deadline may be late by the same fraction of --write-timeout\n"
      << "  --write-timeout D       a write stuck this long marks a slow consumer (default "
      << format_duration(d.write_timeout) << ")\n"
      << "  --max-connections N     refuse connections beyond this many (default " << d.max_connections << ")\n"
      << "  --threads N             threads running the io_context (default " << d.threads << ")\n"
      << "  --max-line N            longest accepted line in bytes (default " << d.max_line << ")\n"
      << "  --max-queue N           bytes queued for one client before it is cut off (default " << d.max_queue
      << ")\n"
      << "  --help                  print this and exit\n\n"
      << "The first line printed is \"listening on ADDRESS:PORT\". SIGINT/SIGTERM: every client\n"
      << "gets \"BYE server-shutdown\", then the server exits 0. A bad flag value exits 2.\n";
  return out.str();
}

std::uint64_t raise_open_files_limit() {
#if defined(_WIN32)
  return 0;  // Windows has no per-process limit on open sockets to raise
#else
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return raised.rlim_cur;
  }
  return limit.rlim_cur;
#endif
}

}  // namespace keepalive_chat
