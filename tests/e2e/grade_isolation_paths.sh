# Nothing a candidate writes reaches another candidate: every place a candidate
# can write is fresh and empty for each one, whatever the one before wrote or
# how full it left it. All at --jobs 1, so that both candidates of a pair run
# in the same worker, one after the other; results.jsonl is the same for
# --jobs 1, 2 and 4. FA-98921's solve is solve(batch_sizes, target); a
# check's actual value in the observation is what solve returned.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
python3 - <<'PY'
import json
paths = ["/tmp/x", "/dev/shm/x", "/var/tmp/x", "/run/x", "/x", "/dev/x", "/usr/x", "x", "/tmp/candidate/x"]
writer = ("def solve(batch_sizes, target):\n"
          "    wrote = []\n"
          f"    for p in {paths!r}:\n"
          "        try:\n"
          "            with open(p, 'w') as f:\n"
          "                f.write('left by the writer')\n"
          "            wrote.append(p)\n"
          "        except OSError:\n"
          "            pass\n"
          "    return wrote\n")
reader = ("import os\n"
          "def solve(batch_sizes, target):\n"
          f"    return [p for p in {paths!r} if os.path.exists(p)] + sorted(os.listdir('/tmp')) + sorted(os.listdir('.'))\n")
# The filler takes every byte of /tmp it can and keeps it; the candidate after
# it needs 12 MiB of its 16 MiB /tmp for a cache and returns the sum of its batch sizes.
filler = ("def solve(batch_sizes, target):\n"
          "    n = 0\n"
          "    try:\n"
          "        while True:\n"
          "            with open('/tmp/fill-%d' % n, 'wb') as f:\n"
          "                f.write(b'x' * (1 << 19))\n"
          "            n += 1\n"
          "    except OSError:\n"
          "        pass\n"
          "    return n >= 16\n")
needy = ("import os\n"
         "def solve(batch_sizes, target):\n"
         "    for k in range(12):  # files of at most 1 MiB each (RLIMIT_FSIZE)\n"
         "        with open('/tmp/cache-%d' % k, 'wb') as f:\n"
         "            f.write(b'c' * ((1 << 20) - 4096))\n"
         "    assert sum(os.path.getsize('/tmp/cache-%d' % k) for k in range(12)) == 12 * ((1 << 20) - 4096)\n"
         "    return sum(batch_sizes)\n")
# Every directory in which it can make a folder, every file it can open for
# writing (links not followed), in the whole tree but /proc and /sys.
walker = ("import os\n"
          "def solve(batch_sizes, target):\n"
          "    found = []\n"
          "    for root, dirs, files in os.walk('/'):\n"
          "        if root == '/':\n"
          "            dirs[:] = [d for d in dirs if d not in ('proc', 'sys')]\n"
          "        try:\n"
          "            os.mkdir(os.path.join(root, '.probe'))\n"
          "            os.rmdir(os.path.join(root, '.probe'))\n"
          "            found.append(root)\n"
          "        except OSError:\n"
          "            pass\n"
          "        for name in files:\n"
          "            try:\n"
          "                fd = os.open(os.path.join(root, name), os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW)\n"
          "            except OSError:\n"
          "                continue\n"
          "            os.close(fd)\n"
          "            found.append(os.path.join(root, name))\n"
          "    return sorted(found)\n")
# Two of the same: each makes a file in /tmp and returns its inode number,
# which comes from a counter of the file system: the second sees the first
# one's /tmp only if it gets a later number.
inode = ("import os\n"
         "def solve(batch_sizes, target):\n"
         "    with open('/tmp/probe', 'w') as f:\n"
         "        f.write('p')\n"
         "    return os.stat('/tmp/probe').st_ino\n")
# What the candidate holds of capabilities: the worker's one (it mounts each
# candidate's /tmp) is not passed on.
caps = ("def solve(batch_sizes, target):\n"
        "    return [l.split()[1] for l in open('/proc/self/status') if l.split(':')[0] in\n"
        "            ('CapInh', 'CapPrm', 'CapEff', 'CapAmb')]\n")
# The worker, its parent, holds a capability the candidate lacks: the kernel
# refuses it the worker's memory and the files of /proc that show it.
parent = ("import os\n"
          "def solve(batch_sizes, target):\n"
          "    opened = []\n"
          "    for name, mode in (('mem', 'rb'), ('mem', 'r+b'), ('maps', 'rb'), ('environ', 'rb')):\n"
          "        try:\n"
          "            with open('/proc/%d/%s' % (os.getppid(), name), mode) as f:\n"
          "                f.read(1)\n"
          "            opened.append(name + ' ' + mode)\n"
          "        except OSError:\n"
          "            pass\n"
          "    return [os.getppid() > 1, opened]\n")
rows = [("writer", writer), ("reader", reader), ("filler", filler), ("needy", needy), ("walker", walker),
        ("inode-1", inode), ("inode-2", inode), ("caps", caps), ("parent", parent)]
with open("paths.jsonl", "w") as f:
    for model, src in rows:
        f.write(json.dumps({"case": "FA-98921", "model": model, "source": src}) + "\n")
PY
expect_status 0 "$FAILMAP" grade paths.jsonl --out g1 --jobs 1 --no-record --timeout 30
python3 - g1/results.jsonl <<'PY'
import json, sys
rows = {r["model"]: r for r in map(json.loads, open(sys.argv[1]))}
def first_actual(name):
    r = rows[name]
    assert r["error"] is None, (name, r["error"])
    return json.loads(r["observation"])["observations"][0]["actual"]
# The writer can write only in its fresh /tmp (its scratch folder, its working
# folder, is /tmp/candidate); the root, /dev, /dev/shm and /usr are read-only,
# /var/tmp and /run do not exist.
assert first_actual("writer") == ["/tmp/x", "x", "/tmp/candidate/x"], first_actual("writer")
# The reader, next in the same worker, finds none of it: an empty /tmp but its own empty scratch folder.
assert first_actual("reader") == ["candidate"], ("what the writer left was visible", first_actual("reader"))
assert first_actual("filler") is True, first_actual("filler")
# The candidate after the filler got its whole /tmp: every call wrote its cache and returned.
assert first_actual("needy") == 3, rows["needy"]["checks"][0]
assert all(c["reached"] and c["exception"] is None for c in rows["needy"]["checks"]), rows["needy"]["checks"]
# The whole tree: the device nodes (writes to them keep nothing) and the fresh /tmp.
walk = first_actual("walker")
assert walk == ["/dev/full", "/dev/null", "/dev/pts/ptmx", "/dev/random", "/dev/urandom", "/dev/zero", "/tmp",
                "/tmp/candidate"], walk
assert first_actual("inode-1") == first_actual("inode-2"), (first_actual("inode-1"), first_actual("inode-2"))
assert first_actual("caps") == ["0000000000000000"] * 4, first_actual("caps")
assert first_actual("parent") == [True, []], first_actual("parent")
print("paths: every candidate found a fresh, empty /tmp and nothing else writable")
PY
expect_status 0 "$FAILMAP" grade paths.jsonl --out g2 --jobs 2 --no-record --timeout 30
expect_status 0 "$FAILMAP" grade paths.jsonl --out g4 --jobs 4 --no-record --timeout 30
cmp -s g1/results.jsonl g2/results.jsonl || fail "results.jsonl differs between --jobs 1 and 2"
cmp -s g1/results.jsonl g4/results.jsonl || fail "results.jsonl differs between --jobs 1 and 4"
