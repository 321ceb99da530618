# The scratch folder of a grade worker between candidates (no
# writable place is shared between candidates): each candidate finds it
# empty, whatever the one before left in it (a tree 1,000 folders deep
# among it), and what a candidate puts in its
# place (a link to a folder of the host) is removed, never followed. Checked
# with --sandbox none, where the folder is on the host's /tmp, and in
# bubblewrap. FA-98921's solve is solve(batch_sizes, target); its first
# check's actual value in the observation is what solve returned.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
mkdir victim && echo "keep" > victim/precious.txt
VICTIM=$(readlink -f victim)
export VICTIM
python3 - <<'PY'
import json, os
victim = os.environ["VICTIM"]
c = [
 ("litter", "import os\ndef solve(batch_sizes, target):\n    os.mkdir('d')\n    open('d/f', 'w').write('x')\n"
            "    open('g', 'w').write('y')\n    os.chmod('d', 0)\n    return 0\n"),
 ("look1", "import os\ndef solve(batch_sizes, target):\n    return sorted(os.listdir('.'))\n"),
 ("relink", "import os\ndef solve(batch_sizes, target):\n    here = os.getcwd()\n    os.chdir('..')\n    os.rmdir(here)\n"
            f"    os.symlink({victim!r}, here)\n    return 0\n"),
 ("look2", "import os\ndef solve(batch_sizes, target):\n    return sorted(os.listdir('.'))\n"),
 ("deep", "import os\ndef solve(batch_sizes, target):\n    for _ in range(1000):\n        os.mkdir('d')\n        os.chdir('d')\n"
          "    open('f', 'w').write('z')\n    os.chmod('.', 0o500)\n    return 0\n"),
 ("look3", "import os\ndef solve(batch_sizes, target):\n    return sorted(os.listdir('.'))\n"),
]
with open("scratch.jsonl", "w") as f:
    for name, src in c:
        f.write(json.dumps({"case": "FA-98921", "model": name, "source": src}) + "\n")
PY
for mode in none bwrap; do
  expect_status 0 "$FAILMAP" grade scratch.jsonl --out "graded-$mode" --jobs 1 --sandbox "$mode" --no-record
  [ "$(cat victim/precious.txt)" = keep ] || fail "--sandbox $mode: the driver followed a candidate's link and emptied a host folder"
  MODE=$mode python3 - "graded-$mode/results.jsonl" <<'PY'
import json, os, sys
rows = {r["model"]: r for r in map(json.loads, open(sys.argv[1]))}
def first_actual(name):
    r = rows[name]
    assert r["error"] is None, (name, r["error"])
    return json.loads(r["observation"])["observations"][0]["actual"]
assert first_actual("litter") == 0
assert first_actual("look1") == [], ("what the candidate before left was visible", first_actual("look1"))
assert first_actual("look2") == [], ("the link a candidate left was followed", first_actual("look2"))
assert first_actual("deep") == 0
assert first_actual("look3") == [], ("a tree 1,000 folders deep was left", first_actual("look3"))
print(os.environ["MODE"], "scratch: every candidate found an empty folder")
PY
done
