//
// test/bench/op_timeouts.cpp
//
// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
//
// Benchmark W8 (operation timeouts, doc/benchmarks.md): N pending
// async_read_some on connected loopback TCP sockets (127.0.0.1, ephemeral
// ports), each with a 30 s timeout, one thread, io_context(1). Pseudo-random
// reads are re-issued: the peer writes one byte to the socket, the read
// completes with it, and its handler starts a new read with a fresh 30 s
// timeout. The timeout is taken four ways, in the same process run,
// interleaved (each repetition runs every way once, the order rotated from
// one repetition to the next, on the same sockets and the same index
// sequence):
//
//   none          async_read_some with no timeout: the floor, what the I/O
//                 itself costs (the reference for the timeouts' own cost).
//   wheel         asio_wheel::cancel_after(30s, handler): the timeout is an
//                 entry in the context's wheel, withdrawn in O(1) without a
//                 completion when the read completes first.
//   steady_timer  a steady_timer per operation, the Boost 1.81 way: each
//                 operation owns a steady_timer; on each re-issue
//                 expires_after(30s) + async_wait, whose handler would cancel
//                 the socket; the read's handler cancels the timer (its
//                 aborted handler runs).
//   asio          Asio's own asio::cancel_after(30s, handler), only when the
//                 Asio compiled against has it (Asio 1.31, Boost 1.86, and
//                 later); with Boost 1.81 it is left out and the program says
//                 so. CMake builds this program a second time against a
//                 newer Boost.Asio tree when it has one
//                 (bench_op_timeouts_newer_asio, see CMakeLists.txt).
//
// The peer (op_timeouts_peer.hpp). The other end of every connection lives in
// a child process forked at start (its ends are passed over a Unix socket with
// SCM_RIGHTS), as a remote client's would: the measured process pays for
// receiving the byte, not for sending it, and each process needs N open files,
// not 2N. Per batch of up to 256 re-issues the benchmark sends the child the
// list of sockets (distinct ones) to write to, waits until the child has
// written, then runs the io_context until every read of the batch completed
// and was re-issued (io.poll(), so the ready descriptors of a batch come in the
// same few epoll_wait calls for every way).
//
// N = 10k and 100k (--sizes). Measured per way: process CPU time
// (CLOCK_PROCESS_CPUTIME_ID of the benchmark, the peer not included) per
// re-issue over 20k re-issues (--reissues) after 5k of warm-up (--warmup),
// the handlers of the cancelled timer waits included, and its user / system
// split (getrusage); the median over 9 repetitions (--reps: many short
// phases, because the load of a shared machine drifts within seconds). The
// timeout's own CPU is the median over the repetitions of the way's figure
// minus the no-timeout way's of the same repetition. For the wheel, also its
// wheel wakeups and later-round visits during the measurement (work
// that a re-issue does not pay directly). Memory per pending operation: heap growth
// (mallinfo2: arena + mmapped bytes, Asio's aligned_alloc'd operations and
// malloc's headers included) from arming the N reads with their timeouts,
// divided by N, plus sizeof(steady_timer) for the steady_timer way (its timer
// lives in the connection object, not on the heap); taken from the first
// repetition, where every way arms first in a fresh io_context and the
// wheel's operation pool is still empty.
//
// Open files: the benchmark raises RLIMIT_NOFILE to N + slack (the peer
// inherits it) and fails loudly when the hard limit forbids it. With
// --share-sockets it measures instead K reads per socket on N / K sockets,
// the smallest K that fits, and says so in its output: each socket then has
// K pending reads, each with its own timeout; a byte completes the oldest
// read of its socket (Asio queues the reads of a socket in order).
//
// --pairs M: for callgrind (test/bench/callgrind_op_timeouts.sh), M arm +
// withdraw pairs of each way's timeout around a fake operation that
// completes when the program says so, next to the same operation without a
// timeout, each section delimited with callgrind client requests.
//

#include "bench_support.hpp"
#include "op_timeouts_peer.hpp"

#include <asio_wheel.hpp>
#include <asio_wheel/cancel_after.hpp>
#include <asio_wheel/detail/config.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/version.hpp>

#if ASIO_WHEEL_ASIO_VERSION >= 103100
# include <boost/asio/cancel_after.hpp>
# define OP_TIMEOUTS_HAS_ASIO_CANCEL_AFTER 1
#endif

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using boost::asio::ip::tcp;
using error_code = boost::system::error_code;

using op_timeouts::die;
using op_timeouts::fds_per_message;
using op_timeouts::make_connections;
using op_timeouts::peer;

constexpr auto op_timeout = 30s;
constexpr std::size_t max_batch = 256;  // re-issues per peer command
constexpr rlim_t fd_slack = 64 + fds_per_message;

std::string asio_version_string()
{
  const int v = ASIO_WHEEL_ASIO_VERSION;
  return std::to_string(v / 100000) + "." + std::to_string(v / 100 % 1000) + "."
      + std::to_string(v % 100);
}

/// Raises the soft (and if need be the hard) RLIMIT_NOFILE to @p needed.
bool raise_open_files(rlim_t needed, rlim_t& hard)
{
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0)
    die("getrlimit");
  hard = r.rlim_max;
  if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < needed)
  {
    rlimit wanted = r;
    wanted.rlim_cur = needed;
    if (r.rlim_max != RLIM_INFINITY && r.rlim_max < needed)
      wanted.rlim_max = needed;  // needs CAP_SYS_RESOURCE
    if (::setrlimit(RLIMIT_NOFILE, &wanted) != 0)
      return false;
    hard = wanted.rlim_max;
  }
  return true;
}

