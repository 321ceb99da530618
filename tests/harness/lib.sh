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
