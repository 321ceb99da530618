#include "serve/service.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "core/mechanism.h"
#include "encoding/json.h"
#include "encoding/sha256.h"
#include "grade/grader.h"
#include "io/case_file.h"
#include "io/task.h"
#include "serve/catalog.h"
#include "serve/pool.h"
#include "serve/request.h"
#include "store/archive.h"
#include "store/exporter.h"

namespace failmap::serve {
// Named, not anonymous: Service::Impl holds members of these types.
namespace service_detail {

using Clock = std::chrono::steady_clock;

// "ADDRESS" and port of a socket's peer (`peer`) or own end, as the
// Request of a handler gives them; "" and 0 when the socket has none.
void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  ip.clear();
  port = 0;
  if ((peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len)
            : ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len)) != 0)
    return;
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

// The most bytes of one request head: the request line, the header fields
// and their line ends, through the blank line. A longer head is answered 431
// and its connection closed, having been read no further.
constexpr std::size_t k_max_head_bytes = 16 * 1024;
// The longest header line cpp-httplib reads, line end included
// (CPPHTTPLIB_HEADER_MAX_LENGTH, compiled into Debian's library, not
// settable by a define here); a longer one is answered 431 as well.
constexpr std::size_t k_max_header_line = 8192;

// The open connections by socket, as the threads that serve them register
// them: the watchdog ends a connection whose request arrives too slowly, and
// a handler sees that its client has gone away. A socket is removed before
// it is closed, so the watchdog never touches a socket number reused.
class Connections {
 public:
  enum class Phase { Head, Body, Handling };

  void add(int fd) {
    std::lock_guard lock(m_mu);
    m_entries[fd] = Entry{Phase::Head, Clock::now()};
  }
  void remove(int fd) {
    std::lock_guard lock(m_mu);
    m_entries.erase(fd);
  }

  void set_phase(int fd, Phase phase) {
    std::lock_guard lock(m_mu);
    auto it = m_entries.find(fd);
    if (it == m_entries.end()) return;
    it->second = Entry{phase, Clock::now()};
  }

  // Ends connections past their deadline and, when draining, idle ones; the
  // number ended.
  std::size_t sweep(std::chrono::duration<double> head, std::chrono::duration<double> body, bool draining) {
    std::lock_guard lock(m_mu);
    std::size_t ended = 0;
    const auto now = Clock::now();
    for (auto it = m_entries.begin(); it != m_entries.end();) {
      const Entry& e = it->second;
      bool late = (e.phase == Phase::Head && (now - e.since > head || draining)) ||
                  (e.phase == Phase::Body && now - e.since > body);
      if (late) {
        ::shutdown(it->first, SHUT_RDWR);  // the connection's read returns; its thread closes the socket
        ++ended;
        it = m_entries.erase(it);
        continue;
      }
      ++it;
    }
    return ended;
  }

 private:
  struct Entry {
    Phase phase = Phase::Head;
    Clock::time_point since;
  };
  std::mutex m_mu;
  std::map<int, Entry> m_entries;
};

// Whether the client of socket `fd` has closed its end (a read would give
// end-of-file or an error). Data it sent since is left unread.
bool client_gone(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLERR | POLLHUP | POLLRDHUP)) return true;
  char c;
  ssize_t n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

// Whether `fd` becomes ready for `events` within `ms` milliseconds (-1: no limit).
bool wait_for(int fd, short events, int ms) {
  pollfd p{fd, events, 0};
  int n;
  do n = ::poll(&p, 1, ms);
  while (n < 0 && errno == EINTR);
  return n > 0;
}

// One connection as cpp-httplib reads and writes it: the socket, read
// through a buffer. While a request's head is read it counts the bytes and
// the longest line: past k_max_head_bytes it reads as the end of the stream
// (cpp-httplib then refuses the head; the error handler answers 431).
class Connection final : public httplib::Stream {
 public:
  Connection(int fd, time_t read_seconds, time_t write_seconds)
      : m_fd(fd),
        m_read_ms(static_cast<int>(read_seconds * 1000)),
        m_write_ms(static_cast<int>(write_seconds * 1000)) {}

  int fd() const { return m_fd; }
  // A request begins: its head is counted from here.
  void begin_request() {
    m_in_head = true;
    m_head_bytes = m_line = m_longest_header_line = m_lines = 0;
    m_head_too_large = false;
  }
  // Its head has been read whole (the pre-routing handler runs).
  void end_head() { m_in_head = false; }
  bool in_head() const { return m_in_head; }
  bool head_too_large() const { return m_head_too_large; }
  std::size_t longest_header_line() const { return m_longest_header_line; }
  // Whether a request's first byte arrives within `seconds` (buffered or on the socket).
  bool wait_request(time_t seconds) {
    return m_off < m_end || wait_for(m_fd, POLLIN, static_cast<int>(seconds * 1000));
  }
  // Set when an answer leaves bytes of the request unread: the connection is
  // closed after it, never read on as a next request.
  bool close_after = false;