// ---------------------------------------------------------------------------
// The four ways, and a fleet of N pending reads taking its timeouts one way.

enum class way
{
  none,
  wheel,
  steady_timer,
  asio
};

const char* way_name(way w)
{
  switch (w)
  {
  case way::none:
    return "none";
  case way::wheel:
    return "wheel";
  case way::steady_timer:
    return "steady_timer";
  case way::asio:
    return "asio";
  }
  return "?";
}

/// The implementation names of the JSON records.
const char* way_impl(way w)
{
  switch (w)
  {
  case way::none:
    return "no_timeout";
  case way::wheel:
    return "asio_wheel_cancel_after";
  case way::steady_timer:
    return "steady_timer_per_op";
  case way::asio:
    return "asio_cancel_after";
  }
  return "?";
}

struct fleet_counts
{
  std::size_t reissued = 0;  // reads that completed with a byte
  std::size_t bytes = 0;
  std::size_t reads_aborted = 0;  // operation_aborted (teardown, or a timeout)
  std::size_t read_errors = 0;  // anything else (EOF, reset)
  std::size_t timers_fired = 0;  // steady_timer way: a 30 s wait expired
  std::size_t timers_aborted =
      0;  // steady_timer way: cancelled waits' handlers
};

template <way W>
class fleet;

template <way W>
struct read_handler
{
  fleet<W>* f;
  std::size_t slot;

  void operator()(const error_code& ec, std::size_t n) const
  {
    f->on_read(slot, ec, n);
  }
};

template <way W>
struct timer_handler
{
  fleet<W>* f;
  std::size_t slot;

  void operator()(const error_code& ec) const { f->on_timer(slot, ec); }
};

template <way W>
class fleet
{
public:
  /// The sockets of @p fds on a fresh io_context, and @p slots read slots
  /// (slot j reads from socket j % fds.size()). release_all() gives the
  /// fds back before the fleet is destroyed: they outlive every phase.
  fleet(const std::vector<int>& fds, std::size_t slots) : bytes_(slots)
  {
    sockets_.reserve(fds.size());
    for (int fd : fds)
    {
      sockets_.emplace_back(io_);
      sockets_.back().assign(tcp::v4(), fd);
    }
    if constexpr (W == way::steady_timer)
    {
      timers_.reserve(slots);
      for (std::size_t i = 0; i < slots; ++i)
        timers_.emplace_back(io_);
    }
  }

  boost::asio::io_context& io() { return io_; }
  const fleet_counts& counts() const { return counts_; }
  std::size_t slots() const { return bytes_.size(); }

  /// Starts the read of slot @p j with its timeout.
  void issue(std::size_t j)
  {
    tcp::socket& s = sockets_[j % sockets_.size()];
    const auto buffer = boost::asio::buffer(&bytes_[j], 1);
    if constexpr (W == way::none)
      s.async_read_some(buffer, read_handler<W>{this, j});
    else if constexpr (W == way::wheel)
      s.async_read_some(buffer,
          asio_wheel::cancel_after(op_timeout, read_handler<W>{this, j}));
    else if constexpr (W == way::steady_timer)
    {
      boost::asio::steady_timer& t = timers_[j];
      t.expires_after(op_timeout);
      t.async_wait(timer_handler<W>{this, j});
      s.async_read_some(buffer, read_handler<W>{this, j});
    }
    else
    {
#if defined(OP_TIMEOUTS_HAS_ASIO_CANCEL_AFTER)
      s.async_read_some(buffer,
          boost::asio::cancel_after(op_timeout, read_handler<W>{this, j}));
#endif
    }
  }

  void on_read(std::size_t j, const error_code& ec, std::size_t n)
  {
    if constexpr (W == way::steady_timer)
      timers_[j].cancel();  // its handler runs with operation_aborted
    if (!ec)
    {
      ++counts_.reissued;
      counts_.bytes += n;
      issue(j);
    }
    else if (ec == boost::asio::error::operation_aborted)
      ++counts_.reads_aborted;
    else
      ++counts_.read_errors;
  }

  void on_timer(std::size_t j, const error_code& ec)
  {
    if (!ec)
    {
      // The timeout: cancels the socket, which aborts its pending read(s).
      ++counts_.timers_fired;
      error_code ignored;
      sockets_[j % sockets_.size()].cancel(ignored);
    }
    else
      ++counts_.timers_aborted;
  }

  /// Runs the context until @p target reads have been re-issued in all,
  /// then until nothing is ready. False if it stalled for 5 s.
  bool run_until_reissued(std::size_t target)
  {
    while (counts_.reissued < target)
    {
      if (io_.poll() == 0 && counts_.reissued < target
          && io_.run_one_for(5s) == 0)
        return false;
    }
    io_.poll();
    return true;
  }

  /// Takes the sockets off this context: their pending reads complete with
  /// operation_aborted (and so do the timers' waits); runs those handlers.
  void release_all()
  {
    for (tcp::socket& s : sockets_)
    {
      error_code ignored;
      s.release(ignored);
    }
    io_.poll();
  }

private:
  boost::asio::io_context io_{1};
  std::vector<tcp::socket> sockets_;
  std::vector<char> bytes_;  // one byte of read buffer per slot
  std::vector<boost::asio::steady_timer> timers_;
  fleet_counts counts_;
};

// ---------------------------------------------------------------------------
// Profiling the measured sections alone: with
//   OP_TIMEOUTS_PERF_CONTROL=CTL_FIFO:ACK_FIFO
// the program writes "enable" / "disable" to perf's control FIFO around each
// measured section (perf record --control=fifo:CTL_FIFO,ACK_FIFO -D -1).

