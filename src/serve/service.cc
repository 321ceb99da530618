#include "serve/service.h"

#include <arpa/inet.h>
#include <dirent.h>
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
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "core/mechanism.h"
#include "grade/grader.h"
#include "io/case_file.h"
#include "io/json.h"
#include "io/sha256.h"
#include "io/task.h"
#include "serve/catalog.h"
#include "serve/pool.h"
#include "serve/request.h"
#include "serve/socket_bytes.h"
#include "store/archive.h"
#include "store/exporter.h"

namespace failmap::serve {
// Named, not anonymous: Service::Impl holds members of these types.
namespace service_detail {

using Clock = std::chrono::steady_clock;

// The peer of a connected socket as "ADDRESS|PORT" (the key httplib's
// Request gives as remote_addr and remote_port); "" when `fd` is not a
// connected TCP socket whose local port is `port`.
std::string peer_of(int fd, int port) {
  sockaddr_storage local{}, peer{};
  socklen_t ll = sizeof local, pl = sizeof peer;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &ll) != 0) return "";
  int local_port = 0;
  if (local.ss_family == AF_INET) local_port = ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  else if (local.ss_family == AF_INET6) local_port = ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
  else return "";
  if (local_port != port || ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &pl) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {};
  int peer_port = 0;
  if (peer.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&peer);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    peer_port = ntohs(a->sin_port);
  } else {
    auto* a = reinterpret_cast<sockaddr_in6*>(&peer);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    peer_port = ntohs(a->sin6_port);
  }
  return std::string(text) + "|" + std::to_string(peer_port);
}

std::uint64_t bytes_received(int fd) { return tcp_bytes_received(fd); }

// The open connections, found by their sockets: httplib hands a connection
// to a thread without saying which socket it is, and a handler sees only the
// peer's address and port. The registry maps each to its socket, so the
// watchdog can end a connection whose request arrives too slowly and a
// handler can see that its client has gone away.
class Connections {
 public:
  enum class Phase { Head, Body, Handling };

  explicit Connections(int port) : m_port(port) {}
  void set_port(int port) { m_port = port; }

