// `failmap serve`: the archive and its grader over HTTP (schema/SERVE.md).
//
//   client ──HTTP──▶ cpp-httplib (one thread per connection, at most
//                    max_connections) ──▶ routes ──▶ GradingPool (jobs warm
//                    SandboxWorkers, one bounded queue)
//
// Read-only routes answer from the archive, opened read-only (case lookups
// under one lock; SQLite connections are not shared across threads
// otherwise). `POST /v1/grade` reads a batch (serve/request.h), looks up and
// prepares each case once (kept for the life of the service), queues the
// batch whole or answers 429, and answers with each prediction's results
// line as `failmap grade --no-record` writes it. With a record of gradings
// (ServeOptions::record, `--record`) a prediction already graded is answered
// from the record, judged again, and fresh gradings are recorded
// (serve/pool.h GradingRecorder). A watchdog ends
// connections whose request head or body arrives too slowly, and a batch
// whose client has gone away is cancelled (its queued candidates dropped).
// stop() stops accepting, lets the requests in flight finish, then returns
// from run().
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/result.h"
#include "grade/grading.h"
#include "grade/sandbox.h"

namespace failmap::serve {

/// What `failmap serve` is started with (docs/serve.md lists the defaults).
struct ServeOptions {
  std::string db_path;             ///< the archive, opened read-only (its cases)
  std::string host = "127.0.0.1";  ///< address to listen on
  int port = 8080;                 ///< 0: a free port, see Service::port()
  unsigned jobs = 2;               ///< warm sandbox workers
  std::size_t held_out = 0;        ///< grade at K held-out bindings too (as grade --held-out)
  SandboxMode mode = SandboxMode::Bubblewrap;
  SandboxLimits limits;
  std::optional<std::string> token;       ///< bearer token every route but /healthz requires
  std::size_t max_body_bytes = 8u << 20;  ///< request body (after decoding), else 413
  std::size_t max_predictions = 1024;     ///< predictions per request, else 413
  std::size_t max_queue = 4096;           ///< candidates waiting for a worker, else 429
  unsigned max_connections = 64;          ///< open connections, else 503
  double header_seconds = 10;             ///< the request head must arrive within this, else the connection is closed
  double body_seconds = 60;               ///< the body within this after the head
  /// The archive's record of gradings (`--record`; schema/GRADING.md
  /// "Recording"), or null: gradings are neither recalled nor recorded. The
  /// caller opens it (read-write) and keeps it alive as long as the Service;
  /// the service makes every call into it under one lock.
  GradingCache* record = nullptr;
  /// Receives one line (without "failmap: " or a newline) per event a reply
  /// does not show: a recording that failed, a record refused. May be empty;
  /// called from any thread.
  std::function<void(const std::string&)> log;
};

/// Whether every address `host` stands for is a loopback one: 127.0.0.0/8,
/// ::1 or ::ffff:127.0.0.0/104 (RFC 4291 2.5.3, 2.5.5.2). A numeric address
/// is read as it is; a name (`localhost`) is resolved as the server's bind
/// resolves it (getaddrinfo, so /etc/hosts decides), and one non-loopback
/// address among its answers makes it non-loopback. `[::1]` is read as ::1.
/// An empty host (every address) and a name that does not resolve are not
/// loopback.
bool is_loopback_host(const std::string& host);

/// Reads a bearer token file: its first line without the line end, at
/// least 16 bytes of visible ASCII (RFC 6750 b64token characters). Errors
/// name the file.
Result<std::string> read_token_file(const std::string& path);

/// Compares two tokens in time independent of where they differ (both
/// hashed with SHA-256, then CRYPTO_memcmp).
bool tokens_equal(const std::string& a, const std::string& b);

class Service {
 public:
  /// Opens the archive read-only, loads the case list and binds the
  /// listening socket. Errors: the archive cannot be opened, the address
  /// cannot be bound, a non-loopback host without a token, the grading
  /// settings (with a record) cannot be read.
  static Result<std::unique_ptr<Service>> open(const ServeOptions& o);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  /// The port it listens on (the one chosen when ServeOptions::port was 0).
  int port() const;
  /// Serves until stop(); then waits for the requests in flight and
  /// commits what was recorded (a failure is logged). Errors: the server
  /// could not listen.
  Status run();
  /// Stops accepting (new grading requests get 503), ends idle connections;
  /// callable from any thread, once or more.
  void stop();

 private:
  Service();
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace failmap::serve