class perf_control
{
public:
  perf_control()
  {
    const char* spec = std::getenv("OP_TIMEOUTS_PERF_CONTROL");
    if (!spec)
      return;
    const std::string s = spec;
    const std::size_t colon = s.find(':');
    if (colon == std::string::npos)
      return;
    ctl_ = ::open(s.substr(0, colon).c_str(), O_WRONLY | O_CLOEXEC);
    ack_ = ::open(s.substr(colon + 1).c_str(), O_RDONLY | O_CLOEXEC);
    if (ctl_ < 0 || ack_ < 0)
      die("OP_TIMEOUTS_PERF_CONTROL");
  }

  void enable() { send("enable\n"); }
  void disable() { send("disable\n"); }

private:
  void send(const char* what)
  {
    if (ctl_ < 0)
      return;
    if (::write(ctl_, what, std::strlen(what)) < 0)
      die("write to the perf control FIFO");
    char ack[8];
    if (::read(ack_, ack, sizeof ack) < 0)
      die("read from the perf ack FIFO");
  }

  int ctl_ = -1;
  int ack_ = -1;
};

perf_control& perf()
{
  static perf_control p;
  return p;
}

// ---------------------------------------------------------------------------
// One phase: arm, warm up, measure, tear down.

/// Every malloc-family byte in use: arena chunks plus mmapped chunks.
std::int64_t malloc_in_use_bytes()
{
  const struct mallinfo2 mi = ::mallinfo2();
  return static_cast<std::int64_t>(mi.uordblks + mi.hblkhd);
}

struct cpu_split
{
  std::chrono::nanoseconds process{0};
  std::chrono::nanoseconds user{0};
  std::chrono::nanoseconds system{0};

  static cpu_split now()
  {
    rusage ru{};
    ::getrusage(RUSAGE_SELF, &ru);
    cpu_split c;
    c.process = bench::process_cpu_time();
    c.user = std::chrono::seconds(ru.ru_utime.tv_sec)
        + std::chrono::microseconds(ru.ru_utime.tv_usec);
    c.system = std::chrono::seconds(ru.ru_stime.tv_sec)
        + std::chrono::microseconds(ru.ru_stime.tv_usec);
    return c;
  }
};

struct phase_result
{
  double ns_per_reissue = 0;  // process CPU
  double user_ns_per_reissue = 0;  // getrusage, tick-sampled split
  double sys_ns_per_reissue = 0;
  double bytes_per_op = 0;  // heap growth / N (+ sizeof(steady_timer))
  double heap_bytes_per_op = 0;
  double wakeups_per_s = 0;  // wheel way: the wheel's
  double round_revisits_per_reissue = 0;  // wheel way: later-round visits
};

struct workload
{
  std::size_t n = 0;  // pending reads
  std::size_t sockets = 0;  // n / reads per socket
  std::size_t warmup = 0;  // re-issues before the measurement
  std::size_t measured = 0;  // re-issues measured
  std::size_t batch = 0;  // re-issues per peer command
};

/// Sends the peer batches of distinct random sockets until @p count reads
/// have been re-issued.
template <way W>
bool reissue(fleet<W>& f, peer& p, const workload& w, std::size_t count,
    bench::index_generator& pick, std::vector<std::uint32_t>& stamp,
    std::uint32_t& batch_number)
{
  std::vector<std::uint32_t> indices;
  indices.reserve(w.batch);
  std::size_t done = 0;
  while (done < count)
  {
    const std::size_t b = std::min(w.batch, count - done);
    ++batch_number;
    indices.clear();
    while (indices.size() < b)
    {
      const auto s = static_cast<std::uint32_t>(pick.below(w.sockets));
      if (stamp[s] == batch_number)
        continue;  // one byte per socket and batch
      stamp[s] = batch_number;
      indices.push_back(s);
    }
    const std::size_t target = f.counts().reissued + b;
    if (!p.write_bytes(indices) || !f.run_until_reissued(target))
      return false;
    done += b;
  }
  return true;
}