  bool is_readable() const override { return m_off < m_end || wait_for(m_fd, POLLIN, m_read_ms); }
  bool is_writable() const override {
    if (!wait_for(m_fd, POLLOUT, m_write_ms)) return false;
    char c;
    return !(wait_for(m_fd, POLLIN, 0) && ::recv(m_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0);
  }
  ssize_t read(char* ptr, size_t size) override {
    if (m_in_head) {
      if (m_head_bytes >= k_max_head_bytes) {
        m_head_too_large = true;
        return 0;
      }
      size = std::min(size, k_max_head_bytes - m_head_bytes);
    }
    if (m_off == m_end) {
      if (!wait_for(m_fd, POLLIN, m_read_ms)) return -1;
      ssize_t n;
      do n = ::recv(m_fd, m_buffer.data(), m_buffer.size(), 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      m_off = 0;
      m_end = static_cast<std::size_t>(n);
    }
    const std::size_t n = std::min(size, m_end - m_off);
    std::memcpy(ptr, m_buffer.data() + m_off, n);
    m_off += n;
    if (m_in_head) {
      m_head_bytes += n;
      for (std::size_t i = 0; i < n; ++i) {
        ++m_line;
        if (ptr[i] != '\n') continue;
        if (m_lines++ > 0) m_longest_header_line = std::max(m_longest_header_line, m_line);
        m_line = 0;
      }
      if (m_lines > 0) m_longest_header_line = std::max(m_longest_header_line, m_line);
    }
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!wait_for(m_fd, POLLOUT, m_write_ms)) return -1;
    ssize_t n;
    do n = ::send(m_fd, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { address_of(m_fd, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address_of(m_fd, false, ip, port); }
  socket_t socket() const override { return m_fd; }

  // Closes the socket after an answer that left bytes unread: the write side
  // first, then what the client still sends is read and dropped until it
  // closes or `ms` pass, so that closing does not reset the connection (a
  // reset can discard the answer before the client reads it).
  void close_lingering(int ms) {
    ::shutdown(m_fd, SHUT_WR);
    const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
    char sink[4096];
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0 || !wait_for(m_fd, POLLIN, static_cast<int>(left))) break;
      if (::recv(m_fd, sink, sizeof sink, MSG_DONTWAIT) == 0) break;
    }
    ::close(m_fd);
  }

 private:
  int m_fd;
  int m_read_ms, m_write_ms;
  std::array<char, 4096> m_buffer{};
  std::size_t m_off = 0, m_end = 0;
  bool m_in_head = false, m_head_too_large = false;
  std::size_t m_head_bytes = 0, m_line = 0, m_longest_header_line = 0, m_lines = 0;
};

// The connection the calling thread serves (its handlers run there), or null.
thread_local Connection* t_connection = nullptr;

// httplib's connection threads: at most `limit` connections are served at
// once, each on a thread of its own; a connection beyond them goes to one of
// a few refusing threads, where it is answered 503 at once (t_reject).
class ConnectionQueue : public httplib::TaskQueue {
 public:
  static constexpr std::size_t k_refusing_threads = 4;

  ConnectionQueue(std::size_t limit, std::atomic<std::uint64_t>& refused) : m_limit(limit), m_refused(refused) {
    for (std::size_t i = 0; i < limit; ++i) m_threads.emplace_back([this] { work(m_jobs); });
    for (std::size_t i = 0; i < k_refusing_threads; ++i) m_threads.emplace_back([this] { work(m_rejects); });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard lock(m_mu);
      if (m_open >= m_limit) {
        ++m_refused;
        m_rejects.push_back(std::move(fn));
      } else {
        ++m_open;
        m_jobs.push_back(std::move(fn));
      }
    }
    m_cv.notify_all();
  }
  void shutdown() override {
    {
      std::lock_guard lock(m_mu);
      m_stopping = true;
    }
    m_cv.notify_all();
    for (auto& t : m_threads) t.join();
  }

  static thread_local bool t_reject;

 private:
  void work(std::deque<std::function<void()>>& q) {
    const bool rejects = &q == &m_rejects;
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock(m_mu);
        m_cv.wait(lock, [&] { return !q.empty() || m_stopping; });
        if (q.empty()) return;
        fn = std::move(q.front());
        q.pop_front();
      }
      t_reject = rejects;
      fn();
      t_reject = false;
      if (!rejects) {
        std::lock_guard lock(m_mu);
        --m_open;  // counted from the accept to the close
      }
    }
  }

  std::size_t m_limit;
  std::atomic<std::uint64_t>& m_refused;
  std::mutex m_mu;
  std::condition_variable m_cv;
  std::deque<std::function<void()>> m_jobs, m_rejects;
  std::size_t m_open = 0;
  bool m_stopping = false;
  std::vector<std::thread> m_threads;
};
thread_local bool ConnectionQueue::t_reject = false;

void error_reply(httplib::Response& res, int status, const std::string& message,
                 const std::vector<std::string>& problems = {});

