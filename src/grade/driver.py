# failmap's candidate driver: with its fork loop (src/grade/forkloop.c), the
# only failmap code that runs inside the sandbox (src/grade/sandbox.h,
# schema/GRADING.md "The sandbox").
#
# One process of this script serves one `failmap grade` worker, for many
# candidates: it starts once (a warm interpreter with the standard modules a
# candidate is likely to import already loaded), then hands itself to the
# fork loop, which runs no Python between candidates and forks a fresh child
# per candidate, before that candidate's request exists: the child reads its own
# request from failmap's pipe, so this process never holds a byte of any
# candidate's source, arguments or report (reports pass through a mapping of
# its own, unmapped after each candidate), and no child can find another
# candidate's bytes in the memory it inherits. Before the child runs any
# Python, the fork loop (C, in the child) reads the request, closes every
# descriptor but the child's own result pipe, sends its standard streams to
# /dev/null, finds fresh writable places (in bubblewrap: a new, empty tmpfs
# on /tmp that the worker mounted for it alone, in the worker's own mount
# namespace, and unmounts once the child has ended), drops every
# capability, lowers its resource limits and installs Landlock (--sandbox
# none) and the seccomp filter failmap compiled (no fork, exec, signals to
# others, ptrace, sockets, mounts). (The worker's first child is the fork
# loop's calibration: this file runs the loop's own request in it, then
# calls failmap_learn; see forkloop.c's header.) This file then seeds
# `random` with the seed failmap sends, and only then compiles and runs the
# candidate's source. It calls `solve` once per call of the request, in the
# request's order, with its arguments (decoded from JSON afresh for every
# call, as the reference script evaluates them afresh), and writes what each
# call returned, or the exception it raised, to its pipe.
# It never sees an expected value, a check label, the archive or the repair:
# failmap compares, builds the observation and decides the verdict. Whatever
# the candidate does to its process, the most it can do is report other
# values, which is no more than a different `solve` could return.
#
# Frames on fd 3 (from failmap) and fd 4 (to failmap): a 4-byte big-endian
# length, then that many bytes. The first frame from failmap is the JSON
# configuration; each later one a request: this candidate's CPU budget and
# its wall safety net (seconds, big-endian IEEE 754 doubles), then the JSON
# text {"source": str, "calls": [JSON text of each call's argument list],
# "seed": int}. The child hands the budget and safety net to the worker with
# its start signal: b"R" and the two doubles. Each answer is two
# frames: a status record of 19 bytes, struct ">iiBBBd": the exit status
# and the signal that ended the child (-1: none), three flags (timeout: the
# CPU budget or the wall safety net reached; wall: the wall safety net;
# overflow: the report passed output_bytes) and the user + system CPU
# seconds of the child; then the child's raw report (at most output_bytes of
# it). A fixed record rather than JSON: the worker touches fewer pages after
# each fork (each one a copy-on-write fault).
#
# The report is a sequence of records, each ending in "\n":
#   V<i>:<value>   call i returned <value>
#   X<i>:<str>     call i raised: "TypeName: message"
#   T<i>:<str>     call i returned a value that is not of an exact JSON type
#                  or is beyond a limit (depth, elements, list length)
#   M<i>           call i ran out of memory (nothing follows)
#   S<str>         the source does not compile (nothing follows)
#   L<str>         running the source's body raised, or it defines no solve
#   D              every call was made
# Values: n (None), t, f, i<decimal>; (int64), d<repr>; (float), s<n>:<n UTF-8
# bytes>, l<n>: then n values, m<n>: then n (s-key, value) pairs (a dict).
import builtins, gc, json, os, signal, struct, sys

# Modules a candidate may import, loaded once so each child inherits them.
# `random` registers a reseed from os.urandom to run in every forked child
# (os.register_at_fork); each child here seeds `random` itself, from
# failmap's seed, before the candidate runs, so that reseed would be work
# thrown away. It is not registered: no other module of this set registers
# a fork handler.
_register_at_fork = os.register_at_fork
os.register_at_fork = lambda **handlers: None
import bisect, collections, copy, dataclasses, decimal, fractions, functools, heapq, itertools, math, numbers
import operator, random, re, statistics, string, typing
import ctypes
os.register_at_fork = _register_at_fork
del _register_at_fork

_FD_IN, _FD_OUT = 3, 4
# The limits failmap reads reports with (src/grade/report.h): a value
# beyond one is refused here, by name, rather than broken off there.
# Values are counted as failmap counts them: every value once, a list or
# dict as one plus its elements (and a dict's keys).
_MAX_DEPTH = 64
_MAX_ELEMENTS = 1_000_000
_MAX_LIST = 1_000_000
_TOO_MANY = f"a value of more than {_MAX_ELEMENTS} values in all (each list and dict counts as one, plus its elements)"
_STDLIB_ONLY = ("the cases' contract is the Python standard library alone (schema/GRADING.md "
                "\"The sandbox\"): module {!r} is not part of it")
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 63) - 1
# JSON texts from failmap (the request, each call's arguments) are read by
# json's C scanner directly: the value json.loads gives for a text that is
# one value with no space around it, as failmap writes them, without the
# Python layers of json.loads, each of whose objects a child would write to
# (a copy-on-write fault per page) on its first call.
_scan = (json.scanner.c_make_scanner or json.scanner.py_make_scanner)(json.decoder.JSONDecoder())