template <way W>
phase_result run_phase(const std::vector<int>& fds, peer& p, const workload& w,
    std::uint64_t seed, bench::report& report)
{
  phase_result r;
  const std::string what =
      std::string(way_name(W)) + " N=" + bench::size_label(w.n);
  fleet<W> f(fds, w.n);

  // Arm: N reads with their timeouts (the first timeout of the wheel way
  // creates the context's wheel service, counted here as in W5).
  const std::int64_t heap_before = malloc_in_use_bytes();
  for (std::size_t j = 0; j < w.n; ++j)
    f.issue(j);
  const std::int64_t heap_after = malloc_in_use_bytes();
  r.heap_bytes_per_op = static_cast<double>(heap_after - heap_before) / w.n;
  r.bytes_per_op = r.heap_bytes_per_op
      + (W == way::steady_timer ? sizeof(boost::asio::steady_timer) : 0);
  f.io().poll();  // nothing is ready: no read may complete

  asio_wheel::wheel_stats before{};
  using wheel_service =
      asio_wheel::wheel_timer_service<std::chrono::steady_clock>;
  if constexpr (W == way::wheel)
  {
    before = boost::asio::use_service<wheel_service>(f.io()).stats();
    report.check(before.pending_waits == w.n,
        what + ": every armed timeout is pending in the wheel ("
            + std::to_string(before.pending_waits) + ")");
  }

  bench::index_generator pick(seed);
  std::vector<std::uint32_t> stamp(w.sockets, 0);
  std::uint32_t batch_number = 0;
  bool ok = reissue(f, p, w, w.warmup, pick, stamp, batch_number);

  const std::string section = "W8 " + what;
  asio_wheel::wheel_stats measured_from{};
  if constexpr (W == way::wheel)
    measured_from = boost::asio::use_service<wheel_service>(f.io()).stats();
  const auto wall_start = std::chrono::steady_clock::now();
  perf().enable();
  const cpu_split start = cpu_split::now();
  CALLGRIND_ZERO_STATS;
  ok = ok && reissue(f, p, w, w.measured, pick, stamp, batch_number);
  const cpu_split end = cpu_split::now();
  CALLGRIND_DUMP_STATS_AT(section.c_str());
  perf().disable();
  const double wall_s =
      bench::to_ms(std::chrono::steady_clock::now() - wall_start) / 1e3;
  if constexpr (W == way::wheel)
  {
    // The wheel's own work that does not come with a re-issue: its wakeups
    // and visits of entries due in a later round.
    const asio_wheel::wheel_stats s =
        boost::asio::use_service<wheel_service>(f.io()).stats();
    r.wakeups_per_s =
        static_cast<double>(s.wakeups - measured_from.wakeups) / wall_s;
    r.round_revisits_per_reissue =
        static_cast<double>(s.round_revisits - measured_from.round_revisits)
        / static_cast<double>(w.measured);
  }
  report.check(
      ok, what + ": every batch of bytes was written and read (no stall)");

  const double m = static_cast<double>(w.measured);
  r.ns_per_reissue = bench::to_ns(end.process - start.process) / m;
  r.user_ns_per_reissue = bench::to_ns(end.user - start.user) / m;
  r.sys_ns_per_reissue = bench::to_ns(end.system - start.system) / m;

  const std::size_t reissues = w.warmup + w.measured;
  const fleet_counts c = f.counts();
  report.check(c.reissued == reissues && c.bytes == reissues,
      what + ": every byte completed one read, which was re-issued ("
          + std::to_string(c.reissued) + " of " + std::to_string(reissues)
          + ")");
  report.check(
      c.reads_aborted == 0 && c.read_errors == 0 && c.timers_fired == 0,
      what + ": no read was aborted or failed and no timeout fired");
  if constexpr (W == way::wheel)
  {
    const asio_wheel::wheel_stats after =
        boost::asio::use_service<wheel_service>(f.io()).stats();
    report.check(
        after.timeouts_withdrawn - before.timeouts_withdrawn == reissues,
        what
            + ": each completed read withdrew its timeout "
              "(stats().timeouts_withdrawn "
            + std::to_string(
                after.timeouts_withdrawn - before.timeouts_withdrawn)
            + ")");
    report.check(after.pending_waits == w.n && after.waits_expired == 0
            && after.waits_cancelled == before.waits_cancelled,
        what + ": N timeouts pending, none expired or completed as cancelled");
  }
  if constexpr (W == way::steady_timer)
    report.check(c.timers_aborted == reissues,
        what + ": each completed read cancelled its timer, whose handler ran");

  f.release_all();
  const fleet_counts t = f.counts();
  report.check(t.reads_aborted == w.n,
      what + ": releasing the sockets aborted every pending read ("
          + std::to_string(t.reads_aborted) + " of " + std::to_string(w.n)
          + ")");
  if constexpr (W == way::wheel)
  {
    const asio_wheel::wheel_stats s =
        boost::asio::use_service<wheel_service>(f.io()).stats();
    report.check(s.pending_waits == 0 && s.timers_in_wheel == 0
            && s.timeouts_withdrawn - before.timeouts_withdrawn
                == reissues + w.n,
        what
            + ": the aborted reads withdrew their timeouts, the wheel is "
              "empty");
  }
  if constexpr (W == way::steady_timer)
    report.check(t.timers_aborted == reissues + w.n,
        what + ": the aborted reads cancelled their timers");
  return r;
}

// ---------------------------------------------------------------------------
// --pairs M: instructions per arm + withdraw pair, for callgrind.

/// A fake asynchronous operation with one pending handler, completed by
/// complete(): what an I/O object does, minus the I/O. It does not listen to
/// the handler's cancellation slot.
// While pending it counts as work of the context, as a real operation does
// (a socket read's reactor operation), until its handler has returned.
class fake_op
{
public:
  template <typename Handler>
  void store(boost::asio::io_context& io, Handler&& h)
  {
    using H = std::decay_t<Handler>;
    static_assert(sizeof(H) <= sizeof storage_, "handler too large");
    new (storage_) H(static_cast<Handler&&>(h));
    work_.emplace(io.get_executor());
    invoke_ = [](fake_op& self, const error_code& ec, std::size_t n) {
      H* stored = std::launder(reinterpret_cast<H*>(self.storage_));
      H handler(std::move(*stored));
      stored->~H();
      self.invoke_ = nullptr;
      auto work = std::move(self.work_);
      self.work_.reset();
      handler(ec, n);
    };
  }

  void complete(const error_code& ec, std::size_t n) { invoke_(*this, ec, n); }

private:
  alignas(std::max_align_t) unsigned char storage_[64];
  void (*invoke_)(fake_op&, const error_code&, std::size_t) = nullptr;
  std::optional<
      boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>
      work_;
};

struct fake_initiation
{
  // As a tcp::socket's: the polymorphic executor (the wheel's timeout then
  // holds an any_io_executor, as it does for a socket's read).
  using executor_type = boost::asio::any_io_executor;

  executor_type get_executor() const noexcept { return io->get_executor(); }

  template <typename Handler>
  void operator()(Handler&& h) const
  {
    op->store(*io, static_cast<Handler&&>(h));
  }

  boost::asio::io_context* io;
  fake_op* op;
};

template <typename Token>
auto async_fake_read(boost::asio::io_context& io, fake_op& op, Token&& token)
{
  return boost::asio::async_initiate<Token, void(error_code, std::size_t)>(
      fake_initiation{&io, &op}, token);
}

