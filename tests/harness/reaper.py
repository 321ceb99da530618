"""Runs a command as a child subreaper and counts the processes it leaves.

    python3 reaper.py SECONDS CMD [ARG...]

The reaper marks itself PR_SET_CHILD_SUBREAPER (prctl(2), Linux 3.4), so a
process the command started and did not wait for is reparented to it, not to
init: what it finds is exactly what this command left, whatever else runs on
the machine. When the command exits, the reaper waits up to SECONDS for its
leftovers to end (a killed sandbox's last processes can take a moment), then
kills and counts those still alive. Exit status: the command's own, or 98 when
it left processes behind (their count and names on stderr), or 97 when the
reaper itself could not start (no prctl).
"""
import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def descendants():
    # The reaper's children after the command ended: all of them are leftovers.
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                text = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        comm = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        if int(fields[1]) == me and fields[0] != "Z":
            found.append((int(name), comm))
    return found


def main():
    grace, cmd = float(sys.argv[1]), sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("reaper: prctl(PR_SET_CHILD_SUBREAPER) failed", file=sys.stderr)
        return 97
    status = subprocess.call(cmd)
    deadline = time.monotonic() + grace
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        left = descendants()
        if not left or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if left:
        print(f"reaper: {len(left)} process(es) left running: " + ", ".join(f"{p} {c}" for p, c in left),
              file=sys.stderr)
        return 98
    return status


sys.exit(main())
