#include "grade/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <thread>

#include "encoding/embedded.h"
#include "encoding/json.h"

extern char** environ;

namespace failmap {

namespace {

constexpr const char* k_python = "/usr/bin/python3";
constexpr const char* k_bwrap = "/usr/bin/bwrap";
constexpr std::uint32_t k_max_frame = 64u << 20;
// The driver's status record after each candidate: ">iiBBBd" in Python's struct.
constexpr std::size_t k_status_bytes = 19;
// landlock_create_ruleset(2): the same number on every architecture (Linux
// 5.13, include/uapi/asm-generic/unistd.h); its flag asking for the ABI
// version (linux/landlock.h). Spelled here so that older headers build.
constexpr long k_landlock_create_ruleset = 444;
constexpr unsigned k_landlock_create_ruleset_version = 1u << 0;

std::string errno_text(int e) { return std::strerror(e); }

// Writes all of `data` to `fd`; false when the reader is gone.
bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool write_frame(int fd, std::string_view body) {
  unsigned char head[4] = {static_cast<unsigned char>(body.size() >> 24), static_cast<unsigned char>(body.size() >> 16),
                           static_cast<unsigned char>(body.size() >> 8), static_cast<unsigned char>(body.size())};
  return write_all(fd, head, 4) && write_all(fd, body.data(), body.size());
}

// Reads exactly n bytes before `deadline`; an Error names what failed.
Status read_exact(int fd, char* out, std::size_t n, std::chrono::steady_clock::time_point deadline) {
  while (n > 0) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return input_error("the sandbox did not answer in time");
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return input_error("poll: " + errno_text(errno));
    if (r == 0) continue;
    ssize_t got = ::read(fd, out, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return input_error("the sandbox's driver ended unexpectedly");
    out += got;
    n -= static_cast<std::size_t>(got);
  }
  return ok_status();
}

Result<std::string> read_frame(int fd, std::chrono::steady_clock::time_point deadline) {
  unsigned char head[4];
  FAILMAP_TRY(read_exact(fd, reinterpret_cast<char*>(head), 4, deadline));
  std::uint32_t n = std::uint32_t{head[0]} << 24 | std::uint32_t{head[1]} << 16 | std::uint32_t{head[2]} << 8 | head[3];
  if (n > k_max_frame) return input_error("the sandbox's driver sent a frame of " + std::to_string(n) + " bytes");
  std::string body(n, '\0');
  FAILMAP_TRY(read_exact(fd, body.data(), n, deadline));
  return body;
}

// The descriptor on which bubblewrap writes, as JSON, the pid of the
// namespace's init (its "child-pid"; bwrap(1), --info-fd).
constexpr int k_info_fd = 5;

// bubblewrap's options up to "--": the view of the machine a worker gets.
std::vector<std::string> bwrap_args() {
  std::vector<std::string> a = {k_bwrap, "--unshare-all",     "--uid",         "1000",      "--gid",
                                "1000",  "--die-with-parent", "--new-session", "--info-fd", std::to_string(k_info_fd)};
  // CAP_SYS_ADMIN in the sandbox's user namespace only: the worker mounts each
  // candidate's /tmp with it.
  a.insert(a.end(), {"--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"});
  a.insert(a.end(), {"--clearenv", "--setenv", "PATH", "/usr/bin", "--setenv", "PYTHONHASHSEED", "0"});
  a.insert(a.end(), {"--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
                     "--symlink", "usr/sbin", "/sbin"});
  std::error_code ec;
  if (std::filesystem::exists("/usr/lib64", ec)) a.insert(a.end(), {"--symlink", "usr/lib64", "/lib64"});
  // The root, /dev (and so /dev/shm) and the empty /tmp are read-only. The
  // worker's one capability, CAP_SYS_ADMIN in the sandbox's user namespace,
  // lets it mount a fresh tmpfs on /tmp for each child in a mount namespace
  // of its own; each child drops it before anything else
  // (src/grade/driver.py).
  a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev", "--dir", "/tmp", "--remount-ro", "/dev", "--remount-ro", "/",
                     "--chdir", "/", "--hostname", "failmap-sandbox", "--"});
  return a;
}

// Moves `fd` above the descriptors a child is given (0 to k_info_fd), so
// that the dup2s of a spawn never overwrite a source they have yet to copy;
// -1 when it cannot (the original is closed either way).
int above_child_fds(int fd) {
  if (fd > k_info_fd) return fd;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, k_info_fd + 1);
  ::close(fd);
  return moved;
}