def _read_exact(n):
    chunks, left = [], n
    while left:
        b = os.read(_FD_IN, left)
        if not b:
            return None
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def _read_frame():
    head = _read_exact(4)
    if head is None:
        return None
    (n,) = struct.unpack(">I", head)
    return _read_exact(n)


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class _Refused(Exception):
    pass


def _encode(v, out, depth, count):
    t = type(v)
    count[0] += 1
    if count[0] > _MAX_ELEMENTS:
        raise _Refused(_TOO_MANY)
    if v is None:
        out.append(b"n")
    elif t is bool:
        out.append(b"t" if v else b"f")
    elif t is int:
        if not _INT_MIN <= v <= _INT_MAX:
            raise _Refused("an int outside the 64-bit range failmap compares")
        out.append(b"i%d;" % v)
    elif t is float:
        out.append(b"d" + float.__repr__(v).encode("ascii") + b";")
    elif t is str:
        try:
            b = v.encode("utf-8")
        except UnicodeEncodeError:
            raise _Refused("a str holding a lone surrogate (no UTF-8 spelling)") from None
        out.append(b"s%d:" % len(b))
        out.append(b)
    elif t is list or t is dict:
        if depth >= _MAX_DEPTH:
            raise _Refused(f"a value nested deeper than {_MAX_DEPTH} levels")
        if t is list:
            n = len(v)
            if n > _MAX_LIST:
                raise _Refused(f"a list of more than {_MAX_LIST} elements")
            out.append(b"l%d:" % n)
            if n > 8:
                # A list of ints or of floats alone (the usual large value)
                # is spelt at C speed: the same bytes as element by element.
                kinds = set(map(type, v))
                kind = kinds.pop() if len(kinds) == 1 else None
                if kind is int or kind is float:
                    if count[0] + n > _MAX_ELEMENTS:
                        raise _Refused(_TOO_MANY)
                    if kind is int and (min(v) < _INT_MIN or max(v) > _INT_MAX):
                        raise _Refused("an int outside the 64-bit range failmap compares")
                    count[0] += n
                    tag, spell = ("i", int.__repr__) if kind is int else ("d", float.__repr__)
                    out.append((tag + (";" + tag).join(map(spell, v)) + ";").encode("ascii"))
                    return
            for x in list.__iter__(v):
                _encode(x, out, depth + 1, count)
        else:
            out.append(b"m%d:" % len(v))
            for k, x in dict.items(v):
                if type(k) is not str:
                    raise _Refused(f"a dict with a key of type {type(k).__name__} (json.dumps would turn it into a str)")
                _encode(k, out, depth + 1, count)
                _encode(x, out, depth + 1, count)
    else:
        raise _Refused(f"a value of type {t.__name__}: only int, float, bool, None, str, list and dict are compared")


def _text(s):
    b = s.encode("utf-8", "backslashreplace")
    return b"s%d:" % len(b) + b


def _describe(e):
    try:
        message = str(e)
    except BaseException:
        message = "(its message could not be printed)"
    name = type(e).__name__
    text = f"{name}: {message}" if message else name
    return text[:1000]


_CLONE_NEWNS = 0x00020000


def _own_mounts(libc):
    # The worker's mount namespace of its own (bubblewrap grants it
    # CAP_SYS_ADMIN in the sandbox's user namespace for this alone): its
    # mounts on /tmp are seen by no other worker. Returns None, or what failed.
    if libc.unshare(_CLONE_NEWNS) != 0:
        return "unshare(CLONE_NEWNS)"
    return None


def _missing_module(e):
    # "ModuleNotFoundError: No module named 'numpy'", and why, when the
    # module is not one of the standard library's.
    name = (getattr(e, "name", None) or "").partition(".")[0]
    if name and name not in sys.stdlib_module_names:
        return _describe(e) + " (" + _STDLIB_ONLY.format(name) + ")"
    return None