struct pair_counts
{
  std::size_t completed = 0;
  std::size_t aborted = 0;
  std::size_t timer_aborted = 0;
};

struct pair_handler
{
  pair_counts* c;

  void operator()(const error_code& ec, std::size_t) const
  {
    ++(ec ? c->aborted : c->completed);
  }
};

struct pair_timer_handler
{
  pair_counts* c;

  void operator()(const error_code& ec) const
  {
    if (ec)
      ++c->timer_aborted;
  }
};

/// M operations started and completed one way; io.poll() every poll_every
/// operations (the aborted timer waits of the steady_timer and asio ways run
/// there).
template <way W>
__attribute__((noinline)) void pairs(boost::asio::io_context& io, fake_op& op,
    boost::asio::steady_timer& timer, std::size_t m, std::size_t poll_every,
    pair_counts& c)
{
  for (std::size_t i = 0; i < m; ++i)
  {
    if constexpr (W == way::none)
      async_fake_read(io, op, pair_handler{&c});
    else if constexpr (W == way::wheel)
      async_fake_read(
          io, op, asio_wheel::cancel_after(op_timeout, pair_handler{&c}));
    else if constexpr (W == way::steady_timer)
    {
      timer.expires_after(op_timeout);
      timer.async_wait(pair_timer_handler{&c});
      async_fake_read(io, op, pair_handler{&c});
    }
    else
    {
#if defined(OP_TIMEOUTS_HAS_ASIO_CANCEL_AFTER)
      async_fake_read(
          io, op, boost::asio::cancel_after(op_timeout, pair_handler{&c}));
#endif
    }
    op.complete(error_code(), 1);
    if constexpr (W == way::steady_timer)
      timer.cancel();
    if (i % poll_every == poll_every - 1)
      io.poll();
  }
  io.poll();
}

/// `background` other timeouts pending meanwhile: 1000 (a server's, polled
/// every max_batch operations), or 0 (a client's, whose only timeout is the
/// current operation's: polled after every operation, as a client's read
/// completes through the scheduler before the next is started).
template <way W>
void measure_pairs(std::size_t m, std::size_t background, bench::report& report)
{
  const char* const kind = background == 0 ? "lone" : "pairs";
  const std::size_t poll_every = background == 0 ? 1 : max_batch;
  boost::asio::io_context io{1};
  // The connection's other work (its next read, its writes): the context
  // never runs out of work between two operations, as a client's does not.
  const auto connection = boost::asio::make_work_guard(io);
  pair_counts c;
  std::vector<fake_op> others(background);
  std::vector<boost::asio::steady_timer> other_timers;
  other_timers.reserve(background);
  for (std::size_t i = 0; i < background; ++i)
  {
    other_timers.emplace_back(io);
    if constexpr (W == way::none)
      async_fake_read(io, others[i], pair_handler{&c});
    else if constexpr (W == way::wheel)
      async_fake_read(io, others[i],
          asio_wheel::cancel_after(op_timeout, pair_handler{&c}));
    else if constexpr (W == way::steady_timer)
    {
      other_timers[i].expires_after(op_timeout);
      other_timers[i].async_wait(pair_timer_handler{&c});
      async_fake_read(io, others[i], pair_handler{&c});
    }
    else
    {
#if defined(OP_TIMEOUTS_HAS_ASIO_CANCEL_AFTER)
      async_fake_read(io, others[i],
          boost::asio::cancel_after(op_timeout, pair_handler{&c}));
#endif
    }
  }
  fake_op op;
  boost::asio::steady_timer timer(io);
  pairs<W>(io, op, timer, std::min<std::size_t>(m, 10000), poll_every,
      c);  // warm-up

  const pair_counts warm = c;
  const std::string section = std::string(kind) + " " + way_name(W);
  const bench::stopwatch watch;
  CALLGRIND_ZERO_STATS;
  pairs<W>(io, op, timer, m, poll_every, c);
  const double ns = bench::to_ns(watch.cpu()) / static_cast<double>(m);
  CALLGRIND_DUMP_STATS_AT(section.c_str());

  report.check(c.completed - warm.completed == m && c.aborted == 0,
      section + ": every operation completed once");
  if constexpr (W == way::steady_timer)
    report.check(c.timer_aborted - warm.timer_aborted == m,
        section + ": every cancelled wait's handler ran");
  std::printf("  %-5s %-13s %10.1f ns per operation (thread CPU; under "
              "callgrind see its dump)\n",
      kind, way_name(W), ns);
  report.measure(background == 0 ? "W8_lone_pairs" : "W8_pairs", way_impl(W), m,
      "ns_per_pair", ns);
  for (std::size_t i = 0; i < background; ++i)
    others[i].complete(boost::asio::error::operation_aborted, 0);
  io.poll();
}

// ---------------------------------------------------------------------------
// The command line beyond bench_support's.

struct program_options
{
  bench::options common;
  bool share_sockets = false;
  std::size_t pairs = 0;  // --pairs M: the callgrind mode
  std::vector<std::size_t> sizes;  // --sizes a,b,...
  std::size_t reissues = 0;  // --reissues M (measured per phase)
  std::size_t warmup = 0;  // --warmup M (before the measurement)
  std::vector<way> ways;  // --ways a,b,... (default: all)
};