  // After an accept: registers the sockets not seen before; the number of
  // open connections.
  std::size_t scan() {
    std::lock_guard lock(m_mu);
    std::map<int, std::string> now;
    if (DIR* d = ::opendir("/proc/self/fd")) {
      while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        int fd = std::atoi(e->d_name);
        if (fd == ::dirfd(d)) continue;
        std::string peer = peer_of(fd, m_port);
        if (!peer.empty()) now.emplace(fd, std::move(peer));
      }
      ::closedir(d);
    }
    std::map<int, Entry> next;
    for (auto& [fd, peer] : now) {
      auto it = m_entries.find(fd);
      if (it != m_entries.end() && it->second.peer == peer) next.emplace(fd, std::move(it->second));
      else next.emplace(fd, Entry{peer, Phase::Head, Clock::now(), bytes_received(fd)});
    }
    m_entries = std::move(next);
    return m_entries.size();
  }

  // The socket of the connection from `peer` ("ADDRESS|PORT"), -1 if none.
  int fd_of(const std::string& peer) {
    std::lock_guard lock(m_mu);
    for (auto& [fd, e] : m_entries)
      if (e.peer == peer) return fd;
    return -1;
  }

  void set_phase(const std::string& peer, Phase phase) {
    std::lock_guard lock(m_mu);
    for (auto& [fd, e] : m_entries)
      if (e.peer == peer) {
        e.phase = phase;
        e.since = Clock::now();
        e.bytes = bytes_received(fd);
      }
  }

  // Ends connections past their deadline, those whose request head has
  // passed `head_bytes` (cpp-httplib keeps a head line whole in memory,
  // however long), and, when draining, idle ones; the number ended.
  std::size_t sweep(std::chrono::duration<double> head, std::chrono::duration<double> body, std::uint64_t head_bytes,
                    bool draining) {
    std::lock_guard lock(m_mu);
    std::size_t ended = 0;
    const auto now = Clock::now();
    for (auto it = m_entries.begin(); it != m_entries.end();) {
      const Entry& e = it->second;
      bool late = (e.phase == Phase::Head &&
                   (now - e.since > head || draining ||
                    head_bytes < bytes_received(it->first) - std::min(e.bytes, bytes_received(it->first)))) ||
                  (e.phase == Phase::Body && now - e.since > body);
      if (late && peer_of(it->first, m_port) == e.peer) {
        ::shutdown(it->first, SHUT_RDWR);  // httplib's read returns; its thread closes the socket
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
    std::string peer;
    Phase phase = Phase::Head;
    Clock::time_point since;
    std::uint64_t bytes = 0;  // received when the phase began
  };
  int m_port;
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

// httplib's connection threads: `n` of them; a connection beyond `limit`
// open ones goes to one thread of its own instead, where its request is
// answered 503 (pre-routing sees t_reject) without waiting for a free one.
class ConnectionQueue : public httplib::TaskQueue {
 public:
  ConnectionQueue(std::size_t n, std::size_t limit, Connections& conns, std::atomic<std::uint64_t>& refused)
      : m_limit(limit), m_conns(conns), m_refused(refused) {
    for (std::size_t i = 0; i < n; ++i) m_threads.emplace_back([this] { work(m_jobs); });
    m_threads.emplace_back([this] { work(m_rejects); });
  }
  void enqueue(std::function<void()> fn) override {
    const std::size_t open = m_conns.scan();
    {
      std::lock_guard lock(m_mu);
      if (open > m_limit) {
        ++m_refused;
        m_rejects.push_back(std::move(fn));
      } else {
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

 private:
  void work(std::deque<std::function<void()>>& q) {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock(m_mu);
        m_cv.wait(lock, [&] { return !q.empty() || m_stopping; });
        if (q.empty()) return;
        fn = std::move(q.front());
        q.pop_front();
      }
      t_reject = &q == &m_rejects;
      fn();
      t_reject = false;
    }
  }

 public:
  static thread_local bool t_reject;

 private:
  std::size_t m_limit;
  Connections& m_conns;
  std::atomic<std::uint64_t>& m_refused;
  std::mutex m_mu;
  std::condition_variable m_cv;
  std::deque<std::function<void()>> m_jobs, m_rejects;
  bool m_stopping = false;
  std::vector<std::thread> m_threads;
};
thread_local bool ConnectionQueue::t_reject = false;

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

// The most bytes of one request head (request line and headers) a
// connection may send; the watchdog cuts off one that sends more.
constexpr std::uint64_t k_max_head_bytes = 64 * 1024;

void json_reply(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(dump_compact(body) + "\n", "application/json");
}

void error_reply(httplib::Response& res, int status, const std::string& message,
                 const std::vector<std::string>& problems = {}) {
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
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr a{};
  return ::inet_pton(AF_INET, host.c_str(), &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
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
  httplib::Server http;
  Connections conns{0};
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
    const std::string peer = req.remote_addr + "|" + std::to_string(req.remote_port);
    conns.set_phase(peer, Connections::Phase::Body);
    if (ConnectionQueue::t_reject) {
      res.set_header("Retry-After", "1");
      res.set_header("Connection", "close");
      error_reply(res, 503, "too many open connections (at most " + std::to_string(o.max_connections) + "); retry");
      return httplib::Server::HandlerResponse::Handled;
    }
    const bool has_body = req.has_header("Transfer-Encoding") ||
                          (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
    if (has_body && !(req.method == "POST" && req.path == "/v1/grade")) {
      res.set_header("Connection", "close");
      error_reply(res, 400, req.method + " " + req.path + " takes no request body");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (o.token && req.path != "/healthz") {
      const std::string auth = req.get_header_value("Authorization");
      if (auth.rfind("Bearer ", 0) != 0 || !tokens_equal(auth.substr(7), *o.token)) {
        res.set_header("WWW-Authenticate", "Bearer realm=\"failmap\"");
        error_reply(res, 401,
                    auth.empty() ? "this server requires a bearer token (Authorization: Bearer TOKEN)"
                                 : "the bearer token is not the one this server was started with");
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    conns.set_phase(req.remote_addr + "|" + std::to_string(req.remote_port), Connections::Phase::Head);
    std::lock_guard lock(metrics_mu);
    ++requests[{route_of(req), res.status}];
  });
  http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string what = res.status == 404   ? "no route " + req.method + " " + req.path + " (schema/SERVE.md lists them)"
                       : res.status == 413 ? "the request body is larger than this server accepts"
                       : res.status == 400 ? "malformed HTTP request"
                                           : "HTTP status " + std::to_string(res.status);
    error_reply(res, res.status, what);
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
  const std::string peer = req.remote_addr + "|" + std::to_string(req.remote_port);
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
  conns.set_phase(peer, Connections::Phase::Handling);
  if (too_large || (!read && res.status == 413)) {
    // The rest of a body not read is not read as a next request: reading ends here.
    if (too_large) ::shutdown(conns.fd_of(peer), SHUT_RD);
    res.set_header("Connection", "close");
    return error_reply(
        res, 413,
        "the request body is larger than " + std::to_string(o.max_body_bytes) + " bytes (--max-body); split the batch");
  }
  if (!read)
    return error_reply(res, 400, "the request body could not be read (status " + std::to_string(res.status) + ")");
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
  const int fd = conns.fd_of(peer);
  while (!b->wait_for(std::chrono::milliseconds(100))) {
    if (!b->cancelled && client_gone(fd)) b->cancelled = true;  // its queued candidates are dropped
  }
  if (b->cancelled) {
    res.set_header("Connection", "close");
    return error_reply(res, 499, "the client closed the connection; the batch was cancelled");
  }
  std::string out;
  if (*format == BatchFormat::JsonArray) {
    out.push_back('[');
    for (std::size_t i = 0; i < b->items.size(); ++i) {
      if (i) out.push_back(',');
      out += b->items[i].line;
    }
    out += "]\n";
  } else {
    for (const Batch::Item& item : b->items) out += item.line + "\n";
  }
  res.status = 200;
  res.set_content(std::move(out), *format == BatchFormat::JsonArray ? "application/json" : "application/jsonl");
  grade_latency.observe(std::chrono::duration<double>(Clock::now() - started).count());
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
  auto archive = Archive::open(o.db_path, Archive::Mode::ReadOnly);
  if (!archive) return archive.error();
  m.archive.emplace(std::move(*archive));
  auto rows = m.archive->list_cases();
  if (!rows) return rows.error();
  m.cases = std::move(*rows);
  std::sort(m.cases.begin(), m.cases.end(), [](const CaseSummary& a, const CaseSummary& b) { return a.id < b.id; });
  auto units = archive_case_units(*m.archive);
  if (!units) return units.error();
  for (auto& [id, unit] : *units) m.units.emplace(std::move(id), std::move(unit));

  if (o.record) {
    auto settings = grading_settings(o.held_out, o.limits, o.mode);
    if (!settings) return settings.error();
    m.recorder = std::make_unique<GradingRecorder>(*o.record, std::move(*settings), o.mode, o.log);
  }
  m.pool = std::make_unique<GradingPool>(o.jobs, o.mode, o.limits, o.max_queue, m.recorder.get());
  m.http.set_read_timeout(static_cast<time_t>(std::ceil(o.header_seconds)));
  m.http.set_write_timeout(30);
  m.http.set_keep_alive_max_count(1000);
  m.http.set_keep_alive_timeout(5);
  m.http.set_payload_max_length(o.max_body_bytes);
  m.http.new_task_queue = [&m] {
    return new ConnectionQueue(m.o.max_connections + 1, m.o.max_connections, m.conns, m.connections_refused);
  };
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
  m.conns.set_port(port);
  m.watchdog = std::thread([&m] {
    std::unique_lock lock(m.watchdog_mu);
    for (unsigned tick = 0;
         !m.watchdog_cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return m.watchdog_stop; }); ++tick) {
      lock.unlock();
      if (tick % 4 == 0) m.conns.scan();
      m.connections_ended +=
          m.conns.sweep(std::chrono::duration<double>(m.o.header_seconds),
                        std::chrono::duration<double>(m.o.body_seconds), k_max_head_bytes, m.draining.load());
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
  m->http.stop();
}

}  // namespace failmap::serve
