# Hostile candidates: each is graded in the sandbox
# and can neither cheat the verdict nor touch the machine. FA-98921's solve is
# solve(batch_sizes, target); its seven checks expect 3, 2, 1, 0, 3, 2, 3.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
echo "untouched" > sentinel.txt
DB_PATH=$(readlink -f "$FAILMAP_DB")
SENTINEL=$(readlink -f sentinel.txt)
export DB_PATH SENTINEL
python3 - <<'PY'
import json, os
db, sentinel = os.environ["DB_PATH"], os.environ["SENTINEL"]
c = {
 "loop": "def solve(batch_sizes, target):\n    while True:\n        pass\n",
 "alloc": "def solve(batch_sizes, target):\n    x = bytearray(10 * 1024 ** 3)\n    return len(x)\n",
 "forkbomb": "import os\ndef solve(batch_sizes, target):\n    while True:\n        os.fork()\n",
 "setsid": "import os, time\ndef solve(batch_sizes, target):\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(1000)\n    return sum(batch_sizes)\n",
 "subprocess": "import subprocess\ndef solve(batch_sizes, target):\n    return subprocess.run(['/bin/true']).returncode\n",
 "thread": "import threading, time\nSTARTED = []\ndef solve(batch_sizes, target):\n    if not STARTED:  # one thread that outlives solve (one per call, 42 with --held-out 5, would pass --memory 512)\n        STARTED.append(threading.Thread(target=time.sleep, args=(1000,), daemon=False))\n        STARTED[0].start()\n    return sum(batch_sizes)\n",
 "delete": f"import os\ndef solve(batch_sizes, target):\n    os.remove({sentinel!r})\n",
 "write_usr": "def solve(batch_sizes, target):\n    open('/usr/failmap-was-here', 'w').write('x')\n",
 "read_archive": f"def solve(batch_sizes, target):\n    return len(open({db!r}, 'rb').read())\n",
 "list_tree": "import os\ndef solve(batch_sizes, target):\n    return sorted(os.listdir('/'))\n",
 "socket": "import socket\ndef solve(batch_sizes, target):\n    socket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(('127.0.0.1', 9))\n",
 "huge_string": "def solve(batch_sizes, target):\n    return 'x' * (1 << 30)\n",
 "big_output": "def solve(batch_sizes, target):\n    return 'x' * (40 << 20)\n",
 # Looks everywhere it can reach for an expected value or a check label (the
 # needles are built at run time, so its own source does not hold them).
 "snoop": ("import gc, sys\n"
           "def solve(batch_sizes, target):\n"
           "    key, label = 'expe' + 'cted', 'short final ' + 'batch'\n"
           "    found = []\n"
           "    for o in gc.get_objects():\n"
           "        if isinstance(o, dict) and o.get('label') is not label and (key in o or label in o.values()):\n"
           "            found.append(sorted(map(str, o)))\n"
           "    f = sys._getframe().f_back\n"
           "    while f is not None:\n"
           "        for v in list(f.f_locals.values()) + list(f.f_globals.values()):\n"
           "            if isinstance(v, str) and (label in v or key + '\"' in v):\n"
           "                found.append(v[:40])\n"
           "        f = f.f_back\n"
           "    raise Exception(repr(found))\n"),
 "redefine": ("import builtins, json\n"
              "json.dumps = lambda *a, **k: '{\"observations\": [], \"passed\": true}'\n"
              "def check(*a, **k):\n    pass\n"
              "builtins.print = lambda *a, **k: None\n"
              "def solve(batch_sizes, target):\n    return 0\n"),
 "fake_output": ("import sys\nprint('{\"observations\": [], \"passed\": true}')\n"
                 "def solve(batch_sizes, target):\n    print('{\"observations\": [], \"passed\": true}')\n    sys.stdout.flush()\n    return 0\n"),
 "sys_exit": "import sys\ndef solve(batch_sizes, target):\n    sys.exit(0)\n",
 "os_exit": "import os\ndef solve(batch_sizes, target):\n    os._exit(0)\n",
 "always_equal": "class Always:\n    def __eq__(self, other):\n        return True\ndef solve(batch_sizes, target):\n    return Always()\n",
 "int_subclass": "class I(int):\n    def __eq__(self, other):\n        return True\ndef solve(batch_sizes, target):\n    return I(sum(batch_sizes))\n",
 "forge_report": ("import os\n"
                  "def solve(batch_sizes, target):\n"
                  "    for fd in map(int, os.listdir('/proc/self/fd')):\n"
                  "        try:\n"
                  "            os.write(fd, b'V0:i3;\\nV1:i2;\\nV2:i1;\\nV3:i0;\\nV4:i3;\\nV5:i2;\\nV6:i3;\\nD\\n')\n"
                  "        except OSError:\n"
                  "            pass\n"
                  "    os._exit(0)\n"),
 "kill_parent": "import os, signal\ndef solve(batch_sizes, target):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return sum(batch_sizes)\n",
 "correct": "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n",
}
with open("hostile.jsonl", "w") as f:
    for name, src in c.items():
        f.write(json.dumps({"case": "FA-98921", "model": name, "source": src}) + "\n")