def _child(fd, request, problem, cap):
    # The fork loop has read this candidate's request in this process (no
    # other process of the sandbox ever holds it), sent the start signal
    # and confined the process; `problem` says what of that could not be
    # done, and then the candidate does not run.
    if problem is not None:
        _write_all(fd, b"L" + _text(problem) + b"\n")
        return
    request = _scan(request.decode(), 0)[0]
    # The one state a candidate starts from besides its source: `random`
    # seeded by failmap from the case and the source (schema/GRADING.md
    # "Seeds").
    random.seed(request["seed"])
    write = os.write
    source, calls = request["source"], request["calls"]
    del request
    scan = _scan
    try:
        code = compile(source, "<candidate>", "exec", dont_inherit=True)
    except BaseException as e:
        write(fd, b"S" + _text(_describe(e)) + b"\n")
        return
    namespace = {"__name__": "__candidate__", "__builtins__": builtins}
    try:
        exec(code, namespace)
    except MemoryError:
        write(fd, b"L" + _text("MemoryError while running the source's body") + b"\n")
        return
    except ModuleNotFoundError as e:
        why = _missing_module(e)
        write(fd, (b"I" + _text(why) if why else b"L" + _text(_describe(e))) + b"\n")
        return
    except BaseException as e:
        write(fd, b"L" + _text(_describe(e)) + b"\n")
        return
    solve = namespace.get("solve")
    if not callable(solve):
        write(fd, b"L" + _text("the source defines no callable solve") + b"\n")
        return
    written = 0
    for i, args_text in enumerate(calls):
        if written > cap:
            return  # the worker reports the overflow; no use encoding more
        args = scan(args_text, 0)[0]
        try:
            value = solve(*args)
        except MemoryError:
            _write_all(fd, b"M%d\n" % i)
            return
        except ModuleNotFoundError as e:
            record = b"X%d:" % i + _text(_missing_module(e) or _describe(e)) + b"\n"
            _write_all(fd, record)
            written += len(record)
            continue
        except BaseException as e:
            record = b"X%d:" % i + _text(_describe(e)) + b"\n"
            _write_all(fd, record)
            written += len(record)
            continue
        out = [b"V%d:" % i]
        try:
            _encode(value, out, 0, [0])
        except _Refused as e:
            _write_all(fd, b"T%d:" % i + _text(str(e)) + b"\n")
            continue
        except MemoryError:
            _write_all(fd, b"M%d\n" % i)
            return
        except BaseException as e:
            _write_all(fd, b"T%d:" % i + _text("the value could not be read: " + _describe(e)) + b"\n")
            continue
        out.append(b"\n")
        record = b"".join(out)
        del out
        _write_all(fd, record)
        written += len(record)
    _write_all(fd, b"D\n")


def _serve():
    config = json.loads(_read_frame())
    # The environment is PATH and PYTHONHASHSEED alone (what failmap and
    # bubblewrap set); drop what the interpreter and bubblewrap add
    # (LC_CTYPE of the C locale's coercion, PWD).
    for name in list(os.environ):
        if name not in ("PATH", "PYTHONHASHSEED"):
            del os.environ[name]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no /proc/PID/mem of this process for a child
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    # The loop between candidates is C (src/grade/forkloop.c), sent by
    # failmap with the configuration: this process runs no Python between
    # two forks, so the warm heap every child forks from is never copied
    # page by page while a child shares it.
    image = os.memfd_create("failmap-forkloop", os.MFD_CLOEXEC)
    _write_all(image, bytes.fromhex(config["fork_loop"]))
    library = ctypes.PyDLL(f"/proc/self/fd/{image}", use_errno=True)
    serve, learn = library.failmap_serve, library.failmap_learn
    os.close(image)

    class Loop(ctypes.Structure):
        _fields_ = [("in_fd", ctypes.c_int32), ("out_fd", ctypes.c_int32), ("null_fd", ctypes.c_int32),
                    ("fresh_tmp", ctypes.c_int32), ("output_bytes", ctypes.c_int64),
                    ("memory_bytes", ctypes.c_int64), ("file_bytes", ctypes.c_int64),
                    ("open_files", ctypes.c_int64), ("processes", ctypes.c_int64), ("landlock_abi", ctypes.c_int64),
                    ("tmp_options", ctypes.c_char_p), ("workdir", ctypes.c_char_p), ("seccomp", ctypes.c_char_p),
                    ("seccomp_bytes", ctypes.c_int64), ("failed", ctypes.c_char * 200)]

    fresh = config["fresh_tmp"]
    failed = _own_mounts(libc) if fresh else None
    options = b"size=%d,nr_inodes=%d,mode=0700" % (config["tmp_bytes"], config["tmp_inodes"])
    # The seccomp program failmap compiled (struct sock_filter[], 8 bytes
    # each); the loop installs it in each child.
    seccomp = bytes.fromhex(config["seccomp_bpf"])
    # /dev/null opened once; each child makes it its standard streams.
    null = os.open("/dev/null", os.O_RDWR)
    loop = Loop(_FD_IN, _FD_OUT, null, 1 if fresh else 0, config["output_bytes"], config["memory_bytes"],
                config["file_bytes"], config["open_files"], config["processes"], config["landlock_abi"], options,
                config["workdir"].encode(), seccomp or None, len(seccomp), (failed or "").encode())
    serve.argtypes = [ctypes.POINTER(Loop)]
    serve.restype = ctypes.py_object
    learn.argtypes, learn.restype = [], None
    del config["fork_loop"]
    gc.collect()
    gc.freeze()  # fork shares the warm heap; no copy for a collection in the child
    child = serve(ctypes.byref(loop))  # OSError when a pipe, fork or mapping failed
    if child is None:
        return  # failmap closed its pipe: done
    # A fresh child, its request read and its process confined; or the
    # worker's calibration (forkloop.c's header), which lists the pages it
    # wrote once its report is written.
    fd, request, problem, calibrating = child
    try:
        _child(fd, request, problem, config["output_bytes"])
        if calibrating:
            learn()
    finally:
        os._exit(0)


_serve()
