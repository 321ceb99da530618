/* The worker's side of the candidate driver (src/grade/driver.py), in C.
 *
 * The driver's warm interpreter loads this library (from a memfd; failmap
 * compiles it in and sends it with the driver's configuration) and calls
 * failmap_serve once, holding the GIL (ctypes.PyDLL). The call returns only
 * in a freshly forked child, or when the worker is done: between two
 * candidates the worker runs no Python at all. A page of the warm heap that
 * the worker wrote while a child shared it would be copied (a copy-on-write
 * fault); this loop writes only its own stack, the report mapping it makes
 * for each candidate and the struct below, so the heap the children fork
 * from stays shared with none of those copies.
 *
 * What one turn of the loop does is what the driver's header describes:
 * a fresh /tmp (bubblewrap) or an empty scratch folder (--sandbox none),
 * a pipe, a fork; in the parent, the child's start signal (b"R" and two
 * big-endian doubles: its CPU budget and wall safety net, in seconds), its
 * report read into an anonymous mapping of output_bytes + 1 bytes while its
 * CPU clock is watched, the kill at the budget, the safety net or the
 * overflow, wait4, and the two answer frames on out_fd: the 19-byte status
 * record (Python struct ">iiBBBd") and the report.
 *
 * Linux only (clock_getcpuclockid of another process, mount, umount2). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* CPython's fork protocol (Include/intrcheck.h), the steps os.fork takes;
 * resolved from the interpreter that loads this library. */
extern void PyOS_BeforeFork(void);
extern void PyOS_AfterFork_Parent(void);
extern void PyOS_AfterFork_Child(void);

/* The driver's ctypes.Structure of the same fields, in this order. */
struct failmap_loop {
  int32_t out_fd;          /* frames to failmap (the driver's fd 4) */
  int32_t fresh_tmp;       /* 1: a new tmpfs on /tmp for each candidate */
  int64_t output_bytes;    /* the report limit, in bytes */
  const char* tmp_options; /* the tmpfs's mount data ("size=...,nr_inodes=...,mode=0700") */
  const char* workdir;     /* the candidate's scratch folder */
  char failed[200];        /* in and out: what failed making a fresh /tmp; "" when nothing did */
};

/* How deep the removal of a scratch tree descends: a folder below this is
 * moved up to the scratch folder itself and emptied from there, so that a
 * tree of any depth goes with one descriptor per level of at most this many. */
enum { k_max_depth = 64 };

static double monotonic_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_all(int fd, const void* data, size_t n) {
  const char* p = data;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static ssize_t read_full(int fd, void* data, size_t n) {
  char* p = data;
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

static void put_be32(unsigned char* p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static void put_be_double(unsigned char* p, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = (unsigned char)v;
}

static double get_be_double(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}

/* Removes everything under the folder open as `dir`, never following a
 * link; folders are made writable and searchable first. `top` is the
 * scratch folder, where folders deeper than k_max_depth are moved to. */
static void empty_folder(int top, int dir, int depth) {
  int copy = dup(dir);
  if (copy < 0) return;
  DIR* d = fdopendir(copy);
  if (d == NULL) {
    close(copy);
    return;
  }
  static unsigned long moved;
  /* Entries are removed while the folder is read: read it again until a
   * pass changes nothing. */
  for (int changed = 1; changed;) {
    changed = 0;
    rewinddir(d);
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      int is_dir = e->d_type == DT_DIR;
      if (e->d_type == DT_UNKNOWN) {
        struct stat st;
        is_dir = fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
      }
      if (!is_dir) {
        changed |= unlinkat(dir, e->d_name, 0) == 0;
        continue;
      }
      if (unlinkat(dir, e->d_name, AT_REMOVEDIR) == 0) {
        changed = 1;
        continue;
      }
      if (depth >= k_max_depth) {
        char name[64];
        snprintf(name, sizeof name, ".failmap-deep-%lu", moved++);
        changed |= renameat2(dir, e->d_name, top, name, RENAME_NOREPLACE) == 0;
        continue;
      }
      fchmodat(dir, e->d_name, 0700, 0);
      int sub = openat(dir, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      empty_folder(top, sub, depth + 1);
      close(sub);
      changed |= unlinkat(dir, e->d_name, AT_REMOVEDIR) == 0;
    }
  }
  closedir(d);
}

/* Removes the scratch folder `path` (whatever the candidate replaced it
 * with: a file, a link, a tree), so that the next candidate gets a new,
 * empty one. */
static void reset_scratch(const char* path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path);
    return;
  }
  if (rmdir(path) == 0) return;
  chmod(path, 0700);
  int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return;
  empty_folder(dir, dir, 0);
  close(dir);
  rmdir(path);
}

/* A new, empty tmpfs on /tmp, the last candidate's detached. */
static void fresh_tmp(struct failmap_loop* loop, int* mounted) {
  if (*mounted && umount2("/tmp", MNT_DETACH) != 0) {
    snprintf(loop->failed, sizeof loop->failed, "umount of the last candidate's /tmp");
  } else if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, loop->tmp_options) != 0) {
    snprintf(loop->failed, sizeof loop->failed, "mount of a tmpfs on /tmp");
  } else if (mkdir(loop->workdir, 0700) != 0) {
    snprintf(loop->failed, sizeof loop->failed, "mkdir %s", loop->workdir);
  }
  *mounted = loop->failed[0] == '\0';
}