std::vector<std::string> split_list(const std::string& list)
{
  std::vector<std::string> items;
  for (std::size_t pos = 0; pos <= list.size();)
  {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    items.push_back(list.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return items;
}

program_options parse(int argc, char** argv)
{
  program_options o;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (arg == "--share-sockets")
      o.share_sockets = true;
    else if (arg == "--pairs" && i + 1 < argc)
      o.pairs = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--reissues" && i + 1 < argc)
      o.reissues = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--warmup" && i + 1 < argc)
      o.warmup = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--sizes" && i + 1 < argc)
    {
      for (const std::string& item : split_list(argv[++i]))
      {
        const std::size_t v = std::strtoull(item.c_str(), nullptr, 10);
        if (v == 0)
        {
          std::fprintf(stderr, "%s: bad --sizes %s\n", argv[0], argv[i]);
          std::exit(2);
        }
        o.sizes.push_back(v);
      }
    }
    else if (arg == "--ways" && i + 1 < argc)
    {
      for (const std::string& item : split_list(argv[++i]))
      {
        bool found = false;
        for (way w : {way::wheel, way::steady_timer, way::asio, way::none})
          if (item == way_name(w))
          {
            o.ways.push_back(w);
            found = true;
          }
        if (!found)
        {
          std::fprintf(stderr,
              "%s: bad --ways item %s (wheel, steady_timer, asio, none)\n",
              argv[0], item.c_str());
          std::exit(2);
        }
      }
    }
    else if (arg == "--help" || arg == "-h")
    {
      std::printf(
          "usage: %s [--smoke] [--json FILE] [--reps R] [--sizes N,...]\n"
          "          [--reissues M] [--warmup M] [--ways W,...] "
          "[--share-sockets]\n"
          "          [--pairs M]\n"
          "  --sizes          pending reads (default 10000,100000; smoke 200)\n"
          "  --reissues       re-issues measured per way and repetition "
          "(default 20000)\n"
          "  --warmup         re-issues before the measurement (default 5000)\n"
          "  --ways           of wheel, steady_timer, asio, none (default: all "
          "there are)\n"
          "  --share-sockets  if the open-file limit cannot be raised to N + "
          "%llu,\n"
          "                   put K reads on each of N / K sockets instead of "
          "failing\n"
          "  --pairs M        callgrind mode: M arm + withdraw pairs per way, "
          "no sockets\n",
          argv[0], static_cast<unsigned long long>(fd_slack));
      std::exit(0);
    }
    else
      rest.push_back(argv[i]);
  }
  o.common = bench::parse_options(static_cast<int>(rest.size()), rest.data());
  return o;
}

struct row
{
  std::size_t n = 0;
  std::size_t reads_per_socket = 1;
  std::array<std::vector<phase_result>, 4> results;  // by way, one per rep

  double median_of(way w, double phase_result::*field) const
  {
    std::vector<double> v;
    for (const phase_result& r : results[static_cast<int>(w)])
      v.push_back(r.*field);
    return bench::median(v);
  }

  double first_of(way w, double phase_result::*field) const
  {
    const auto& v = results[static_cast<int>(w)];
    return v.empty() ? 0 : v.front().*field;
  }

  /// The timeout's own CPU: the median over the repetitions of this way's
  /// figure minus the no-timeout way's in the same repetition (the ways of a
  /// repetition run back to back, so slow drifts of a shared machine cancel).
  double own_cpu(way w) const
  {
    const auto& mine = results[static_cast<int>(w)];
    const auto& none = results[static_cast<int>(way::none)];
    std::vector<double> v;
    for (std::size_t i = 0; i < mine.size() && i < none.size(); ++i)
      v.push_back(mine[i].ns_per_reissue - none[i].ns_per_reissue);
    return bench::median(v);
  }

  bool has(way w) const { return !results[static_cast<int>(w)].empty(); }
};

int run_pairs_mode(const program_options& o, bench::report& report)
{
  std::printf(
      "W8 arm + withdraw pairs (callgrind mode): %zu operations per way on a\n"
      "fake operation; \"pairs\" with 1000 other timeouts pending and "
      "io.poll() every %zu,\n"
      "\"lone\" with none (the operation's timeout is the context's only one) "
      "and\n"
      "io.poll() after each\n\n",
      o.pairs, max_batch);
  const auto wanted = [&](way w) {
    return o.ways.empty()
        || std::find(o.ways.begin(), o.ways.end(), w) != o.ways.end();
  };
  for (std::size_t background : {std::size_t(1000), std::size_t(0)})
  {
    if (wanted(way::none))
      measure_pairs<way::none>(o.pairs, background, report);
    if (wanted(way::wheel))
      measure_pairs<way::wheel>(o.pairs, background, report);
    if (wanted(way::steady_timer))
      measure_pairs<way::steady_timer>(o.pairs, background, report);
#if defined(OP_TIMEOUTS_HAS_ASIO_CANCEL_AFTER)
    if (wanted(way::asio))
      measure_pairs<way::asio>(o.pairs, background, report);
#endif
  }
  return report.finish();
}

}  // namespace

