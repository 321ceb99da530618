# --sandbox none has no namespaces: a candidate
# could write wherever the user can, the archive file included, even with
# --no-record. Where the kernel has Landlock, each candidate's process
# confines itself before the candidate runs: it may read only /usr and write
# only its own temporary folder. The candidate below tries to append to the
# archive, to create files in $HOME and in the working folder, and to read
# the archive; each attempt's outcome is its return value (FA-98921's solve
# is solve(batch_sizes, target); the observation shows what it returned).
# Without Landlock the scenario skips itself: it cannot be confined there.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
mkdir home && export HOME_DIR=$PWD/home WORK=$PWD ARCHIVE=$FAILMAP_DB
python3 - <<'PY'
import json, os
attempts = [
    ("append to the archive", f"open({os.environ['ARCHIVE']!r}, 'ab').write(b'owned')"),
    ("create in $HOME", f"open({os.environ['HOME_DIR'] + '/planted'!r}, 'w').write('x')"),
    ("create in the cwd", f"open({os.environ['WORK'] + '/planted'!r}, 'w').write('x')"),
    ("read the archive", f"open({os.environ['ARCHIVE']!r}, 'rb').read(16)"),
    ("write its own folder", "open('mine', 'w').write('x')"),
]
body = "def solve(batch_sizes, target):\n    out = []\n"
for what, stmt in attempts:
    body += f"    try:\n        {stmt}\n        out.append({what!r} + ': done')\n"
    body += f"    except OSError as e:\n        out.append({what!r} + ': ' + type(e).__name__)\n"
body += "    return out\n"
open("escape.jsonl", "w").write(json.dumps({"case": "FA-98921", "model": "escape", "source": body}) + "\n")
PY
before=$(sha256sum "$FAILMAP_DB")
expect_status 0 "$FAILMAP" grade escape.jsonl --out graded --sandbox none --no-record --jobs 1
# The kernel's Landlock ABI (landlock_create_ruleset(NULL, 0, VERSION), syscall 444), asked apart from failmap.
abi=$(python3 -c 'import ctypes; l = ctypes.CDLL(None); l.syscall.restype = ctypes.c_long; print(max(0, l.syscall(444, None, 0, 1)))')
sandbox=$(python3 -c 'import json; print(json.loads(open("graded/results.jsonl").readline())["sandbox"])')
if [ "$abi" = 0 ]; then
  [ "$sandbox" = none ] || fail "no Landlock here, yet the result says sandbox $sandbox"
  expect_error_mentions "a candidate can read and write every file this user can"
  echo "SKIP: $(basename "$script"): this kernel has no Landlock, so --sandbox none cannot confine the candidate's file access (the warning says so)"
  exit 77
fi
[ "$sandbox" = "none+landlock" ] || fail "sandbox: $sandbox"
expect_error_mentions "--sandbox none: no namespaces; candidates run with resource limits, seccomp and Landlock"
[ "$(sha256sum "$FAILMAP_DB")" = "$before" ] || fail "the candidate changed the archive file"
[ ! -e home/planted ] && [ ! -e planted ] || fail "the candidate created a file outside its folder"
python3 - graded/results.jsonl <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
assert r["error"] is None, r["error"]
actual = json.loads(r["observation"])["observations"][0]["actual"]
assert actual == ["append to the archive: PermissionError", "create in $HOME: PermissionError",
                  "create in the cwd: PermissionError", "read the archive: PermissionError",
                  "write its own folder: done"], actual
assert json.load(open("graded/summary.json"))["sandbox"] == "none+landlock"
print("landlock: every write outside the candidate's folder refused")
PY
