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
 * In the child, before it returns to Python, this file also reads the
 * candidate's request, sends the start signal and confines the process
 * (capabilities, descriptors, limits, no_new_privs, Landlock, seccomp): C
 * writes to none of the Python objects the child shares with the worker,
 * and each such page a child writes is a copy-on-write fault.
 *
 * Those faults are most of what a child costs beyond the fork itself, and
 * most of them hit the same pages in every child: the interpreter's own
 * state, the compiler's, json's. So the worker's first child runs a fixed
 * request of this file's (a calibration: no candidate's, and never
 * answered to failmap) and lists the pages of the shared heap it wrote;
 * every later child copies those pages at once, before it runs, with
 * madvise(MADV_POPULATE_WRITE) (Linux 5.14+; elsewhere the call fails and
 * nothing changes), one system call per run of pages instead of one fault
 * per page. What a child computes is unchanged: only its CPU time drops.
 *
 * Linux only (clock_getcpuclockid of another process, mount, umount2,
 * capset, close_range, Landlock, seccomp). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* CPython's fork protocol (Include/intrcheck.h), the steps os.fork takes;
 * resolved from the interpreter that loads this library. */
extern void PyOS_BeforeFork(void);
extern void PyOS_AfterFork_Parent(void);
extern void PyOS_AfterFork_Child(void);

/* The few functions of CPython's stable ABI this file returns the child's
 * request with (Include/bytesobject.h, longobject.h, boolobject.h,
 * tupleobject.h, unicodeobject.h, pyerrors.h, object.h), declared here so that no Python headers
 * are needed to build it. */
typedef struct _object PyObject;
extern PyObject* PyBytes_FromStringAndSize(const char* data, ssize_t size);
extern PyObject* PyLong_FromLong(long value);
extern PyObject* PyBool_FromLong(long value);
extern PyObject* PyUnicode_FromString(const char* text);
extern PyObject* PyTuple_Pack(ssize_t n, ...);
extern PyObject* PyErr_SetFromErrno(PyObject* type);
extern PyObject* PyExc_OSError;
extern PyObject _Py_NoneStruct;

/* The driver's ctypes.Structure of the same fields, in this order. */
struct failmap_loop {
  int32_t in_fd;                /* frames from failmap (the driver's fd 3) */
  int32_t out_fd;               /* frames to failmap (the driver's fd 4) */
  int32_t null_fd;              /* /dev/null, each child's standard streams */
  int32_t fresh_tmp;            /* 1: a new tmpfs on /tmp for each candidate */
  int64_t output_bytes;         /* the report limit, in bytes */
  int64_t memory_bytes;         /* RLIMIT_AS */
  int64_t file_bytes;           /* RLIMIT_FSIZE */
  int64_t open_files;           /* RLIMIT_NOFILE */
  int64_t processes;            /* RLIMIT_NPROC */
  int64_t landlock_abi;         /* 0: no Landlock; else the kernel's Landlock ABI version */
  const char* tmp_options;      /* the tmpfs's mount data ("size=...,nr_inodes=...,mode=0700") */
  const char* workdir;          /* the candidate's scratch folder */
  const unsigned char* seccomp; /* the seccomp program (struct sock_filter[]); NULL: none */
  int64_t seccomp_bytes;        /* its size in bytes (8 per instruction) */
  char failed[200];             /* in and out: what failed making a fresh /tmp; "" when nothing did */
};

/* The calibration's request (the JSON after the frame's two doubles): a
 * small solve of the kind the cases hold, with lists, floats and ints. */
static const char k_calibration[] =
    "{\"source\":\"def solve(values, scale):\\n    total = 0.0\\n    out = []\\n    for v in values:\\n"
    "        total += v * scale\\n        out.append(total)\\n    return [out, len(values), total > 0]\\n\","
    "\"calls\":[\"[[1, 2.5, -3], 0.5]\",\"[[], 2]\",\"[[4, 5, 6, 7], 1.25]\"],\"seed\":0}";

/* The runs of pages the calibration wrote ({start, end} addresses), which
 * every later child populates; at most k_max_runs of them. Written by the
 * worker once, after the calibration. */
enum { k_max_runs = 4096 };
static uintptr_t g_runs[2 * k_max_runs];
static size_t g_run_count;
/* In the calibration's child: where failmap_learn writes its runs (a
 * shared mapping of the worker's: a count, then the runs); NULL otherwise. */
static uintptr_t* g_learned;

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

