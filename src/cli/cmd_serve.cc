// failmap serve [--listen HOST:PORT] [--jobs N] [--token-file FILE] [--held-out K] [--timeout S] [--memory MIB]
//               [--sandbox bwrap|none] [--max-body MIB] [--max-predictions N] [--max-queue N]
//               [--max-connections N] [--header-timeout S] [--body-timeout S] [--record]
//
// The archive (read-only) and its grader over HTTP (schema/SERVE.md,
// src/serve/service.h); with --record, the archive's record of gradings
// (cli/grading_cache.h, on a read-write connection of its own) recalls and
// records gradings. Prints one line when it listens, then serves until
// SIGTERM or SIGINT: it stops accepting, finishes the requests in flight,
// commits what it recorded and exits 0.
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "cli/common.h"
#include "cli/grading_cache.h"
#include "serve/service.h"

namespace failmap::cli {
namespace {

struct ServeCliOptions {
  std::string listen = "127.0.0.1:8080";
  unsigned jobs = 2;
  std::string token_file;
  std::size_t held_out = 0;
  double timeout = 10.0;
  std::uint64_t memory_mib = 1024;
  std::string sandbox = "bwrap";
  std::uint64_t max_body_mib = 8;
  std::uint64_t max_predictions = 1024;
  std::uint64_t max_queue = 4096;
  std::uint64_t max_connections = 64;
  double header_timeout = 10;
  double body_timeout = 60;
  bool record = false;
};

volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }

// "HOST:PORT", "[V6]:PORT" → host and port (0-65535).
Result<std::pair<std::string, int>> parse_listen(const std::string& text) {
  auto bad = [&] {
    return input_error(
        "--listen: expected HOST:PORT (e.g. 127.0.0.1:8080, [::1]:8080, 127.0.0.1:0 for any free port), got '" + text +
        "'");
  };
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return bad();
  std::string host = text.substr(0, colon), port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return bad();
  int p = std::stoi(port);
  if (p > 65535) return bad();
  return std::pair{host, p};
}

int run_serve(Context& ctx, const ServeCliOptions& o) {
  auto listen = parse_listen(o.listen);
  if (!listen) return report(listen.error());
  serve::ServeOptions so;
  so.db_path = ctx.db_path;
  so.host = listen->first;
  so.port = listen->second;
  so.jobs = o.jobs;
  so.held_out = o.held_out;
  if (o.sandbox == "bwrap") so.mode = SandboxMode::Bubblewrap;
  else if (o.sandbox == "none") so.mode = unnamespaced_mode();
  else return report(input_error("--sandbox: expected bwrap or none, got '" + o.sandbox + "'"));
  so.limits = candidate_limits(o.timeout, o.memory_mib);
  so.max_body_bytes = static_cast<std::size_t>(o.max_body_mib) << 20;
  so.max_predictions = o.max_predictions;
  so.max_queue = o.max_queue;
  so.max_connections = static_cast<unsigned>(o.max_connections);
  so.header_seconds = o.header_timeout;
  so.body_seconds = o.body_timeout;
  if (!o.token_file.empty()) {
    auto t = serve::read_token_file(o.token_file);
    if (!t) return report(t.error());
    so.token = std::move(*t);
  }
  if (so.max_predictions > so.max_queue)
    return report(input_error("--max-predictions " + std::to_string(so.max_predictions) +
                              " is larger than --max-queue " + std::to_string(so.max_queue) +
                              ": a full batch could never be queued"));
  if (so.mode == SandboxMode::Bubblewrap)
    if (auto why = sandbox_unavailable()) return report(input_error("cannot sandbox candidates: " + *why));
  if (so.mode == SandboxMode::None && !ctx.quiet)
    std::cerr << "failmap: warning: --sandbox none on a kernel without Landlock: candidates run with resource limits "
                 "and seccomp only, so a candidate can read and write every file this user can (the archive too); "
                 "every result says \"sandbox\": \"none\"\n";

  // --record: a connection of its own, read-write (migrating an archive
  // that predates the record), opened before the service's read-only one.
  std::optional<LazyArchive> record_archive;
  std::optional<ArchiveGradingCache> record;
  if (o.record) {
    record_archive.emplace(ctx, Archive::Mode::ReadWrite);
    record.emplace(*record_archive);
    if (auto s = record->open(); !s) return report(s.error());
    so.record = &*record;
  }
  so.log = [](const std::string& line) { std::cerr << "failmap: " + terminal_safe(line) + "\n" << std::flush; };

  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);