// cpp-httplib's server with its connections served by Connection: the
// socket is known to the thread that serves it (the registry, the head's
// limit, a close that does not reset), a connection beyond --max-connections
// is answered 503 without waiting for its request, and the listening socket
// gets a backlog of SOMAXCONN (the library's 5 leaves a burst of
// connections to the kernel's SYN retries instead of answering them).
class HttpServer final : public httplib::Server {
 public:
  HttpServer(Connections& conns, const unsigned& max_connections)
      : m_conns(conns), m_max_connections(max_connections) {}

  // After bind_to_port: the listening socket's backlog.
  void widen_backlog() { ::listen(svr_sock_, SOMAXCONN); }

  // Stops accepting without stop(): the listening loop ends on its failed
  // accept and waits for the connections open, whose answers (a chunked one
  // too) are written whole; stop() would cut a chunked answer short.
  void stop_accepting() { ::shutdown(svr_sock_, SHUT_RDWR); }

 private:
  // What cpp-httplib's own loop does (keep-alive up to keep_alive_max_count_
  // requests, each within keep_alive_timeout_sec_ of the last), on a Connection.
  bool process_and_close_socket(socket_t sock) override {
    Connection c(sock, read_timeout_sec_, write_timeout_sec_);
    if (ConnectionQueue::t_reject) {
      refuse(c);
      c.close_lingering(1000);
      return true;
    }
    m_conns.add(sock);
    t_connection = &c;
    bool ret = false;
    for (std::size_t left = keep_alive_max_count_;
         svr_sock_ != INVALID_SOCKET && left > 0 && c.wait_request(keep_alive_timeout_sec_); --left) {
      bool closed = false;
      c.begin_request();
      ret = process_request(c, left == 1, closed, nullptr);
      // The answer is written whole (a chunked one as its lines were
      // graded): the next head is timed from here.
      m_conns.set_phase(sock, Connections::Phase::Head);
      if (!ret || closed || c.close_after) break;
    }
    t_connection = nullptr;
    m_conns.remove(sock);
    if (c.close_after) {
      c.close_lingering(1000);
    } else {
      ::shutdown(sock, SHUT_RDWR);
      ::close(sock);
    }
    return ret;
  }

  // The answer to a connection beyond the limit, written before its request is read.
  void refuse(Connection& c) {
    httplib::Response res;
    error_reply(
        res, 503,
        "too many open connections (at most " + std::to_string(m_max_connections) + ", --max-connections); retry");
    std::string head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: " +
                       std::to_string(res.body.size()) + "\r\nRetry-After: 1\r\nConnection: close\r\n\r\n";
    if (c.write(head.data(), head.size()) > 0) (void)c.write(res.body.data(), res.body.size());
  }

  Connections& m_conns;
  const unsigned& m_max_connections;
};

// A Prometheus histogram of seconds (text format 0.0.4:
// https://prometheus.io/docs/instrumenting/exposition_formats/).
class Histogram {
 public:
  static constexpr std::array<double, 13> k_bounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  void observe(double s) {
    std::lock_guard lock(m_mu);
    for (std::size_t i = 0; i < k_bounds.size(); ++i)
      if (s <= k_bounds[i]) ++m_counts[i];
    ++m_count;
    m_sum += s;
  }
  std::string text(const std::string& name) const {
    std::lock_guard lock(m_mu);
    std::string out;
    for (std::size_t i = 0; i < k_bounds.size(); ++i)
      out += name + "_bucket{le=\"" + dump_compact(Json(k_bounds[i])) + "\"} " + std::to_string(m_counts[i]) + "\n";
    out += name + "_bucket{le=\"+Inf\"} " + std::to_string(m_count) + "\n";
    out += name + "_sum " + dump_compact(Json(m_sum)) + "\n";
    out += name + "_count " + std::to_string(m_count) + "\n";
    return out;
  }

 private:
  mutable std::mutex m_mu;
  std::array<std::uint64_t, k_bounds.size()> m_counts{};
  std::uint64_t m_count = 0;
  double m_sum = 0;
};

void json_reply(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(dump_compact(body) + "\n", "application/json");
}

void error_reply(httplib::Response& res, int status, const std::string& message,
                 const std::vector<std::string>& problems) {
  Json e = Json::object();
  e["status"] = status;
  e["error"] = message;
  if (!problems.empty()) {
    Json list = Json::array();
    for (std::size_t i = 0; i < problems.size() && i < 100; ++i) list.push_back(problems[i]);
    if (problems.size() > 100)
      list.push_back("… and " + std::to_string(problems.size() - 100) + " more problem(s), not shown");
    e["problems"] = std::move(list);
  }
  json_reply(res, status, Json{{"error", std::move(e)}});
}

}  // namespace service_detail

using namespace service_detail;

bool is_loopback_host(const std::string& host) {
  std::string name = host;
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  if (name.empty()) return false;  // httplib binds an empty host to every address
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) return false;
  bool all_loopback = true;
  for (const addrinfo* p = found; p != nullptr; p = p->ai_next) {
    if (p->ai_family == AF_INET) {
      const auto* a = reinterpret_cast<const sockaddr_in*>(p->ai_addr);
      all_loopback = all_loopback && (ntohl(a->sin_addr.s_addr) >> 24) == 127;
    } else if (p->ai_family == AF_INET6) {
      const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(p->ai_addr)->sin6_addr;
      all_loopback = all_loopback && (IN6_IS_ADDR_LOOPBACK(&a) || (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127));
    } else {
      all_loopback = false;
    }
  }
  ::freeaddrinfo(found);
  return all_loopback;
}