/* Landlock (linux/landlock.h; Linux 5.13+) for --sandbox none, where there
 * are no namespaces: the child may read and execute only beneath /usr and
 * read /dev/urandom, and do anything only beneath its scratch folder. The
 * rights handled are every file-system right of the kernel's ABI (1: the
 * thirteen basic ones; 2: refer; 3: truncate; 5: ioctl on devices), and
 * from ABI 4 TCP bind and connect (no rule grants them); an access no rule
 * grants fails with EACCES. Descriptors already open are not affected. The
 * system call numbers are the same on every architecture. */
static int landlock(int abi, const char* workdir) {
  struct {
    uint64_t fs, net;
  } attr = {(1u << 13) - 1, abi >= 4 ? 3 : 0};
  if (abi >= 2) attr.fs |= 1u << 13; /* REFER */
  if (abi >= 3) attr.fs |= 1u << 14; /* TRUNCATE */
  if (abi >= 5) attr.fs |= 1u << 15; /* IOCTL_DEV */
  const long ruleset = syscall(444, &attr, abi >= 4 ? sizeof attr : sizeof attr.fs, 0u);
  if (ruleset < 0) return -1;
  const uint64_t read_exec = (1u << 0) | (1u << 2) | (1u << 3); /* EXECUTE, READ_FILE, READ_DIR */
  const uint64_t file_rights = (1u << 0) | (1u << 1) | (1u << 2) | (abi >= 3 ? 1u << 14 : 0);
  const struct {
    const char* path;
    uint64_t rights;
  } rules[] = {{"/usr", read_exec}, {"/dev/urandom", 1u << 2}, {workdir, attr.fs}};
  int ok = 0;
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; ++i) {
    const int target = open(rules[i].path, O_PATH | O_CLOEXEC);
    if (target < 0) {
      if (rules[i].path == workdir) goto done;
      continue;
    }
    struct stat st;
    uint64_t rights = rules[i].rights;
    if (fstat(target, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= file_rights; /* a file takes file rights only */
    struct __attribute__((packed)) {
      uint64_t allowed;
      int32_t parent_fd;
    } rule = {rights, target};
    const long rc = syscall(445, (int)ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &rule, 0u);
    close(target);
    if (rc != 0) goto done;
  }
  ok = syscall(446, (int)ruleset, 0u) == 0;
done:
  close((int)ruleset);
  return ok ? 0 : -1;
}

/* Closes every descriptor but the standard streams and `keep`. */
static void close_others(int keep) {
  /* close_range(2), Linux 5.9; else the open ones by name. */
  if (syscall(436, 3u, (unsigned)keep - 1, 0u) == 0 && syscall(436, (unsigned)keep + 1, ~0u, 0u) == 0) return;
  DIR* d = opendir("/proc/self/fd");
  if (d == NULL) return;
  const int own = dirfd(d);
  int open_fds[1024];
  size_t n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL && n < sizeof open_fds / sizeof open_fds[0]) {
    const int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd > 2 && fd != keep && fd != own) open_fds[n++] = fd;
  }
  closedir(d);
  for (size_t i = 0; i < n; ++i) close(open_fds[i]);
}

static void set_limit(int kind, rlim_t value) {
  const struct rlimit r = {value, value};
  setrlimit(kind, &r);
}