  auto service = serve::Service::open(so);
  if (!service) return report(service.error());
  std::cout << "failmap: serving " << terminal_safe(ctx.db_path) << " on http://"
            << (so.host.find(':') != std::string::npos ? "[" + so.host + "]" : so.host) << ":" << (*service)->port()
            << "/ (" << o.jobs << " sandbox worker(s), --sandbox " << o.sandbox << (o.record ? ", --record" : "") << ")"
            << std::endl;
  std::atomic<bool> done{false};
  std::thread stopper([&] {
    while (!done.load()) {
      if (g_stop_signal) {
        (*service)->stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  Status st = (*service)->run();
  done = true;
  stopper.join();
  if (!st) return report(st.error());
  if (g_stop_signal && !ctx.quiet)
    std::cerr << "failmap: " << (g_stop_signal == SIGTERM ? "SIGTERM" : "SIGINT")
              << ": stopped accepting, finished the requests in flight\n";
  return k_exit_ok;
}

}  // namespace

void setup_serve(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<ServeCliOptions>();
  sub.add_option("--listen", o->listen,
                 "HOST:PORT to listen on; PORT 0 picks a free one (printed). Beyond loopback only with --token-file")
      ->capture_default_str()
      ->check(nonempty_validator("HOST:PORT"));
  sub.add_option("-j,--jobs", o->jobs, "sandbox workers, each a warm Python kept across requests")
      ->capture_default_str()
      ->check(jobs_validator());
  sub.add_option("--token-file", o->token_file,
                 "a file whose first line is the bearer token every request but GET /healthz must carry "
                 "(Authorization: Bearer TOKEN); at least 16 characters")
      ->check(nonempty_validator("the path of a token file"));
  sub.add_option("--held-out", o->held_out, "also grade each candidate at K held-out bindings (as grade --held-out)")
      ->capture_default_str()
      ->check(integer_validator(0, 1000, "a whole number of bindings"));
  sub.add_option("--timeout", o->timeout,
                 "seconds of CPU time (user + system) one candidate may use for all its calls, as for grade; the wall "
                 "clock is only a safety net at 5 x that + 5 s")
      ->capture_default_str()
      ->check(positive_decimal_validator(3600, "seconds"));
  sub.add_option("--memory", o->memory_mib, "MiB of address space one candidate may use")
      ->capture_default_str()
      ->check(integer_validator(64, 1u << 20, "a whole number of MiB"));
  sub.add_option("--sandbox", o->sandbox, "bwrap or none, as for failmap grade")
      ->capture_default_str()
      ->check(sandbox_validator());
  sub.add_option("--max-body", o->max_body_mib, "MiB of request body (after decoding) one request may send, else 413")
      ->capture_default_str()
      ->check(integer_validator(1, 1024, "a whole number of MiB"));
  sub.add_option("--max-predictions", o->max_predictions, "predictions one POST /v1/grade may carry, else 413")
      ->capture_default_str()
      ->check(integer_validator(1, 1000000, "a whole number of predictions"));
  sub.add_option("--max-queue", o->max_queue,
                 "candidates waiting for a worker, all requests together; a batch that "
                 "does not fit is answered 429 with Retry-After")
      ->capture_default_str()
      ->check(integer_validator(1, 10000000, "a whole number of candidates"));
  sub.add_option("--max-connections", o->max_connections, "open connections; more are answered 503 with Retry-After")
      ->capture_default_str()
      ->check(integer_validator(1, 900, "a whole number of connections"));
  sub.add_option("--header-timeout", o->header_timeout,
                 "seconds a request's head (request line and headers) may take to arrive; a slower one is cut off")
      ->capture_default_str()
      ->check(positive_decimal_validator(3600, "seconds"));
  sub.add_option("--body-timeout", o->body_timeout, "seconds a request's body may take to arrive after its head")
      ->capture_default_str()
      ->check(positive_decimal_validator(3600, "seconds"));
  sub.add_flag("--record", o->record,
               "open the archive read-write: answer a prediction whose grading the archive recorded from the record "
               "(judged again, the same bytes), and record fresh gradings, as `failmap grade` does");
  sub.callback([&ctx, o] { ctx.exit_status = run_serve(ctx, *o); });
}

}  // namespace failmap::cli
