// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// The room (members, names, history, broadcast) and the server around it:
// accepting, refusing beyond --max-connections, /stats, and graceful shutdown.
#include "chat_server.hpp"

#include "session.hpp"

#include "common/server_main.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

namespace keepalive_chat {
namespace {

// 1 to 32 of [A-Za-z0-9_-]: printable in every terminal and free of spaces,
// so "/who" can list names separated by spaces.
bool is_valid_name(const std::string& name)
{
  if (name.empty() || name.size() > 32)
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

}  // namespace

// ---------------------------------------------------------------- lateness_histogram

void lateness_histogram::record(std::chrono::nanoseconds lateness)
{
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(lateness).count();
  const std::size_t bucket = ms < 0
      ? 0
      : std::min<std::size_t>(static_cast<std::size_t>(ms), buckets - 1);
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  std::int64_t seen = max_ns_.load(std::memory_order_relaxed);
  while (lateness.count() > seen
      && !max_ns_.compare_exchange_weak(
          seen, lateness.count(), std::memory_order_relaxed))
  {}
}

std::chrono::milliseconds lateness_histogram::percentile(double p) const
{
  std::uint64_t total = 0;
  for (const auto& c : counts_)
    total += c.load(std::memory_order_relaxed);
  if (total == 0)
    return std::chrono::milliseconds(0);
  const auto rank =
      static_cast<std::uint64_t>(p * static_cast<double>(total - 1)) + 1;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets; ++i)
  {
    seen += counts_[i].load(std::memory_order_relaxed);
    if (seen >= rank)
      return std::chrono::milliseconds(i + 1);
  }
  return std::chrono::milliseconds(buckets);
}

// ---------------------------------------------------------------- chat_room

std::string chat_room::join(
    const std::shared_ptr<session>& member, std::vector<shared_line>& history)
{
  std::lock_guard lock(mutex_);
  std::string name;
  do
  {  // skips names someone chose with /nick; ends since each try uses a new number
    name = "guest" + std::to_string(next_guest_++);
  } while (names_.count(name) != 0);
  names_.insert(name);
  members_.emplace(member.get(), member_entry{member, name});
  history.assign(history_.begin(), history_.end());
  return name;
}

void chat_room::leave(const session* member)
{
  std::lock_guard lock(mutex_);
  const auto it = members_.find(member);
  if (it == members_.end())
    return;
  names_.erase(it->second.name);
  members_.erase(it);
}

std::string chat_room::rename(
    const session* member, const std::string& new_name)
{
  if (!is_valid_name(new_name))
    return "invalid-nick (1 to 32 of A-Z a-z 0-9 _ -)";
  std::lock_guard lock(mutex_);
  const auto it = members_.find(member);
  if (it == members_.end())
    return "not-a-member";
  if (it->second.name == new_name)
    return {};
  if (names_.count(new_name) != 0)
    return "nick-taken " + new_name;
  names_.erase(it->second.name);
  names_.insert(new_name);
  it->second.name = new_name;
  return {};
}

void chat_room::broadcast(const session* sender, std::string_view text)
{
  std::lock_guard lock(mutex_);
  const auto it = members_.find(sender);
  if (it == members_.end())
    return;
  auto line = std::make_shared<const std::string>(
      it->second.name + ": " + std::string(text) + "\n");
  history_.push_back(line);
  if (history_.size() > history_limit)
    history_.pop_front();
  std::vector<std::shared_ptr<session>> recipients;
  recipients.reserve(members_.size() - 1);
  for (const auto& [key, entry] : members_)
    if (key != sender)
      recipients.push_back(entry.member);
  if (fanout_.push(std::move(line), std::move(recipients)))
    boost::asio::post(executor_, [this] { run_fanout(); });
}

bool chat_room::pause_if_backlogged(const std::shared_ptr<session>& talker)
{
  std::lock_guard lock(mutex_);
  return fanout_.pause_if_backlogged(talker);
}

void chat_room::run_fanout()
{
  std::vector<fanout::delivery> batch;
  std::vector<std::shared_ptr<session>> resumed;
  {
    std::lock_guard lock(mutex_);
    fanout_.take_turn(batch, resumed);
  }
  // Outside the lock: deliver() may close a member, which leaves the room.
  // With one thread a member's executor is ours and dispatch() runs deliver()
  // right here; with strands it is queued on the member's strand, in order.
  // With several contexts, one handler per context delivers its members'
  // lines on its thread (right here for the first one's).
  if (contexts_.size() > 1)
  {
    std::vector<decltype(batch)> per_context(contexts_.size());
    for (auto& delivery : batch)
      per_context[delivery.first->context_index()].push_back(
          std::move(delivery));
    batch.clear();
    for (std::size_t i = 0; i < contexts_.size(); ++i)
      if (!per_context[i].empty())
        boost::asio::dispatch(contexts_[i]->get_executor(),
            [deliveries = std::move(per_context[i])] {
              for (const auto& [member, line] : deliveries)
                member->deliver(line);
            });
  }
  for (auto& [member, line] : batch)
  {
    const auto strand =
        member->strand();  // before the lambda below takes `member`
    boost::asio::dispatch(
        strand, [member = std::move(member), line = std::move(line)] {
          member->deliver(line);
        });
  }
  for (auto& talker : resumed)
    boost::asio::post(talker->strand(), [talker] { talker->resume_input(); });
  std::lock_guard lock(mutex_);
  if (fanout_.end_turn())
    boost::asio::post(
        executor_, [this] { run_fanout(); });  // behind whatever else is ready
}

std::string chat_room::who_line() const
{
  std::vector<std::string> names;
  std::size_t count;
  {
    std::lock_guard lock(mutex_);
    count = members_.size();
    names.reserve(count);
    for (const auto& [key, entry] : members_)
      names.push_back(entry.name);
  }
  std::sort(names.begin(), names.end());
  std::string line = "WHO count=" + std::to_string(count);
  // 100 names of at most 32 bytes keep the line under the 4 KiB a client may expect.
  for (std::size_t i = 0; i < names.size() && i < 100; ++i)
    line += " " + names[i];
  if (names.size() > 100)
    line += " ...";
  return line + "\n";
}

std::size_t chat_room::size() const
{
  std::lock_guard lock(mutex_);
  return members_.size();
}

std::vector<std::shared_ptr<session>> chat_room::members() const
{
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<session>> result;
  result.reserve(members_.size());
  for (const auto& [key, entry] : members_)
    result.push_back(entry.member);
  return result;
}

// ---------------------------------------------------------------- chat_server

chat_server::chat_server(const std::vector<boost::asio::io_context*>& contexts,
    const server_options& options)
  : contexts_(contexts), io_(*contexts.front()), options_(options),
    server_strand_(boost::asio::make_strand(io_)), acceptor_(server_strand_),
    signals_(server_strand_, SIGINT, SIGTERM),
    accept_retry_timer_(server_strand_), shutdown_deadline_(server_strand_),
    room_(contexts)
{
  for (std::size_t i = 1; i < contexts_.size(); ++i)
    idle_contexts_work_.push_back(
        boost::asio::make_work_guard(contexts_[i]->get_executor()));
}

boost::asio::ip::tcp::endpoint chat_server::listen()
{
  const boost::asio::ip::tcp::endpoint endpoint(
      boost::asio::ip::make_address(options_.bind_address), options_.port);
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(boost::asio::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  // SOMAXCONN (4096 on current Linux): ten thousand clients connecting at once
  // then wait in the kernel's queue instead of being refused.
  acceptor_.listen(boost::asio::socket_base::max_listen_connections);
  return acceptor_.local_endpoint();
}

void chat_server::start()
{
  boost::asio::dispatch(server_strand_, [this] {
    accept_next();
    signals_.async_wait([this](const boost::system::error_code& ec, int) {
      if (!ec)
        begin_shutdown();
    });
  });
}

void chat_server::accept_next()
{
  // With --threads > 1 each connection gets its own strand: its handlers never
  // run concurrently, and different sessions still run in parallel. With one
  // thread everything is serial anyway, and a strand would only add a queue
  // hop to every completion (timer expiries included).
  // With --contexts, the connections go to the contexts in turn: the accepted
  // socket is made on the target context's executor, so the session, its
  // socket and its timers (that context's wheel) all live there.
  const std::size_t target = next_context_;
  next_context_ = (next_context_ + 1) % contexts_.size();
  boost::asio::io_context& io = *contexts_[target];
  const auto executor = options_.threads > 1
      ? boost::asio::any_io_executor(boost::asio::make_strand(io))
      : boost::asio::any_io_executor(io.get_executor());
  acceptor_.async_accept(executor,
      [this, target](const boost::system::error_code& ec,
          boost::asio::ip::tcp::socket socket) {
        on_accept(ec, std::move(socket), target);
      });
}

void chat_server::on_accept(const boost::system::error_code& ec,
    boost::asio::ip::tcp::socket socket, std::size_t context_index)
{
  if (ec == boost::asio::error::operation_aborted || shutting_down_)
    return;
  if (ec)
  {
    namespace errc = boost::system::errc;
    if (ec == errc::too_many_files_open
        || ec == errc::too_many_files_open_in_system
        || ec == errc::no_buffer_space || ec == errc::not_enough_memory)
    {
      // Accepting again at once would fail again at once: pause instead of spinning.
      std::cerr << "accept: " << ec.message() << "; retrying in 100ms\n";
      accept_retry_timer_.expires_after(std::chrono::milliseconds(100));
      accept_retry_timer_.async_wait(
          [this](const boost::system::error_code& e) {
            if (!e && !shutting_down_)
              accept_next();
          });
      return;
    }
    return accept_next();  // e.g. the peer reset before we accepted: not our problem
  }
  counters_.accepted++;
  if (live_sessions_.load() >= options_.max_connections)
  {
    refuse(socket);
  }
  else
  {
    ++live_sessions_;
    auto new_session =
        std::make_shared<session>(std::move(socket), *this, context_index);
    boost::asio::post(
        new_session->strand(), [new_session] { new_session->start(); });
  }
  accept_next();
}

void chat_server::refuse(boost::asio::ip::tcp::socket& socket)
{
  counters_.refused++;
  const std::string line = "BYE server-full max-connections="
      + std::to_string(options_.max_connections) + "\n";
  boost::system::error_code ignored;
  // A fresh socket's send buffer is empty, so this short line goes out in one
  // non-blocking write, and the acceptor never waits on a refused client.
  socket.non_blocking(true, ignored);
  boost::asio::write(socket, boost::asio::buffer(line), ignored);
  socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
  socket.close(ignored);
}

void chat_server::begin_shutdown()
{
  if (shutting_down_.exchange(true))
    return;
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  accept_retry_timer_.cancel();
  signals_.cancel(ignored);
  for (auto& member : room_.members())
    boost::asio::post(
        member->strand(), [member] { member->shut_down("server-shutdown"); });
  // The other contexts' run() now ends with their last session.
  idle_contexts_work_.clear();
  if (live_sessions_.load() == 0)
    return;
  // Clients that never read their BYE would hold the process forever; 2 s is
  // plenty for the others (each close waits at most --write-timeout or 1 s for the client).
  shutdown_deadline_.expires_after(std::chrono::seconds(2));
  shutdown_deadline_.async_wait([this](const boost::system::error_code& ec) {
    if (ec)
      return;
    std::cerr << "shutdown: " << live_sessions_.load()
              << " connection(s) still open after 2s; stopping\n";
    stop_contexts();
  });
}

void chat_server::stop_contexts()
{
  for (auto* io : contexts_)
    io->stop();
}

void chat_server::session_closed()
{
  if (live_sessions_.fetch_sub(1) == 1 && shutting_down_)
    boost::asio::post(server_strand_, [this] { shutdown_deadline_.cancel(); });
}

std::string chat_server::stats_line() const
{
  // One wheel per context: its counters summed, its lateness the worst one's.
  // stats() takes the service's lock, so another context's thread may read it.
  asio_wheel::wheel_stats s{};
  for (auto* io : contexts_)
  {
    example_common::add_wheel_stats(s,
        boost::asio::use_service<
            asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(*io)
            .stats());
  }
  // The same options on every context (main.cpp makes each service alike).
  const asio_wheel::wheel_options o = boost::asio::use_service<
      asio_wheel::wheel_timer_service<std::chrono::steady_clock>>(io_)
                                          .options();
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  std::ostringstream line;
  line << "STATS connections=" << live_sessions_.load()
       << " max_connections=" << options_.max_connections
       << " accepted=" << counters_.accepted << " refused=" << counters_.refused
       << " messages=" << counters_.messages
       << " kicked_idle=" << counters_.kicked_idle
       << " kicked_write_timeout=" << counters_.kicked_write_timeout
       << " kicked_queue_full=" << counters_.kicked_queue_full
       << " kicked_line_too_long=" << counters_.kicked_line_too_long
       << " timers=" << timer_kind_name(options_.timers)
       << " idle_timer_waits=" << counters_.idle_timer_waits
       << " idle_timeout_ms="
       << duration_cast<milliseconds>(options_.idle_timeout).count()
       << " tick_us=" << duration_cast<microseconds>(o.tick).count()
       << " slots="
       << o.slots
       // Millionths, as every value here is an integer (1/64 is 15625 exactly).
       << " tolerance_ppm=" << std::llround(o.tolerance * 1e6)
       << " timers_in_wheel=" << s.timers_in_wheel
       << " pending_waits=" << s.pending_waits << " wakeups=" << s.wakeups
       << " wakeups_saved=" << s.wakeups_saved
       << " empty_wakeups=" << s.empty_wakeups
       << " waits_expired=" << s.waits_expired
       << " waits_cancelled=" << s.waits_cancelled
       << " lazy_refilings=" << s.lazy_refilings
       << " round_revisits=" << s.round_revisits << " cascades=" << s.cascades
       << " max_lateness_us="
       << duration_cast<microseconds>(s.max_lateness).count()
       << " idle_close_late_p50_ms="
       << counters_.idle_close_lateness.percentile(0.50).count()
       << " idle_close_late_p99_ms="
       << counters_.idle_close_lateness.percentile(0.99).count()
       << " idle_close_late_max_us="
       << duration_cast<microseconds>(counters_.idle_close_lateness.max())
              .count()
       << "\n";
  return line.str();
}

}  // namespace keepalive_chat
