// The sandbox a graded candidate runs in (schema/GRADING.md "The sandbox").
//
// A candidate is Python source written by a model: hostile by default. It may
// read, write, fork, loop, allocate without bound, print lies, exit early or
// walk the interpreter's stack. The sandbox gives it none of that to use:
//
//   failmap ──fd 3/4 frames──▶ bubblewrap ─▶ python3 src/grade/driver.py (one warm interpreter per worker)
//                                              └─ src/grade/forkloop.c (the loop between candidates, in C)
//                                                   └─ fork ─▶ child: limits + seccomp, then the candidate
//
// - bubblewrap (Debian's `bubblewrap`) gives the worker new user, PID, mount,
//   network, IPC, UTS and cgroup namespaces: no network but a downed loopback,
//   a read-only file system of /usr, its own /proc, a minimal /dev and an
//   empty /tmp, all read-only but the devices, uid and gid 1000 on every
//   machine, an empty environment, no capabilities, and a process tree killed
//   whole when failmap ends it (the PID namespace dies with its first
//   process, setsid() children included).
// - Each candidate runs in a fresh child of the warm interpreter (a fork, not
//   an interpreter start), forked before its request exists (the child reads
//   it: no other process of the sandbox holds a candidate's bytes), in a user
//   and mount namespace of its own whose /tmp is a new, empty tmpfs (the only
//   place it can write, gone with it), with RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE and
//   RLIMIT_NOFILE lowered and a seccomp filter (libseccomp, compiled here,
//   installed by the child) that refuses fork, vfork, non-thread clone, exec,
//   signals to any process, ptrace and process_vm_*, sockets, mount and
//   namespace calls: a fork bomb gets EPERM, not processes. RLIMIT_NPROC does
//   not bind root, so it is not what contains one.
// - The child writes only its report: what each call of `solve` returned or
//   raised. It never receives an expected value or a check label.
// - failmap enforces a backstop deadline on the worker too: a worker that does
//   not answer is killed and a new one started.
//
// With `failmap grade --sandbox none` (for machines without user namespaces,
// such as a default Docker container) the driver runs as a plain child
// process of failmap: the limits and the seccomp filter still apply, the
// namespaces do not. Where the kernel has Landlock (Linux 5.13+,
// linux/landlock.h), each child also confines itself with it before the
// candidate runs (SandboxMode::NoneLandlock): it may read and execute only
// under /usr (and /dev/urandom) and write only in its own scratch folder, so
// the archive, the source tree, $HOME and the working folder are neither
// readable nor writable. Without Landlock (SandboxMode::None) the candidate
// can read and write every file this user can. Every result says which.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace failmap {

/// How candidates are isolated.
enum class SandboxMode {
  Bubblewrap,    ///< namespaces through bubblewrap, plus limits and seccomp (the default)
  None,          ///< limits and seccomp only: `--sandbox none` where the kernel has no Landlock
  NoneLandlock,  ///< `--sandbox none` where it has: limits, seccomp and the file system confined by Landlock
};

/// "bwrap" | "none" | "none+landlock" (the `sandbox` of results lines and summary.json).
std::string_view sandbox_mode_name(SandboxMode mode);

/// The mode of a name sandbox_mode_name gives; nullopt for any other text.
std::optional<SandboxMode> sandbox_mode_from_name(std::string_view name);

/// The Landlock ABI version this kernel offers (landlock_create_ruleset with
/// LANDLOCK_CREATE_RULESET_VERSION), 0 when it has none (older than 5.13,
/// Landlock not enabled at boot, or the call refused as in some containers).
int landlock_abi();

/// The mode `--sandbox none` runs in on this machine: NoneLandlock where
/// landlock_abi() >= 1, else None.
SandboxMode unnamespaced_mode();

/// What a user running candidates in `mode` must be told of its confinement
/// (one sentence, no newline), or "" for SandboxMode::Bubblewrap: without
/// namespaces a candidate can read and write what Landlock (if any) leaves it.
std::string sandbox_mode_warning(SandboxMode mode);

/// The largest CPU budget of a candidate, in seconds (`grade --timeout`'s maximum).
inline constexpr double k_max_cpu_seconds = 3600.0;

/// Resource limits of one candidate (all of its fixture calls together).
struct SandboxLimits {
  double cpu_seconds = 10.0;  ///< the CPU-time budget (user + system) that decides `timeout`
  double wall_seconds =
      55.0;  ///< wall clock, from the request to the report's end: only a safety net (wall_safety_net)
  std::uint64_t memory_bytes = 1024ull << 20;  ///< RLIMIT_AS of the child (address space)
  std::uint64_t output_bytes = 16ull << 20;    ///< the most report bytes read; more is an `output` error
  std::uint64_t file_bytes = 1ull << 20;       ///< RLIMIT_FSIZE: largest file the candidate may write
  std::uint32_t open_files = 64;               ///< RLIMIT_NOFILE
};