// bubblewrap's outer process exits as soon as the namespace's init reports
// the command's exit status, without waiting for that init to end; the init
// is then reparented to the nearest child subreaper, else to the machine's
// init, which in a container may never reap it. failmap adopts such orphans
// (PR_SET_CHILD_SUBREAPER, prctl(2)) so that it can wait for them itself.
// True when failmap is a child subreaper (set once, for the whole process;
// only where bubblewrap runs, so --sandbox none adopts nothing).
bool adopt_orphans() {
  static const bool adopted = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  return adopted;
}

// The "child-pid" bubblewrap writes on `fd` (k_info_fd in the sandbox), read
// until the object closes or the writer does; 0 when none comes within 10 s.
pid_t read_info_child_pid(int fd) {
  std::string text;
  char buf[256];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (text.find('}') == std::string::npos && text.size() < 4096) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  const std::size_t at = text.find("\"child-pid\":");
  if (at == std::string::npos) return 0;
  long pid = std::strtol(text.c_str() + at + 12, nullptr, 10);
  return pid > 1 && pid <= std::numeric_limits<pid_t>::max() ? static_cast<pid_t>(pid) : 0;
}

// Waits for bubblewrap's init `child` (an orphan failmap adopted when the outer
// process exited), killing it first when asked; its PID namespace, and so
// every process of the worker, ends with it. Nothing to wait for when the
// adoption failed (waitpid says ECHILD).
void reap_bwrap_init(pid_t child, bool kill_first) {
  if (child <= 0 || !adopt_orphans()) return;
  if (kill_first) ::kill(child, SIGKILL);
  int status;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
}

std::vector<std::string> worker_argv(SandboxMode mode, std::string_view driver) {
  std::vector<std::string> a;
  if (mode == SandboxMode::Bubblewrap) a = bwrap_args();
  a.insert(a.end(), {k_python, "-S", "-s", "-B", "-c", std::string(driver)});
  return a;
}

}  // namespace

std::string_view sandbox_mode_name(SandboxMode mode) {
  switch (mode) {
    case SandboxMode::Bubblewrap:
      return "bwrap";
    case SandboxMode::None:
      return "none";
    case SandboxMode::NoneLandlock:
      return "none+landlock";
  }
  return "bwrap";
}

std::optional<SandboxMode> sandbox_mode_from_name(std::string_view name) {
  for (SandboxMode m : {SandboxMode::Bubblewrap, SandboxMode::None, SandboxMode::NoneLandlock})
    if (sandbox_mode_name(m) == name) return m;
  return std::nullopt;
}

int landlock_abi() {
  long v = ::syscall(k_landlock_create_ruleset, nullptr, 0, k_landlock_create_ruleset_version);
  return v > 0 ? static_cast<int>(v) : 0;
}

SandboxMode unnamespaced_mode() { return landlock_abi() >= 1 ? SandboxMode::NoneLandlock : SandboxMode::None; }

Result<std::string> candidate_seccomp_program() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return input_error("seccomp_init failed");
  struct Guard {
    scmp_filter_ctx c;
    ~Guard() { seccomp_release(c); }
  } guard{ctx};
  const std::uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
  // Processes, programs and other processes: none.
  for (const char* name : {"fork",
                           "vfork",
                           "execve",
                           "execveat",
                           "kill",
                           "tkill",
                           "tgkill",
                           "rt_sigqueueinfo",
                           "rt_tgsigqueueinfo",
                           "pidfd_open",
                           "pidfd_send_signal",
                           "pidfd_getfd",
                           "ptrace",
                           "process_vm_readv",
                           "process_vm_writev",
                           "kcmp",
                           "socket",
                           "socketpair",
                           "connect",
                           "bind",
                           "listen",
                           "accept",
                           "accept4",
                           "mount",
                           "umount2",
                           "unshare",
                           "setns",
                           "chroot",
                           "pivot_root",
                           "keyctl",
                           "add_key",
                           "request_key",
                           "bpf",
                           "perf_event_open",
                           "userfaultfd",
                           "io_uring_setup",
                           "io_uring_enter",
                           "io_uring_register",
                           "personality",
                           "setpriority",
                           "sched_setaffinity",
                           "sched_setscheduler",
                           "prlimit64",
                           "setrlimit"}) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (seccomp_rule_add(ctx, eperm, nr, 0) != 0) return input_error(std::string("seccomp rule for ") + name);
  }
  // clone: threads only (CLONE_THREAD set); clone3 says ENOSYS so that glibc
  // falls back to clone, whose flags the filter can read.
  if (seccomp_rule_add(ctx, eperm, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)) != 0)
    return input_error("seccomp rule for clone");
  if (int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR)
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) != 0) return input_error("seccomp rule for clone3");
  // Export the program through a pipe-less temporary file descriptor.
  int fd = ::memfd_create("failmap-seccomp", MFD_CLOEXEC);
  if (fd < 0) return input_error("memfd_create: " + errno_text(errno));
  int rc = seccomp_export_bpf(ctx, fd);
  std::string out;
  if (rc == 0) {
    ::lseek(fd, 0, SEEK_SET);
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (rc != 0) return input_error("seccomp_export_bpf failed");
  return out;
}