/* Serves candidates until failmap closes its pipe. Returns, in each child,
 * the write end of the child's result pipe (the caller runs the candidate
 * and ends with os._exit); in the worker, -1 when failmap is done or the
 * report pipe to it is gone, -2 when a pipe, fork or mapping failed
 * (errno says why). */
__attribute__((visibility("default"))) int failmap_serve(struct failmap_loop* loop) {
  const size_t cap = (size_t)loop->output_bytes;
  int mounted = 0;
  for (;;) {
    if (loop->fresh_tmp) {
      if (loop->failed[0] == '\0') fresh_tmp(loop, &mounted);
    } else {
      mkdir(loop->workdir, 0700);
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return -2;
    PyOS_BeforeFork();
    pid_t pid = fork();
    if (pid == 0) {
      PyOS_AfterFork_Child();
      close(p[0]);
      return p[1];
    }
    const int fork_errno = errno;
    PyOS_AfterFork_Parent();
    close(p[1]);
    if (pid < 0) {
      close(p[0]);
      errno = fork_errno;
      return -2;
    }
    const int r = p[0];
    unsigned char started[17];
    if (read_full(r, started, sizeof started) != (ssize_t)sizeof started || started[0] != 'R') {
      /* failmap closed its pipe (or the child could not read it): done. */
      close(r);
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
      return -1;
    }
    const double budget = get_be_double(started + 1), wall = get_be_double(started + 9);
    /* The report lands in a mapping of its own, unmapped once written out:
     * no candidate's bytes stay in this process for the next fork. */
    char* area = mmap(NULL, cap + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (area == MAP_FAILED) {
      kill(pid, SIGKILL);
      close(r);
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
      return -2;
    }
    size_t size = 0;
    int overflow = 0, cpu_out = 0, wall_out = 0;
    clockid_t clock;
    const int has_clock = clock_getcpuclockid(pid, &clock) == 0;
    double now = monotonic_seconds();
    const double deadline = now + wall;
    for (;;) {
      const double left = deadline - now;
      if (left <= 0) {
        wall_out = 1;
        break;
      }
      /* CPU time decides; it cannot pass the budget faster than the wall
       * clock times the threads, so a look every 50 ms suffices. */
      double used = 0;
      struct timespec ts;
      if (has_clock && clock_gettime(clock, &ts) == 0) used = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
      if (used >= budget) {
        cpu_out = 1;
        break;
      }
      double wait = budget - used > 0.001 ? budget - used : 0.001;
      if (left < wait) wait = left;
      if (wait > 0.05) wait = 0.05;
      struct timespec timeout = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
      struct pollfd pfd = {r, POLLIN, 0};
      const int ready = ppoll(&pfd, 1, &timeout, NULL);
      now = monotonic_seconds();
      if (ready <= 0) continue;
      ssize_t n = read(r, area + size, cap + 1 - size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      size += (size_t)n;
      if (size > cap) {
        overflow = 1;
        break;
      }
    }
    if (cpu_out || wall_out || overflow) kill(pid, SIGKILL);
    close(r);
    int status = 0;
    struct rusage usage;
    memset(&usage, 0, sizeof usage);
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {}
    if (!loop->fresh_tmp) reset_scratch(loop->workdir);
    const double cpu = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 +
                       (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
    const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : -1;
    /* The budget decides on the CPU time the child used, however it ended
     * (a child that finished past it, between two looks, timed out too). */
    const int timed_out = wall_out || cpu_out || cpu >= budget || sig == SIGXCPU;
    const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    unsigned char frame[4 + 19 + 4];
    put_be32(frame, 19);
    put_be32(frame + 4, (uint32_t)exit_code);
    put_be32(frame + 8, (uint32_t)sig);
    frame[12] = (unsigned char)timed_out;
    frame[13] = (unsigned char)wall_out;
    frame[14] = (unsigned char)overflow;
    put_be_double(frame + 15, cpu);
    const size_t body = size < cap ? size : cap;
    put_be32(frame + 23, (uint32_t)body);
    const int sent = write_all(loop->out_fd, frame, sizeof frame) == 0 && write_all(loop->out_fd, area, body) == 0;
    munmap(area, cap + 1);
    if (!sent) return -1;
  }
}