/// The wall-clock safety net of a CPU budget of `cpu_seconds`: 5 x the
/// budget + 5 s, far above what a candidate within its budget takes on a
/// machine oversubscribed four times over (schema/GRADING.md "Limits").
double wall_safety_net(double cpu_seconds);

/// The limits of `--timeout SECONDS` (the CPU budget, its wall safety net)
/// and `--memory MIB`, the other limits at their defaults: the one place
/// grade and serve turn their options into limits, so that both give the
/// same bytes for the same options.
SandboxLimits candidate_limits(double timeout_seconds, std::uint64_t memory_mib);

/// What the worker reports of one candidate's child process.
struct ChildRun {
  std::optional<int> exit_code;  ///< when it exited
  std::optional<int> signal;     ///< when a signal ended it (SIGKILL after a timeout, SIGXCPU)
  bool timeout = false;          ///< it used its CPU budget, or the wall safety net ended it
  bool wall_timeout = false;     ///< the wall safety net ended it (implies timeout)
  bool overflow = false;         ///< its report passed SandboxLimits::output_bytes
  double cpu_seconds = 0.0;      ///< user + system CPU time of the child, in seconds (varies from run to run)
  std::string report;            ///< the report bytes (src/grade/driver.py's header documents them)
  /// The call order the candidate ran: order[p] is the index (into the
  /// calls given to the grader) of the p-th call made; empty when in order.
  std::vector<std::uint32_t> order;
};

/// What a candidate's process starts from besides its source and calls.
struct RunOptions {
  std::uint64_t seed = 0;  ///< `random.seed(seed)` before the source runs
  /// The CPU budget of this run in seconds, and its wall safety net
  /// wall_safety_net(budget); none: the worker's SandboxLimits. The request
  /// carries it to the child, which tells the worker (schema/GRADING.md "Limits").
  std::optional<double> cpu_seconds;
};

/// The seccomp filter the child installs, as a classic BPF program (struct
/// sock_filter[], 8 bytes each) exported by libseccomp for this machine's
/// architecture. Errors: libseccomp refused a rule.
Result<std::string> candidate_seccomp_program();

/// Whether this machine can start a bubblewrap sandbox: nullopt when it can,
/// else why not (bwrap missing, user namespaces refused), as one sentence
/// that names `--sandbox none`.
std::optional<std::string> sandbox_unavailable();

/// One warm driver process and the pipes to it. Not copyable; one per grading
/// thread. Restarts itself after a failure.
class SandboxWorker {
 public:
  SandboxWorker(SandboxMode mode, SandboxLimits limits);
  ~SandboxWorker();
  SandboxWorker(const SandboxWorker&) = delete;
  SandboxWorker& operator=(const SandboxWorker&) = delete;

  /// Runs `source` and calls its `solve` once per element of `calls` (each
  /// the JSON text of one call's argument list, e.g. "[[1, 1, 1], 2]").
  /// Errors (Kind::Input, message for the result's `sandbox` error): the
  /// worker could not be started or broke the protocol; the worker is then
  /// restarted for the next call.
  Result<ChildRun> run(const std::string& source, const std::vector<std::string>& calls);

  /// run(source, calls) with `random` seeded from `options.seed`.
  Result<ChildRun> run(const std::string& source, const std::vector<std::string>& calls, const RunOptions& options);

  /// Starts the worker now if it is not running, so that the first run()
  /// does not pay for it. The same errors as run()'s start; after one, run()
  /// tries again.
  Status warm();

 private:
  /// How long stop() waits, when asked to, for a worker whose request pipe
  /// it closed to end by itself (an idle driver takes a few milliseconds).
  static constexpr std::chrono::milliseconds k_graceful_stop{3000};

  Status start();
  /// Ends the driver: closes its pipes, waits up to `grace` for it to end
  /// by itself (then nothing of it is left), else SIGKILLs its process
  /// group; reaps it and removes its scratch folder. The default (no grace)
  /// is for a worker that broke the protocol.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(0));

  SandboxMode m_mode;
  SandboxLimits m_limits;
  int m_pid = -1;
  int m_init = 0;         // bubblewrap's init in the worker's PID namespace (0: none or unknown)
  int m_to = -1;          // requests to the driver (its fd 3)
  int m_from = -1;        // answers from the driver (its fd 4)
  int m_err = -1;         // the driver's stderr (read when it fails)
  std::string m_scratch;  // SandboxMode::None: the folder the driver's candidates write in
};

}  // namespace failmap