std::optional<std::string> sandbox_unavailable() {
  std::error_code ec;
  if (!std::filesystem::exists(k_bwrap, ec))
    return std::string("bubblewrap is not installed (") + k_bwrap +
           "; Debian package bubblewrap): install it, or grade with --sandbox none (limits, seccomp and Landlock where "
           "the kernel has it)";
  if (!std::filesystem::exists(k_python, ec))
    return std::string(k_python) + " is missing (Debian package python3): the sandbox runs candidates with it";
  std::vector<std::string> args = bwrap_args();
  args.push_back(k_python);
  // What each worker does (src/grade/driver.py's _own_mounts, src/grade/forkloop.c's fresh_tmp):
  // a mount namespace of its own, a tmpfs on /tmp, and another one after the
  // first is detached.
  args.insert(args.end(), {"-S", "-c",
                           "import ctypes\n"
                           "l = ctypes.CDLL(None, use_errno=True)\n"
                           "assert l.unshare(0x20000) == 0\n"
                           "assert l.mount(b'tmpfs', b'/tmp', b'tmpfs', 6, b'size=65536') == 0\n"
                           "assert l.umount2(b'/tmp', 2) == 0\n"
                           "assert l.mount(b'tmpfs', b'/tmp', b'tmpfs', 6, b'size=65536') == 0\n"});
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  adopt_orphans();
  int info[2];
  if (::pipe2(info, O_CLOEXEC) != 0) return "pipe: " + errno_text(errno);
  if ((info[1] = above_child_fds(info[1])) < 0) {
    ::close(info[0]);
    return "fcntl: " + errno_text(errno);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, info[1], k_info_fd);
  pid_t pid;
  int rc = posix_spawn(&pid, k_bwrap, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(info[1]);
  if (rc != 0) {
    ::close(info[0]);
    return "bubblewrap could not be started (" + errno_text(rc) + "): grade with --sandbox none";
  }
  const pid_t child = read_info_child_pid(info[0]);
  ::close(info[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  reap_bwrap_init(child, false);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return std::string(
               "this machine gives no user namespaces to bubblewrap (as in a default Docker container), or "
               "the sandbox cannot mount a tmpfs in it (each candidate gets a fresh /tmp): ") +
           "grade with --sandbox none, which runs candidates with limits, seccomp and Landlock where the kernel has it";
  return std::nullopt;
}

SandboxWorker::SandboxWorker(SandboxMode mode, SandboxLimits limits) : m_mode(mode), m_limits(limits) {}

SandboxWorker::~SandboxWorker() { stop(k_graceful_stop); }

Status SandboxWorker::start() {
  std::string_view driver = embedded_file("driver.py");
  if (driver.empty())
    return input_error("the candidate driver (src/grade/driver.py) is not compiled into this failmap");
  FAILMAP_TRY_ASSIGN(auto bpf, candidate_seccomp_program());
  int to[2] = {-1, -1}, from[2] = {-1, -1}, err[2] = {-1, -1}, info[2] = {-1, -1};
  auto close_all = [&] {
    for (int* p : {to, from, err, info})
      for (int i = 0; i < 2; ++i)
        if (p[i] >= 0) ::close(p[i]);
  };
  const bool bubblewrap = m_mode == SandboxMode::Bubblewrap;
  if (bubblewrap) adopt_orphans();
  if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      (bubblewrap && ::pipe2(info, O_CLOEXEC) != 0)) {
    const int e = errno;
    close_all();
    return input_error("pipe: " + errno_text(e));
  }
  // The child's ends move above the descriptors it is given.
  for (int* end : {&to[0], &from[1], &err[1], &info[1]})
    if (*end >= 0 && (*end = above_child_fds(*end)) < 0) {
      const int e = errno;
      close_all();
      return input_error("fcntl: " + errno_text(e));
    }
  std::vector<std::string> args = worker_argv(m_mode, driver);
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  // Without bubblewrap the driver's environment is cleared here.
  std::string hashseed = "PYTHONHASHSEED=0", path = "PATH=/usr/bin";
  std::vector<char*> env = {hashseed.data(), path.data(), nullptr};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawn_file_actions_adddup2(&fa, to[0], 3);
  posix_spawn_file_actions_adddup2(&fa, from[1], 4);
  if (info[1] >= 0) posix_spawn_file_actions_adddup2(&fa, info[1], k_info_fd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so that failmap's Ctrl-C reaches failmap alone
  // and failmap ends the worker itself.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(to[0]);
  ::close(from[1]);
  ::close(err[1]);
  if (info[1] >= 0) ::close(info[1]);
  if (rc != 0) {
    ::close(to[1]);
    ::close(from[0]);
    ::close(err[0]);
    if (info[0] >= 0) ::close(info[0]);
    return input_error(std::string("could not start ") + argv[0] + ": " + errno_text(rc));
  }
  m_pid = pid;
  if (info[0] >= 0) {
    m_init = read_info_child_pid(info[0]);
    ::close(info[0]);
  }
  m_to = to[1];
  m_from = from[0];
  m_err = err[0];
  ::fcntl(m_err, F_SETFL, ::fcntl(m_err, F_GETFL) | O_NONBLOCK);
  std::string hex;
  hex.reserve(bpf.size() * 2);
  static const char* k_digits = "0123456789abcdef";
  for (unsigned char c : bpf) {
    hex.push_back(k_digits[c >> 4]);
    hex.push_back(k_digits[c & 15]);
  }
  Json config = {{"workdir", "/tmp/candidate"},
                 {"fresh_tmp", m_mode == SandboxMode::Bubblewrap},
                 {"tmp_bytes", 16u << 20},
                 {"tmp_inodes", 4096},
                 {"memory_bytes", m_limits.memory_bytes},
                 {"file_bytes", m_limits.file_bytes},
                 {"open_files", m_limits.open_files},
                 {"processes", 1},
                 {"output_bytes", m_limits.output_bytes},
                 {"seccomp_bpf", hex},
                 {"fork_loop", fork_loop_library()}};
  config["landlock_abi"] = m_mode == SandboxMode::NoneLandlock ? landlock_abi() : 0;
  if (m_mode != SandboxMode::Bubblewrap) {
    // No private /tmp: a folder of its own, removed by stop().
    char tmpl[] = "/tmp/failmap-sandbox-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      stop();
      return input_error("mkdtemp: " + errno_text(errno));
    }
    config["workdir"] = std::string(tmpl) + "/candidate";
    m_scratch = tmpl;
  }
  if (!write_frame(m_to, dump_compact(config))) {
    std::string why = "the sandbox's driver did not start";
    char buf[512];
    ::usleep(100000);
    ssize_t n = ::read(m_err, buf, sizeof buf);
    if (n > 0) why += ": " + std::string(buf, static_cast<std::size_t>(n));
    stop();
    return input_error(why);
  }
  return ok_status();
}

void SandboxWorker::stop(std::chrono::milliseconds grace) {
  if (m_to >= 0) ::close(m_to);
  if (m_from >= 0) ::close(m_from);
  if (m_err >= 0) ::close(m_err);
  m_to = m_from = m_err = -1;
  if (m_pid > 0) {
    // Closing its request pipe ends the driver. A worker that ends by itself
    // ends whole: bubblewrap's outer process exits after the namespace's
    // init, and that init only after every process of its namespace is
    // reaped, so once waitpid returns nothing of the worker is left. SIGKILL
    // (at once for a worker that broke the protocol, after the grace for
    // one that does not end) kills bubblewrap's outer process; the
    // namespace's processes then die by --die-with-parent, on their own time.
    int status;
    const auto deadline = std::chrono::steady_clock::now() + grace;
    auto nap = std::chrono::microseconds(200);
    pid_t done = 0;
    while ((done = ::waitpid(m_pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(nap);
      nap = std::min(nap * 2, std::chrono::microseconds(20000));
    }
    const bool killed = done == 0 || (done < 0 && errno == EINTR);
    if (killed) {
      ::kill(-m_pid, SIGKILL);
      ::kill(m_pid, SIGKILL);
      while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {}
    }
    reap_bwrap_init(m_init, killed);
    m_pid = -1;
    m_init = 0;
  }
  if (!m_scratch.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(m_scratch, ec);
    m_scratch.clear();
  }
}

double wall_safety_net(double cpu_seconds) { return 5.0 * cpu_seconds + 5.0; }

SandboxLimits candidate_limits(double timeout_seconds, std::uint64_t memory_mib) {
  SandboxLimits l;
  l.cpu_seconds = timeout_seconds;
  l.wall_seconds = wall_safety_net(timeout_seconds);
  l.memory_bytes = memory_mib << 20;
  return l;
}

Status SandboxWorker::warm() { return m_pid < 0 ? start() : ok_status(); }

Result<ChildRun> SandboxWorker::run(const std::string& source, const std::vector<std::string>& calls) {
  return run(source, calls, RunOptions{});
}

Result<ChildRun> SandboxWorker::run(const std::string& source, const std::vector<std::string>& calls,
                                    const RunOptions& options) {
  if (m_pid < 0) FAILMAP_TRY(start());
  // The budget travels with the request: the child (failmap's fork loop,
  // before the candidate's code runs) tells the worker which clock to watch.
  // The frame (src/grade/driver.py's header): the CPU budget and the wall
  // safety net as big-endian IEEE 754 doubles, then the request's JSON.
  const double cpu_seconds = options.cpu_seconds.value_or(m_limits.cpu_seconds);
  const double wall_seconds = options.cpu_seconds ? wall_safety_net(*options.cpu_seconds) : m_limits.wall_seconds;
  Json request = {{"source", source}, {"calls", calls}, {"seed", options.seed}};
  std::string text;
  try {
    text = dump_compact(request);
  } catch (const std::exception&) {
    return input_error("the candidate's source is not valid UTF-8");
  }
  std::string body(16 + text.size(), '\0');
  for (std::size_t i = 0; i < 2; ++i) {
    const auto bits = std::bit_cast<std::uint64_t>(i == 0 ? cpu_seconds : wall_seconds);
    for (std::size_t b = 0; b < 8; ++b) body[8 * i + b] = static_cast<char>(bits >> (56 - 8 * b));
  }
  std::copy(text.begin(), text.end(), body.begin() + 16);
  auto fail = [&](const Error& e) -> Result<ChildRun> {
    std::string why = e.message;
    char buf[512];
    ssize_t n = m_err >= 0 ? ::read(m_err, buf, sizeof buf) : -1;
    if (n > 0) why += " (" + std::string(buf, static_cast<std::size_t>(n)) + ")";
    stop();
    return input_error(why);
  };
  if (!write_frame(m_to, body)) return fail(input_error("the sandbox's driver is gone"));
  // The driver kills a candidate at its wall limit itself; this deadline is
  // failmap's backstop against a driver that does not answer at all.
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long long>(wall_seconds * 1000) + 10000);
  auto status = read_frame(m_from, deadline);
  if (!status) return fail(status.error());
  auto report = read_frame(m_from, deadline);
  if (!report) return fail(report.error());
  // The status record (src/grade/driver.py's header): big-endian int32 exit
  // status and signal (-1: none), three flag bytes, the CPU seconds as an
  // IEEE 754 double.
  if (status->size() != k_status_bytes) return fail(input_error("the sandbox's driver sent an unreadable status"));
  auto bytes = reinterpret_cast<const unsigned char*>(status->data());
  auto be = [&](std::size_t at, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v = v << 8 | bytes[at + i];
    return v;
  };
  ChildRun out;
  const auto exit_code = static_cast<std::int32_t>(be(0, 4)), signal = static_cast<std::int32_t>(be(4, 4));
  if (exit_code >= 0) out.exit_code = exit_code;
  if (signal >= 0) out.signal = signal;
  out.timeout = bytes[8] != 0;
  out.wall_timeout = bytes[9] != 0;
  out.overflow = bytes[10] != 0;
  out.cpu_seconds = std::bit_cast<double>(be(11, 8));
  if (!std::isfinite(out.cpu_seconds) || out.cpu_seconds < 0)
    return fail(input_error("the sandbox's driver sent an unreadable status"));
  out.report = std::move(*report);
  return out;
}

std::string sandbox_mode_warning(SandboxMode mode) {
  switch (mode) {
    case SandboxMode::None:
      return "--sandbox none on a kernel without Landlock: candidates run with resource limits and seccomp only, so a "
             "candidate can read and write every file this user can (the archive too, even with --no-record, and "
             "the source tree and $HOME); every result line says \"sandbox\": \"none\"";
    case SandboxMode::NoneLandlock:
      return "--sandbox none: no namespaces; candidates run with resource limits, seccomp and Landlock (they may read "
             "only /usr and write only their own temporary folder); every result line says \"sandbox\": "
             "\"none+landlock\"";
    case SandboxMode::Bubblewrap:
      break;
  }
  return "";
}

}  // namespace failmap