/* Copies the calibration's pages into this child (see the header). */
static void populate(void) {
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* linux/mman.h, Linux 5.14 */
#endif
  for (size_t i = 0; i < g_run_count; ++i)
    if (madvise((void*)g_runs[2 * i], g_runs[2 * i + 1] - g_runs[2 * i], MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
      return; /* a kernel without it */
}

/* In the calibration's child, once its report is written: lists the pages
 * of its private writable mappings (but the stack) that it wrote, those
 * that /proc/self/pagemap marks present and mapped by this process alone
 * (bits 63 and 56; Documentation/admin-guide/mm/pagemap.rst), into the
 * worker's shared mapping. Does nothing in any other child. */
__attribute__((visibility("default"))) void failmap_learn(void) {
  if (g_learned == NULL) return;
  FILE* maps = fopen("/proc/self/maps", "re");
  const int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  size_t n = 0;
  char line[512];
  while (maps != NULL && pagemap >= 0 && fgets(line, sizeof line, maps) != NULL) {
    unsigned long start, end;
    char perms[5];
    if (sscanf(line, "%lx-%lx %4s", &start, &end, perms) != 3 || perms[1] != 'w' || perms[3] != 'p' ||
        strstr(line, "[stack]") != NULL)
      continue;
    for (uintptr_t at = start; at < end; at += page) {
      uint64_t entry;
      if (pread(pagemap, &entry, sizeof entry, (off_t)(at / page * sizeof entry)) != (ssize_t)sizeof entry) break;
      if (!(entry >> 63 & 1) || !(entry >> 56 & 1)) continue;
      if (n > 0 && g_learned[1 + 2 * (n - 1) + 1] == at) {
        g_learned[1 + 2 * (n - 1) + 1] = at + page;
      } else if (n < k_max_runs) {
        g_learned[1 + 2 * n] = at;
        g_learned[1 + 2 * n + 1] = at + page;
        ++n;
      }
    }
  }
  g_learned[0] = n;
  if (maps != NULL) fclose(maps);
  if (pagemap >= 0) close(pagemap);
}

/* The child's part before Python runs again: reads the request frame (a
 * 4-byte big-endian length, then the CPU budget and the wall safety net as
 * big-endian doubles, then the request's JSON text), sends the start
 * signal on `w`, and confines the process. Returns the Python tuple
 * (w, JSON text as bytes, None, calibrating), or (w, None, what could not
 * be done, False) when a step of the confinement failed (the candidate must
 * not run). Ends the process with status 3 when failmap has closed its
 * pipe. The calibration's child takes this file's request instead of
 * failmap's and is not confined (it runs this file's code alone, and
 * reads /proc/self, which Landlock would refuse). */
static PyObject* child_prologue(struct failmap_loop* loop, int w, int calibrating) {
  const char* problem = NULL;
  /* No capabilities, not even in the sandbox's user namespace (capset,
   * version 3, pid 0, every set empty): the worker's CAP_SYS_ADMIN is not
   * the candidate's. */
  struct {
    uint32_t version;
    int32_t pid;
  } cap_header = {0x20080522, 0};
  uint32_t cap_data[6] = {0};
  if (syscall(SYS_capset, &cap_header, cap_data) != 0)
    problem = "the sandbox could not drop the candidate's capabilities";
  /* The request is read here, in the candidate's own process: no other
   * process of the sandbox ever holds it. */
  uint32_t n = 16 + (uint32_t)strlen(k_calibration);
  char* frame;
  if (calibrating) {
    frame = malloc(n);
    if (frame == NULL) _exit(3);
    unsigned char times[16];
    put_be_double(times, 10.0);
    put_be_double(times + 8, 55.0); /* failmap's rule: 5 x the budget + 5 s */
    memcpy(frame, times, 16);
    memcpy(frame + 16, k_calibration, n - 16);
  } else {
    unsigned char head[4];
    if (read_full(loop->in_fd, head, sizeof head) != (ssize_t)sizeof head) _exit(3);
    n = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
    frame = malloc(n > 0 ? n : 1);
    if (frame == NULL || n < 16 || read_full(loop->in_fd, frame, n) != (ssize_t)n) _exit(3);
  }
  unsigned char started[17];
  started[0] = 'R';
  memcpy(started + 1, frame, 16);
  const double budget = get_be_double((const unsigned char*)frame);
  if (write_all(w, started, sizeof started) != 0) _exit(3);
  /* Nothing of the worker is left within reach: only the result pipe. */
  for (int std = 0; std < 3; ++std) dup2(loop->null_fd, std);
  close_others(w);
  if (calibrating) problem = NULL;
  if (problem == NULL && !calibrating && loop->failed[0] != '\0') {
    static char why[300];
    snprintf(why, sizeof why, "the sandbox could not make the candidate's fresh /tmp: %s", loop->failed);
    problem = why;
  }
  if (problem == NULL && !calibrating) {
    if (chdir(loop->workdir) != 0) {} /* a missing folder shows as the candidate's own errors */
    /* A backstop: the worker ends the child at the budget itself. */
    set_limit(RLIMIT_CPU, (rlim_t)budget + 2);
    set_limit(RLIMIT_AS, (rlim_t)loop->memory_bytes);
    set_limit(RLIMIT_FSIZE, (rlim_t)loop->file_bytes);
    set_limit(RLIMIT_NOFILE, (rlim_t)loop->open_files);
    set_limit(RLIMIT_NPROC, (rlim_t)loop->processes);
    set_limit(RLIMIT_CORE, 0);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
      problem = "the sandbox could not set no_new_privs";
    } else if (loop->landlock_abi > 0 && landlock((int)loop->landlock_abi, loop->workdir) != 0) {
      /* The result says "none+landlock": never run the candidate unconfined. */
      problem = "the sandbox could not confine the candidate with Landlock";
    } else if (loop->seccomp != NULL && loop->seccomp_bytes > 0) {
      struct {
        unsigned short len;
        const void* filter;
      } prog = {(unsigned short)(loop->seccomp_bytes / 8), loop->seccomp};
      if (prctl(PR_SET_SECCOMP, 2 /* SECCOMP_MODE_FILTER */, &prog, 0, 0) != 0)
        problem = "the sandbox could not install its seccomp filter";
    }
  }
  PyObject* fd = PyLong_FromLong(w);
  PyObject* text =
      problem != NULL ? PyUnicode_FromString(problem) : PyBytes_FromStringAndSize(frame + 16, (ssize_t)n - 16);
  free(frame);
  PyObject* flag = PyBool_FromLong(calibrating);
  if (fd == NULL || text == NULL || flag == NULL) return NULL; /* MemoryError is set */
  return problem != NULL ? PyTuple_Pack(4, fd, &_Py_NoneStruct, text, flag)
                         : PyTuple_Pack(4, fd, text, &_Py_NoneStruct, flag);
}

/* Serves candidates until failmap closes its pipe. Returns, in each child,
 * what child_prologue returns (the caller runs the candidate and ends with
 * os._exit); in the worker, None when failmap is done or the report pipe to
 * it is gone, or NULL with OSError set when a pipe, fork or mapping failed.
 * Called through ctypes.PyDLL with restype py_object, which takes its own
 * reference to what is returned: the one returned here is never released,
 * in a process that ends soon after. */
__attribute__((visibility("default"))) PyObject* failmap_serve(struct failmap_loop* loop) {
  const size_t cap = (size_t)loop->output_bytes;
  int mounted = 0;
  /* The first child is the calibration (see the header). */
  const size_t learned_bytes = (1 + 2 * k_max_runs) * sizeof(uintptr_t);
  uintptr_t* learned = mmap(NULL, learned_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int calibrating = learned != MAP_FAILED;
  /* Set while the calibration's child is forked: the child learns into it. */
  g_learned = calibrating ? learned : NULL;
  for (;;) {
    if (loop->fresh_tmp) {
      if (loop->failed[0] == '\0') fresh_tmp(loop, &mounted);
    } else {
      mkdir(loop->workdir, 0700);
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return PyErr_SetFromErrno(PyExc_OSError);
    PyOS_BeforeFork();
    pid_t pid = fork();
    if (pid == 0) {
      if (!calibrating) populate();
      PyOS_AfterFork_Child();
      close(p[0]);
      return child_prologue(loop, p[1], calibrating);
    }
    const int fork_errno = errno;
    PyOS_AfterFork_Parent();
    close(p[1]);
    if (pid < 0) {
      close(p[0]);
      errno = fork_errno;
      return PyErr_SetFromErrno(PyExc_OSError);
    }
    const int r = p[0];
    unsigned char started[17];
    if (read_full(r, started, sizeof started) != (ssize_t)sizeof started || started[0] != 'R') {
      /* failmap closed its pipe (or the child could not read it): done. */
      close(r);
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
      if (calibrating) { /* the calibration failed: serve without it */
        munmap(learned, learned_bytes);
        g_learned = NULL;
        calibrating = 0;
        continue;
      }
      return &_Py_NoneStruct;
    }
    const double budget = get_be_double(started + 1), wall = get_be_double(started + 9);
    /* The report lands in a mapping of its own, unmapped once written out:
     * no candidate's bytes stay in this process for the next fork. */
    char* area = mmap(NULL, cap + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (area == MAP_FAILED) {
      const int map_errno = errno;
      kill(pid, SIGKILL);
      close(r);
      while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
      errno = map_errno;
      return PyErr_SetFromErrno(PyExc_OSError);
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
    if (calibrating) { /* nothing to answer: keep its runs */
      const size_t n = learned[0] < k_max_runs ? (size_t)learned[0] : k_max_runs;
      memcpy(g_runs, learned + 1, n * 2 * sizeof(uintptr_t));
      g_run_count = n;
      munmap(learned, learned_bytes);
      munmap(area, cap + 1);
      g_learned = NULL;
      calibrating = 0;
      continue;
    }
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
    if (!sent) return &_Py_NoneStruct;
  }
}