int main(int argc, char** argv)
{
  const program_options o = parse(argc, argv);
  const bench::options& opts = o.common;
  bench::report report(OP_TIMEOUTS_PROGRAM, opts);
  const std::string asio = "Boost.Asio " + asio_version_string();
  report.note("asio_version", asio);

#if defined(OP_TIMEOUTS_HAS_ASIO_CANCEL_AFTER)
  const bool has_asio = true;
#else
  const bool has_asio = false;
#endif
  if (!has_asio)
    std::printf(
        "!!! %s has no asio::cancel_after (Asio 1.31 / Boost 1.86 and later):\n"
        "!!! the asio way is LEFT OUT of this run. "
        "bench_op_timeouts_newer_asio\n"
        "!!! (built against a newer Boost.Asio tree) measures it.\n\n",
        asio.c_str());

  if (o.pairs)
    return run_pairs_mode(o, report);

  std::vector<std::size_t> sizes = o.sizes;
  if (sizes.empty())
    sizes = opts.smoke ? std::vector<std::size_t>{200}
                       : std::vector<std::size_t>{10000, 100000};
  const int reps = opts.reps ? opts.reps : (opts.smoke ? 1 : 9);
  const std::size_t measured =
      o.reissues ? o.reissues : (opts.smoke ? 2000 : 20000);
  const std::size_t warmup = o.warmup ? o.warmup : (opts.smoke ? 500 : 5000);

  // Open files: N sockets (+ slack) in this process and in the peer.
  const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  rlim_t hard = 0;
  const bool raised = raise_open_files(largest + fd_slack, hard);
  rlimit now_limit{};
  ::getrlimit(RLIMIT_NOFILE, &now_limit);
  if (!raised && hard != RLIM_INFINITY && now_limit.rlim_cur < hard)
  {
    now_limit.rlim_cur = hard;  // as many as we may
    ::setrlimit(RLIMIT_NOFILE, &now_limit);
  }
  const rlim_t usable = now_limit.rlim_cur == RLIM_INFINITY
      ? largest + fd_slack
      : now_limit.rlim_cur;
  std::vector<std::size_t> reads_per_socket;
  for (std::size_t n : sizes)
  {
    std::size_t k = 1;
    if (n + fd_slack > usable)
    {
      if (!o.share_sockets || usable <= fd_slack)
      {
        std::fprintf(stderr,
            "\n%s: FAILED: N=%s needs %llu open files (N sockets + %llu) in "
            "this process\n"
            "and as many in its peer, but RLIMIT_NOFILE cannot be raised above "
            "%llu\n"
            "(hard limit %llu; raising it needs CAP_SYS_RESOURCE). Raise it "
            "(ulimit -Hn\n"
            "as root) or run with --share-sockets to put several reads on each "
            "socket.\n",
            OP_TIMEOUTS_PROGRAM, bench::size_label(n).c_str(),
            static_cast<unsigned long long>(n + fd_slack),
            static_cast<unsigned long long>(fd_slack),
            static_cast<unsigned long long>(usable),
            static_cast<unsigned long long>(hard));
        return 1;
      }
      const std::size_t max_sockets = usable - fd_slack;
      k = (n + max_sockets - 1) / max_sockets;
      std::printf("!!! N=%s: RLIMIT_NOFILE cannot be raised to %llu (hard "
                  "limit %llu):\n"
                  "!!! measuring %zu reads on each of %zu sockets instead "
                  "(--share-sockets)\n\n",
          bench::size_label(n).c_str(),
          static_cast<unsigned long long>(n + fd_slack),
          static_cast<unsigned long long>(hard), k, (n + k - 1) / k);
    }
    reads_per_socket.push_back(k);
  }

  peer p;  // forked before any socket or io_context exists

  std::printf(
      "W8 operation timeouts (%s): N pending async_read_some on loopback TCP,\n"
      "each with a 30 s timeout; a peer process writes one byte to "
      "pseudo-random\n"
      "sockets, each read completes and is re-issued with a fresh timeout.\n"
      "CPU ns per re-issue (process CPU, peer excluded), median of %d reps x "
      "%zu\n"
      "re-issues after %zu warm-up, batches of <= %zu; ways interleaved per "
      "rep.\n\n",
      asio.c_str(), reps, measured, warmup, max_batch);

  std::vector<way> ways;
  for (way w : {way::wheel, way::steady_timer, way::asio, way::none})
    if ((o.ways.empty()
            || std::find(o.ways.begin(), o.ways.end(), w) != o.ways.end())
        && (w != way::asio || has_asio))
      ways.push_back(w);
  if (ways.empty())
  {
    std::fprintf(stderr, "%s: no way left to measure\n", OP_TIMEOUTS_PROGRAM);
    return 1;
  }
  std::vector<row> rows;
  for (std::size_t si = 0; si < sizes.size(); ++si)
  {
    row r;
    r.n = sizes[si];
    r.reads_per_socket = reads_per_socket[si];
    workload w;
    w.n = r.n;
    w.sockets = (r.n + r.reads_per_socket - 1) / r.reads_per_socket;
    w.warmup = warmup;
    w.measured = measured;
    w.batch = std::max<std::size_t>(1, std::min(max_batch, w.sockets / 4));
    const auto setup_start = std::chrono::steady_clock::now();
    const std::vector<int> fds = make_connections(w.sockets, p);
    const double setup_s =
        bench::to_ms(std::chrono::steady_clock::now() - setup_start) / 1e3;
    const auto phases_start = std::chrono::steady_clock::now();
    for (int rep = 0; rep < reps; ++rep)
    {
      const std::uint64_t seed = 7000 + 31 * rep + r.n;
      for (std::size_t i = 0; i < ways.size(); ++i)
      {
        const way wy = ways[(i + rep) % ways.size()];
        phase_result pr;
        switch (wy)
        {
        case way::none:
          pr = run_phase<way::none>(fds, p, w, seed, report);
          break;
        case way::wheel:
          pr = run_phase<way::wheel>(fds, p, w, seed, report);
          break;
        case way::steady_timer:
          pr = run_phase<way::steady_timer>(fds, p, w, seed, report);
          break;
        case way::asio:
#if defined(OP_TIMEOUTS_HAS_ASIO_CANCEL_AFTER)
          pr = run_phase<way::asio>(fds, p, w, seed, report);
#endif
          break;
        }
        r.results[static_cast<int>(wy)].push_back(pr);
      }
    }
    std::printf("N=%s: %zu connections made in %.1f s, %d x %zu phases ran for "
                "%.1f s (wall)\n",
        bench::size_label(r.n).c_str(), w.sockets, setup_s, reps, ways.size(),
        bench::to_ms(std::chrono::steady_clock::now() - phases_start) / 1e3);
    for (int fd : fds)
      ::close(fd);
    p.close_all();
    rows.push_back(r);
  }

  // --- the table --------------------------------------------------------
  std::printf("%6s %5s %-13s %12s %10s %10s %12s %12s %12s\n", "N", "K", "way",
      "CPU ns/op", "user ns", "sys ns", "timeout ns", "bytes/op", "timeout B");
  for (const row& r : rows)
  {
    const bool with_none = r.has(way::none);
    const double none_bytes =
        r.first_of(way::none, &phase_result::bytes_per_op);
    for (way wy : ways)
    {
      const double cpu = r.median_of(wy, &phase_result::ns_per_reissue);
      const double user = r.median_of(wy, &phase_result::user_ns_per_reissue);
      const double sys = r.median_of(wy, &phase_result::sys_ns_per_reissue);
      const double bytes = r.first_of(wy, &phase_result::bytes_per_op);
      const double own_cpu = with_none ? r.own_cpu(wy) : 0;
      const double own_bytes = with_none ? bytes - none_bytes : 0;
      std::printf("%6s %5zu %-13s %12.1f %10.1f %10.1f %12.1f %12.1f %12.1f\n",
          bench::size_label(r.n).c_str(), r.reads_per_socket, way_name(wy), cpu,
          user, sys, own_cpu, bytes, own_bytes);
      const char* impl = way_impl(wy);
      report.measure("W8", impl, r.n, "ns_per_reissue", cpu);
      report.measure("W8", impl, r.n, "user_ns_per_reissue", user);
      report.measure("W8", impl, r.n, "sys_ns_per_reissue", sys);
      if (with_none)
      {
        report.measure("W8", impl, r.n, "timeout_ns_per_reissue", own_cpu);
        report.measure("W8", impl, r.n, "timeout_bytes_per_op", own_bytes);
      }
      report.measure("W8", impl, r.n, "bytes_per_op", bytes);
      if (wy == way::wheel)
      {
        report.measure("W8", impl, r.n, "wakeups_per_s",
            r.median_of(wy, &phase_result::wakeups_per_s));
        report.measure("W8", impl, r.n, "round_revisits_per_reissue",
            r.median_of(wy, &phase_result::round_revisits_per_reissue));
      }
      report.measure("W8", impl, r.n, "reads_per_socket",
          static_cast<double>(r.reads_per_socket));
      for (const phase_result& pr : r.results[static_cast<int>(wy)])
        report.measure(
            "W8", impl, r.n, "ns_per_reissue_rep", pr.ns_per_reissue);
    }
  }
  std::printf(
      "\nK = reads per socket (1 unless --share-sockets had to share);\n"
      "timeout ns = the timeout's own CPU: median over the reps of (the way - "
      "none);\n"
      "timeout B = the way's bytes/op - none's;\n"
      "bytes/op = heap growth from arming / N (+ sizeof(steady_timer) = %zu "
      "for\n"
      "steady_timer), first repetition; user/sys: getrusage's split "
      "(tick-sampled).\n",
      sizeof(boost::asio::steady_timer));
  for (const row& r : rows)
    if (r.has(way::wheel))
      std::printf("wheel at N=%s: %.0f wheel wakeups/s, %.2f later-round "
                  "visits per re-issue\n",
          bench::size_label(r.n).c_str(),
          r.median_of(way::wheel, &phase_result::wakeups_per_s),
          r.median_of(way::wheel, &phase_result::round_revisits_per_reissue));

  // --- W8's budgets (doc/benchmarks.md#budgets), the timeout's own cost
  // against each reference: bytes per pending operation <= 3:4 of a
  // steady_timer per operation and <= 1:2 of Asio's own cancel_after. The CPU
  // budget is held by instructions (callgrind_op_timeouts.sh, which run_all.sh
  // runs): the CPU time here is a difference of two noisy figures, reported
  // without a verdict. The whole re-issue is in the table; it is no budget,
  // since its socket I/O (the "none" way) is the same for every way and no
  // timeout can remove it.
  const std::string tag = " (" + asio + ")";
  for (const row& r : rows)
  {
    if (!r.has(way::wheel) || !r.has(way::none))
      continue;
    const std::string at = " at N=" + bench::size_label(r.n)
        + (r.reads_per_socket > 1 ? " K=" + std::to_string(r.reads_per_socket)
                                  : "");
    const double none_bytes =
        r.first_of(way::none, &phase_result::bytes_per_op);
    const double wheel_bytes =
        r.first_of(way::wheel, &phase_result::bytes_per_op);
    for (way ref : {way::steady_timer, way::asio})
    {
      if (!r.has(ref))
        continue;
      const double bytes = r.first_of(ref, &phase_result::bytes_per_op);
      const std::string vs = std::string("W8 wheel:") + way_name(ref);
      report.measure("W8", std::string("wheel_to_") + way_name(ref), r.n,
          "own_cpu_ratio", r.own_cpu(way::wheel) / r.own_cpu(ref));
      report.budget("W8", vs + " timeout's own bytes" + at + tag,
          (wheel_bytes - none_bytes) / (bytes - none_bytes),
          ref == way::steady_timer ? 0.75 : 0.5, "minus no-timeout");
    }
  }
  report.note("reps", std::to_string(reps));
  report.note("reissues_per_rep", std::to_string(measured));
  report.note("warmup_reissues", std::to_string(warmup));
  report.note("asio_cancel_after", has_asio ? "measured" : "left out");
  return report.finish();
}