Result<std::string> read_token_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return input_error(path + ": cannot read the token file");
  std::string token;
  std::getline(in, token);
  if (!token.empty() && token.back() == '\r') token.pop_back();
  for (unsigned char c : token)
    if (!(std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='))
      return input_error(path +
                         ": the token holds a character other than A-Z a-z 0-9 - . _ ~ + / = (RFC 6750 b64token)");
  if (token.size() < 16)
    return input_error(path + ": the token on its first line has " + std::to_string(token.size()) +
                       " bytes; at least 16 are needed (e.g. openssl rand -hex 32)");
  return token;
}

bool tokens_equal(const std::string& a, const std::string& b) {
  const std::string ha = sha256_hex(a), hb = sha256_hex(b);
  return CRYPTO_memcmp(ha.data(), hb.data(), ha.size()) == 0;
}

struct Service::Impl {
  ServeOptions o;
  std::optional<Archive> archive;
  std::mutex archive_mu;  // the archive's connection and the case cache
  std::vector<CaseSummary> cases;
  std::map<std::string, std::string> units;     // case id → split unit key
  std::map<std::string, GradingCase> prepared;  // case id → ready for grading (never erased)
  // Destroyed after the pool, whose workers hand it their gradings.
  std::unique_ptr<GradingRecorder> recorder;
  std::unique_ptr<GradingPool> pool;
  Connections conns;
  HttpServer http{conns, o.max_connections};
  int port = 0;
  std::atomic<bool> draining{false};
  std::atomic<std::uint64_t> connections_refused{0}, connections_ended{0};
  std::mutex metrics_mu;
  std::map<std::pair<std::string, int>, std::uint64_t> requests;  // (route, status) → count
  Histogram grade_latency;
  std::mutex watchdog_mu;
  std::condition_variable watchdog_cv;
  bool watchdog_stop = false;
  std::thread watchdog;

  // The route a request counts under in /metrics (not the raw path: ids would make unbounded series).
  static std::string route_of(const httplib::Request& req) {
    const std::string& p = req.path;
    if (p == "/v1/grade" || p == "/v1/cases" || p == "/v1/mechanisms" || p == "/healthz" || p == "/metrics") return p;
    if (p.rfind("/v1/cases/", 0) == 0) return "/v1/cases/{id}";
    if (p.rfind("/v1/tasks/", 0) == 0) return "/v1/tasks/{id}";
    return "other";
  }

  // The case ready for grading, prepared on first use; nullptr when the
  // archive has no such case (`error` set when it could not be prepared).
  const GradingCase* grading_case(const std::string& id, std::string* error) {
    std::lock_guard lock(archive_mu);
    if (auto it = prepared.find(id); it != prepared.end()) return &it->second;
    auto c = archive->load_case(id);
    if (!c) {
      *error = c.error().message;
      return nullptr;
    }
    if (!*c) return nullptr;
    auto digest = archive->case_digest(id);
    if (!digest) {
      *error = digest.error().message;
      return nullptr;
    }
    auto g = prepare_grading_case(**c, digest->value_or(""), o.held_out);
    if (!g) {
      *error = g.error().message;
      return nullptr;
    }
    return &prepared.emplace(id, std::move(*g)).first->second;
  }

  void routes();
  void grade(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader);
  std::string metrics();
};

void Service::Impl::routes() {
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    t_connection->end_head();
    conns.set_phase(t_connection->fd(), Connections::Phase::Body);
    std::vector<std::string> lengths;
    for (auto [it, end] = req.headers.equal_range("Content-Length"); it != end; ++it) lengths.push_back(it->second);
    std::vector<std::string> codings;
    for (auto [it, end] = req.headers.equal_range("Transfer-Encoding"); it != end; ++it) codings.push_back(it->second);
    auto problem = framing_problem(lengths, codings, o.max_body_bytes);
    if (!problem) {
      std::vector<std::string> content_codings;
      for (auto [it, end] = req.headers.equal_range("Content-Encoding"); it != end; ++it)
        content_codings.push_back(it->second);
      problem = content_coding_problem(content_codings);
      if (problem) res.set_header("Accept-Encoding", std::string(k_accepted_content_codings));
    }
    // A request without either field has no body (RFC 9112 §6.3); the grade
    // route needs one, and is told so (411) rather than left to wait for
    // bytes the client will not send.
    if (!problem && lengths.empty() && codings.empty() && req.method == "POST" && req.path == "/v1/grade")
      problem =
          RequestProblem{411, "POST /v1/grade needs a body framed by Content-Length or chunked Transfer-Encoding", {}};
    if (problem) {
      t_connection->close_after = true;  // the body is not read: what follows the head is not a next request
      res.set_header("Connection", "close");
      error_reply(res, problem->status, problem->message);
      return httplib::Server::HandlerResponse::Handled;
    }
    const bool has_body = req.has_header("Transfer-Encoding") ||
                          (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
    const bool grade_route = req.method == "POST" && req.path == "/v1/grade";
    // Every route but the grade route is GET (and so HEAD). Any other method
    // is answered here, before a body is waited for: cpp-httplib would read
    // a POST, PUT or PATCH without framing until the client closes.
    const bool no_route = !grade_route && req.method != "GET" && req.method != "HEAD";
    if (no_route || (has_body && !grade_route)) {
      if (has_body) {
        t_connection->close_after = true;  // the body is not read: what follows the head is not a next request
        res.set_header("Connection", "close");
      }
      if (no_route) error_reply(res, 404, "no route " + req.method + " " + req.path + " (schema/SERVE.md lists them)");
      else error_reply(res, 400, req.method + " " + req.path + " takes no request body");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (o.token && req.path != "/healthz") {
      const std::string auth = req.get_header_value("Authorization");
      const auto token = bearer_token(auth);
      if (!token || !tokens_equal(std::string(*token), *o.token)) {
        res.set_header("WWW-Authenticate", "Bearer realm=\"failmap\"");
        error_reply(res, 401,
                    auth.empty() ? "this server requires a bearer token (Authorization: Bearer TOKEN)"
                    : !token     ? "the Authorization header holds no bearer token (expected: Bearer TOKEN)"
                                 : "the bearer token is not the one this server was started with");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    std::lock_guard lock(metrics_mu);
    ++requests[{route_of(req), res.status}];
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    Connection* c = t_connection;
    if (c && c->in_head()) {
      // The head was not read whole: what follows it is not read as a request.
      c->close_after = true;
      res.set_header("Connection", "close");
      if (res.status == 400 && (c->head_too_large() || c->longest_header_line() > k_max_header_line)) {
        res.status = 431;
        return error_reply(res, 431,
                           c->head_too_large()
                               ? "the request head is larger than " + std::to_string(k_max_head_bytes) +
                                     " bytes (request line and header fields)"
                               : "a header line is longer than " + std::to_string(k_max_header_line) + " bytes");
      }
    }
    std::string what = res.status == 404   ? "no route " + req.method + " " + req.path + " (schema/SERVE.md lists them)"
                       : res.status == 413 ? "the request body is larger than this server accepts"
                       : res.status == 414 ? "the request line is longer than 8192 bytes"
                       : res.status == 400 ? "malformed HTTP request"
                                           : "HTTP status " + std::to_string(res.status);
    error_reply(res, res.status, what);
  });
  // An answer after which the connection is closed does not offer to keep it alive.
  http.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) {
    if (t_connection && t_connection->close_after) {
      res.headers.erase("Keep-Alive");
      if (!res.has_header("Connection")) res.set_header("Connection", "close");
    }
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what += ": ";
      what += e.what();
    } catch (...) {}
    error_reply(res, 500, what);
  });

  http.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    Json j = Json::object();
    j["status"] = draining ? "draining" : "ok";
    j["cases"] = cases.size();
    j["jobs"] = o.jobs;
    j["queue"] = pool->depth();
    j["sandbox"] = std::string(sandbox_mode_name(pool->mode()));
    json_reply(res, draining ? 503 : 200, j);
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  http.Get("/v1/mechanisms", [this](const httplib::Request&, httplib::Response& res) {
    std::map<std::string, std::int64_t> counts;
    for (const CaseSummary& s : cases) ++counts[s.mechanism];
    Json list = Json::array();
    for (const Mechanism* m : all_mechanisms()) {
      auto it = counts.find(std::string(m->id));
      list.push_back(mechanism_json(*m, it == counts.end() ? 0 : it->second));
    }
    json_reply(res, 200, Json{{"mechanisms", std::move(list)}});
  });
  http.Get("/v1/cases", [this](const httplib::Request& req, httplib::Response& res) {
    std::size_t limit = 1000;
    if (req.has_param("limit")) {
      const std::string t = req.get_param_value("limit");
      std::size_t v = 0;
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      if (ec != std::errc() || end != t.data() + t.size() || v < 1 || v > 10000)
        return error_reply(res, 400, "query 'limit': expected a whole number from 1 to 10000, got '" + t + "'");
      limit = v;
    }
    const std::string after = req.get_param_value("after");
    const std::string mechanism = req.get_param_value("mechanism");
    Json list = Json::array();
    std::optional<std::string> next;
    auto it = after.empty() ? cases.begin()
                            : std::upper_bound(cases.begin(), cases.end(), after,
                                               [](const std::string& a, const CaseSummary& s) { return a < s.id; });
    for (; it != cases.end(); ++it) {
      if (!mechanism.empty() && it->mechanism != mechanism) continue;
      if (list.size() == limit) {
        next = list.back()["id"].get<std::string>();
        break;
      }
      list.push_back(case_summary_json(*it));
    }
    json_reply(res, 200, Json{{"cases", std::move(list)}, {"next", next ? Json(*next) : Json(nullptr)}});
  });
  http.Get(R"(/v1/cases/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    std::lock_guard lock(archive_mu);
    auto c = archive->load_case(id);
    if (!c) return error_reply(res, 500, c.error().message);
    if (!*c) return error_reply(res, 404, "no case " + id + " in this archive (GET /v1/cases lists them)");
    json_reply(res, 200, case_to_json(**c, false));
  });
  http.Get(R"(/v1/tasks/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    std::optional<Case> c;
    {
      std::lock_guard lock(archive_mu);
      auto loaded = archive->load_case(id);
      if (!loaded) return error_reply(res, 500, loaded.error().message);
      c = std::move(*loaded);
    }
    if (!c) return error_reply(res, 404, "no case " + id + " in this archive (GET /v1/cases lists them)");
    const Mechanism* m = find_mechanism(c->mechanism);
    if (!m)
      return error_reply(res, 500, "case " + id + ": mechanism " + c->mechanism + " is not compiled into this failmap");
    static const PromptTemplate prompt =
        *parse_prompt_template(k_default_prompt_template, "the default prompt template");
    auto line = task_line(*c, *m, units.count(id) ? units.at(id) : id, Tier::Open, prompt);
    if (!line) return error_reply(res, 500, line.error().message);
    res.status = 200;
    res.set_content(*line, "application/json");
  });
  http.Post("/v1/grade", [this](const httplib::Request& req, httplib::Response& res,
                                const httplib::ContentReader& reader) { grade(req, res, reader); });
  // cpp-httplib gives a request without a body to the handlers that read none.
  http.Post("/v1/grade", [](const httplib::Request&, httplib::Response& res) {
    error_reply(res, 422, "the request has no body: expected a batch of predictions (schema/SERVE.md)");
  });
}