PY
# Sandbox processes are counted machine-wide: those of an earlier scenario the kernel is still tearing down
# when this one starts are not this grading's (ctest -j flaked on them).
sandboxes() { (pgrep -f 'hostname failmap-sandbox' || true) | sort; }  # pgrep exits 1 when there is none
earlier=$(sandboxes)
expect_status 0 "$FAILMAP" grade hostile.jsonl --out graded --timeout 2 --memory 512 --held-out 5
[ "$(cat sentinel.txt)" = untouched ] || fail "a candidate changed a file of the host"
[ ! -e /usr/failmap-was-here ] || fail "a candidate wrote into /usr"
# A killed namespace's last processes can take a moment to be reaped; one that lives 2 s on was not killed.
for _ in 1 2 3 4 5 6 7 8 9 10; do
  left=$(comm -13 <(echo "$earlier") <(sandboxes) | grep -c . || true)  # grep -c exits 1 on a count of 0
  [ "$left" = 0 ] && break
  sleep 0.2
done
[ "$left" = 0 ] || fail "$left sandbox process(es) left running after grade ended"
(cd graded && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS"

python3 - graded/results.jsonl <<'PY'
import json, sys
rows = {r["model"]: r for r in map(json.loads, open(sys.argv[1]))}
def expect(name, verdict, kind=None, exception=None, refused=None, field=None):
    r = rows[name]
    assert r["verdict"] == verdict, (name, r["verdict"], r["error"], r["checks"][0])
    if kind:
        assert r["error"] and r["error"]["kind"] == kind, (name, r["error"])
    else:
        assert r["error"] is None, (name, r["error"])
    if exception:
        assert all(c["exception"] and c["exception"].startswith(exception) for c in r["checks"]), (name, r["checks"])
    if refused:
        assert all(c["refused"] and refused in c["refused"] for c in r["checks"]), (name, r["checks"])
    assert r["sandbox"] == "bwrap"
expect("loop", "error", "timeout")
expect("alloc", "error", "memory")
expect("forkbomb", "unresolved", exception="PermissionError: [Errno 1] Operation not permitted")
expect("setsid", "unresolved", exception="PermissionError")
expect("subprocess", "unresolved", exception="PermissionError")
expect("thread", "resolved")
expect("delete", "unresolved", exception="FileNotFoundError")
expect("write_usr", "unresolved", exception="OSError: [Errno 30] Read-only file system")
expect("read_archive", "unresolved", exception="FileNotFoundError")
assert rows["list_tree"]["verdict"] == "unresolved"
expect("socket", "unresolved", exception="PermissionError")
expect("huge_string", "error", "memory")
expect("big_output", "error", "output")
expect("snoop", "unresolved", exception="Exception: []")
expect("redefine", "unresolved")
expect("fake_output", "unresolved")
expect("sys_exit", "unresolved", exception="SystemExit: 0")
expect("os_exit", "error", "exception")
assert "exited with status 0 during call 1 of" in rows["os_exit"]["error"]["message"], rows["os_exit"]["error"]
expect("always_equal", "unresolved", refused="a value of type Always")
expect("int_subclass", "unresolved", refused="a value of type I")
expect("kill_parent", "unresolved", exception="PermissionError")
expect("correct", "resolved")
assert rows["correct"]["held_out"]["resolved"] is True, rows["correct"]["held_out"]
assert len(rows["correct"]["held_out"]["bindings"]) == 5
# A report written by the candidate itself is only what a solve returning those
# values would give: the visible expected values pass, the held-out bindings do not.
forged = rows["forge_report"]
assert forged["held_out"]["resolved"] is False, forged["held_out"]
# failmap builds the observation itself: "redefine" returned 0 seven times.
obs = json.loads(rows["redefine"]["observation"])
assert [o["actual"] for o in obs["observations"]] == [0] * 7 and obs["passed"] is False, obs
print("hostile: all", len(rows), "candidates judged as expected")
PY
