# Helpers for tests/e2e/*.sh (sourced by run_one.sh).
SRC=$FAILMAP_SOURCE_DIR
SEED="$SRC/tests/data/seeds/000_b91ddc69b4d265ed.txt"  # verbatim copy of ../shared/seeds

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_status WANT CMD...: runs CMD, fails unless its exit status is WANT.
# Leaves stdout in $out and stderr in $err.
expect_status() {
  local want=$1; shift
  set +e
  "$@" >stdout.txt 2>stderr.txt
  local got=$?
  set -e
  out=$(cat stdout.txt); err=$(cat stderr.txt)
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want; stderr: $err"
}

# expect_error_mentions TEXT: the last command's stderr contains TEXT.
expect_error_mentions() {
  grep -qF -- "$1" stderr.txt || fail "stderr does not mention '$1': $(cat stderr.txt)"
}

# archive_state: a dump of the archive's content for before/after comparisons.
archive_state() { sqlite3 "${1:-$FAILMAP_DB}" .dump | sha256sum; }

# resum_bundle DIR: rewrites a bundle's manifest "sha256" and SHA256SUMS after a test edited its files, so
# only the defect under test remains (the signature, if any, is left as it is).
resum_bundle() {
  python3 - "$1" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
h = lambda f: hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
m = json.load(open(os.path.join(d, "manifest.json"), encoding="utf-8"))
m["sha256"] = {f: h(f) for f in m["files"]}
open(os.path.join(d, "manifest.json"), "w", encoding="utf-8").write(json.dumps(m, ensure_ascii=False, separators=(",", ":")) + "\n")
names = sorted(f for f in os.listdir(d) if f != "SHA256SUMS")
open(os.path.join(d, "SHA256SUMS"), "w").write("".join(f"{h(f)}  {f}\n" for f in names))
PY
}