void Service::Impl::grade(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
  const auto started = Clock::now();
  const int fd = t_connection->fd();
  auto format = batch_format_of(req.get_header_value("Content-Type"));
  // The body, read under the limit whatever its framing (Content-Length,
  // chunked, compressed): a larger one is not kept.
  std::string body;
  bool too_large = false;
  bool read = reader([&](const char* data, std::size_t n) {
    if (body.size() + n > o.max_body_bytes) {
      too_large = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  conns.set_phase(fd, Connections::Phase::Handling);
  if (too_large || (!read && res.status == 413)) {
    // The rest of a body not read is not read as a next request: reading ends here.
    t_connection->close_after = true;
    res.set_header("Connection", "close");
    return error_reply(
        res, 413,
        "the request body is larger than " + std::to_string(o.max_body_bytes) + " bytes (--max-body); split the batch");
  }
  if (!read) {
    // Where the body ends is not known: what follows is not read as a request.
    t_connection->close_after = true;
    res.set_header("Connection", "close");
    return error_reply(res, 400,
                       "the request body could not be read (malformed chunked framing, a compressed body that does not "
                       "decode, or cut short)");
  }
  if (!format)
    return error_reply(res, 415,
                       "Content-Type '" + req.get_header_value("Content-Type") +
                           "': expected application/json (an array of predictions) or application/jsonl "
                           "(one prediction a line)");
  RewardMode reward = RewardMode::Graded;
  if (req.has_param("reward")) {
    const std::string r = req.get_param_value("reward");
    if (r == "binary") reward = RewardMode::Binary;
    else if (r != "graded") return error_reply(res, 400, "query 'reward': expected graded or binary, got '" + r + "'");
  }
  GradeRequest batch = read_grade_request(body, *format, o.max_predictions);
  body.clear();
  body.shrink_to_fit();
  if (batch.problem) return error_reply(res, batch.problem->status, batch.problem->message, batch.problem->problems);

  auto b = std::make_shared<Batch>();
  b->reward = reward;
  std::vector<std::string> problems;
  for (Prediction& p : batch.predictions) {
    std::string error;
    const GradingCase* gc = grading_case(p.case_id, &error);
    if (!error.empty()) return error_reply(res, 500, error);
    if (!gc) {
      problems.push_back("request:" + std::to_string(p.line) + ": field 'case': no case " + p.case_id +
                         " in this archive (GET /v1/cases lists them)");
      continue;
    }
    std::string sha = sha256_hex(p.source);
    b->items.push_back(Batch::Item{gc, std::move(p), std::move(sha), {}, {}, {}});
  }
  if (!problems.empty())
    return error_reply(res, 422, std::to_string(problems.size()) + " problem(s) in the batch; nothing was graded",
                       problems);
  if (draining) {
    res.set_header("Retry-After", "5");
    return error_reply(res, 503, "the server is shutting down; send the batch to another replica");
  }
  if (recorder)
    for (Batch::Item& item : b->items) recorder->recall(item, reward);
  if (!pool->submit(b)) {
    res.set_header("Retry-After", "1");
    return error_reply(res, 429,
                       "the grading queue is full (" + std::to_string(pool->depth()) + " of " +
                           std::to_string(pool->capacity()) + " candidates waiting); retry");
  }
  // The answer goes out as its lines finish, in order (chunked), each line
  // released once written: a batch holds at most about k_batch_held_bytes
  // of answer, whatever its candidates return. A client that goes away
  // (its connection closed, or a write failing) cancels the batch: its
  // candidates still queued are dropped.
  const bool array = *format == BatchFormat::JsonArray;
  // Item i's part of the answer: its line, framed as a JSON array's element
  // or a JSON Lines line (the same bytes whichever way the answer is sent).
  const auto piece = [b, array](std::size_t i) {
    std::string out = array ? (i == 0 ? "[" : ",") : "";
    out += b->take_line(i);
    if (!array) out.push_back('\n');
    if (array && i + 1 == b->items.size()) out += "]\n";
    return out;
  };
  if (req.version == "HTTP/1.0") {
    // No chunked framing in HTTP/1.0 (RFC 9112 §7.1): the answer is sent
    // whole, with its length, once every line is graded.
    std::string out;
    for (std::size_t i = 0; i < b->items.size(); ++i) {
      while (!b->wait_item(i, std::chrono::milliseconds(100)))
        if (!b->cancelled && client_gone(fd)) b->cancelled = true;  // its queued candidates are dropped
      if (b->cancelled) {
        res.set_header("Connection", "close");
        return error_reply(res, 499, "the client closed the connection; the batch was cancelled");
      }
      out += piece(i);
    }
    res.status = 200;
    res.set_content(std::move(out), array ? "application/json" : "application/jsonl");
    grade_latency.observe(std::chrono::duration<double>(Clock::now() - started).count());
    return;
  }
  res.status = 200;
  res.set_chunked_content_provider(
      array ? "application/json" : "application/jsonl",
      [this, b, piece, fd, started, &res, next = std::size_t{0}](std::size_t, httplib::DataSink& sink) mutable {
        // (The answer's head, status 200, is out; 499, nginx's "client closed
        // request", is what the log and /metrics count for a cancelled one.)
        const auto cancel = [&] {
          b->cancelled = true;
          res.status = 499;
          return false;
        };
        while (!b->wait_item(next, std::chrono::milliseconds(100)))
          if (client_gone(fd)) return cancel();
        const std::string chunk = piece(next);
        const bool last = ++next == b->items.size();
        if (!sink.write(chunk.data(), chunk.size())) return cancel();
        if (last) {
          grade_latency.observe(std::chrono::duration<double>(Clock::now() - started).count());
          sink.done();
        }
        return true;
      });
}

std::string Service::Impl::metrics() {
  std::string out;
  out +=
      "# HELP failmap_http_requests_total HTTP requests answered, by route and status.\n"
      "# TYPE failmap_http_requests_total counter\n";
  {
    std::lock_guard lock(metrics_mu);
    for (const auto& [key, n] : requests)
      out += "failmap_http_requests_total{route=\"" + key.first + "\",status=\"" + std::to_string(key.second) + "\"} " +
             std::to_string(n) + "\n";
  }
  PoolCounters c = pool->counters();
  out +=
      "# HELP failmap_candidates_graded_total Candidates graded, by verdict.\n"
      "# TYPE failmap_candidates_graded_total counter\n";
  for (const char* v : {"resolved", "partial", "unresolved", "error"}) {
    auto it = c.graded.find(v);
    out += std::string("failmap_candidates_graded_total{verdict=\"") + v + "\"} " +
           std::to_string(it == c.graded.end() ? 0 : it->second) + "\n";
  }
  out +=
      "# HELP failmap_candidates_dropped_total Queued candidates of requests whose client went away, not graded.\n"
      "# TYPE failmap_candidates_dropped_total counter\nfailmap_candidates_dropped_total " +
      std::to_string(c.dropped) + "\n";
  out +=
      "# HELP failmap_queue_depth Candidates waiting for a sandbox worker.\n# TYPE failmap_queue_depth gauge\n"
      "failmap_queue_depth " +
      std::to_string(pool->depth()) + "\n";
  out +=
      "# HELP failmap_queue_capacity Candidates the queue holds at most.\n# TYPE failmap_queue_capacity gauge\n"
      "failmap_queue_capacity " +
      std::to_string(pool->capacity()) + "\n";
  out +=
      "# HELP failmap_sandbox_restarts_total Sandbox workers restarted after they failed.\n"
      "# TYPE failmap_sandbox_restarts_total counter\nfailmap_sandbox_restarts_total " +
      std::to_string(c.sandbox_restarts) + "\n";
  out +=
      "# HELP failmap_connections_refused_total Connections answered 503 beyond --max-connections.\n"
      "# TYPE failmap_connections_refused_total counter\nfailmap_connections_refused_total " +
      std::to_string(connections_refused.load()) + "\n";
  out +=
      "# HELP failmap_connections_timed_out_total Connections ended because a request head or body came too slowly.\n"
      "# TYPE failmap_connections_timed_out_total counter\nfailmap_connections_timed_out_total " +
      std::to_string(connections_ended.load()) + "\n";
  RecordCounters r = recorder ? recorder->counters() : RecordCounters{};
  out +=
      "# HELP failmap_gradings_recalled_total Predictions answered from the archive's record of gradings (--record), "
      "judged again, not run.\n"
      "# TYPE failmap_gradings_recalled_total counter\nfailmap_gradings_recalled_total " +
      std::to_string(r.recalled) + "\n";
  out +=
      "# HELP failmap_gradings_recorded_total Gradings written to the archive's record (--record).\n"
      "# TYPE failmap_gradings_recorded_total counter\nfailmap_gradings_recorded_total " +
      std::to_string(r.recorded) + "\n";
  out +=
      "# HELP failmap_records_refused_total Recorded gradings that judge otherwise now: graded anew, replaced.\n"
      "# TYPE failmap_records_refused_total counter\nfailmap_records_refused_total " +
      std::to_string(r.refused) + "\n";
  out +=
      "# HELP failmap_record_errors_total Lookups and commits of the record that failed (e.g. the archive busy); "
      "the replies stayed correct.\n"
      "# TYPE failmap_record_errors_total counter\nfailmap_record_errors_total " +
      std::to_string(r.errors) + "\n";
  out +=
      "# HELP failmap_grade_request_seconds Time from a POST /v1/grade's head to its answer, of answered batches.\n"
      "# TYPE failmap_grade_request_seconds histogram\n";
  out += grade_latency.text("failmap_grade_request_seconds");
  return out;
}

Service::Service() : m(std::make_unique<Impl>()) {}

Service::~Service() {
  stop();
  if (m->watchdog.joinable()) {
    {
      std::lock_guard lock(m->watchdog_mu);
      m->watchdog_stop = true;
    }
    m->watchdog_cv.notify_all();
    m->watchdog.join();
  }
}

Result<std::unique_ptr<Service>> Service::open(const ServeOptions& o) {
  if (!is_loopback_host(o.host) && !o.token)
    return input_error("--listen " + o.host +
                       ": not a loopback address; serving beyond this machine needs --token-file FILE "
                       "(every request then carries Authorization: Bearer TOKEN)");
  std::unique_ptr<Service> s(new Service());
  Impl& m = *s->m;
  m.o = o;
  FAILMAP_TRY_ASSIGN(auto archive, Archive::open(o.db_path, Archive::Mode::ReadOnly));
  m.archive.emplace(std::move(archive));
  FAILMAP_TRY_ASSIGN(auto rows, m.archive->list_cases());
  m.cases = std::move(rows);
  std::sort(m.cases.begin(), m.cases.end(), [](const CaseSummary& a, const CaseSummary& b) { return a.id < b.id; });
  FAILMAP_TRY_ASSIGN(auto units, archive_case_units(*m.archive));
  for (auto& [id, unit] : units) m.units.emplace(std::move(id), std::move(unit));

  if (o.record) {
    FAILMAP_TRY_ASSIGN(auto settings, grading_settings(o.held_out, o.limits, o.mode));
    m.recorder = std::make_unique<GradingRecorder>(*o.record, std::move(settings), o.mode, o.log);
  }
  m.pool = std::make_unique<GradingPool>(o.jobs, o.mode, o.limits, o.max_queue, m.recorder.get());
  // A reply goes out as its head and its body in two writes; with Nagle's
  // algorithm the body waits for the ACK of the head, which a client that
  // delays its ACKs (Linux: up to 40 ms) sends late.
  m.http.set_tcp_nodelay(true);
  // The head and body limits are the watchdog's (it counts what it ends):
  // a single read waits longer than either.
  m.http.set_read_timeout(static_cast<time_t>(std::ceil(std::max(o.header_seconds, o.body_seconds))) + 1);
  m.http.set_write_timeout(30);
  m.http.set_keep_alive_max_count(1000);
  m.http.set_keep_alive_timeout(5);
  m.http.set_payload_max_length(o.max_body_bytes);
  m.http.new_task_queue = [&m] { return new ConnectionQueue(m.o.max_connections, m.connections_refused); };
  m.routes();
  int port = o.port;
  if (port == 0) {
    port = m.http.bind_to_any_port(o.host);
    if (port <= 0) return input_error("--listen " + o.host + ":0: cannot bind a port on that address");
  } else if (!m.http.bind_to_port(o.host, port)) {
    return input_error("--listen " + o.host + ":" + std::to_string(port) +
                       ": cannot bind (in use, or not an address of "
                       "this machine)");
  }
  m.port = port;
  m.http.widen_backlog();
  m.watchdog = std::thread([&m] {
    std::unique_lock lock(m.watchdog_mu);
    while (!m.watchdog_cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return m.watchdog_stop; })) {
      lock.unlock();
      m.connections_ended += m.conns.sweep(std::chrono::duration<double>(m.o.header_seconds),
                                           std::chrono::duration<double>(m.o.body_seconds), m.draining.load());
      lock.lock();
    }
  });
  return s;
}

int Service::port() const { return m->port; }

Status Service::run() {
  const bool listened = m->http.listen_after_bind();
  // The requests in flight are answered: what they recorded is committed now
  // (a failure is logged; candidates of cancelled batches still running are
  // committed when the service is destroyed).
  if (m->recorder) (void)m->recorder->commit();
  if (!listened && !m->draining) return input_error("the server stopped listening");
  return ok_status();
}

void Service::stop() {
  if (m->draining.exchange(true)) return;
  m->http.stop_accepting();
}

}  // namespace failmap::serve
