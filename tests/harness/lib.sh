# Helpers for tests/e2e/*.sh (sourced by run_one.sh).
SRC=$FAILMAP_SOURCE_DIR
SEED="$SRC/tests/data/seeds/000_b91ddc69b4d265ed.txt"  # the published page of FA-98921, verbatim
# The number of shipped case files, for outputs that count the whole of cases/.
SHIPPED=$(find "$SRC/cases" -maxdepth 1 -name "*.json" | wc -l)

fail() { echo "FAIL: $*" >&2; exit 1; }

# needs_repairs: a scenario that needs the repaired strategies skips itself in
# the open build (-DFAILMAP_REPAIRS=OFF; ctest shows it as skipped, exit 77).
needs_repairs() {
  if [ "${FAILMAP_REPAIRS:-1}" = 0 ]; then
    echo "SKIP: $(basename "$script"): needs the repaired strategies, which the open build does not hold"
    exit 77
  fi
}

# skip_under_sanitizer WHY: a scenario whose work is not failmap's C++ (a
# browser, a compiler) gains nothing from the sanitizer build's pass, which
# looks for memory errors and undefined behaviour in failmap; it runs in the
# first pass and skips itself there (exit 77).
skip_under_sanitizer() {
  if [ "${FAILMAP_SANITIZE:-0}" = 1 ]; then
    echo "SKIP: $(basename "$script"): $1"
    exit 77
  fi
}

# cases_dir: the folder of case files a scenario imports when any cases will
# do: cases/ itself, or in the sanitizer build's pass a folder of every 8th
# case file and FA-98921's (the same code paths on a sample, as case_ids).
cases_dir() {
  if [ "${FAILMAP_SANITIZE:-0}" = 1 ]; then
    mkdir -p cases-sample
    find "$SRC/cases" -maxdepth 1 -name 'FA-*.json' | sort | awk 'NR % 8 == 1' | xargs cp -t cases-sample
    cp "$SRC/cases/FA-98921.json" cases-sample/
    echo "$PWD/cases-sample"
  else
    echo "$SRC/cases"
  fi
}

# case_ids: the ids of the archive's cases, one per line, in id order. In the
# sanitizer build's pass (FAILMAP_SANITIZE=1) every 8th of them: that pass
# looks for memory errors and undefined behaviour, which the same code paths
# show on a sample, while the first pass compares every case.
case_ids() {
  local step=1
  [ "${FAILMAP_SANITIZE:-0}" = 1 ] && step=8
  "$FAILMAP" list --json | python3 -c 'import json, sys
ids = sorted(json.loads(l)["id"] for l in sys.stdin)
print("\n".join(ids[::int(sys.argv[1])]))' "$step"
}

# The strategies `failmap run CASE` runs and records: three, two in the open build (no repaired).
STRATEGIES=3; [ "${FAILMAP_REPAIRS:-1}" = 1 ] || STRATEGIES=2

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

# checks_may_fail CMD...: runs CMD and accepts exit 0 or 1 (checks passed, or
# failed as the broken strategies do by design); any other status (2: usage or
# input error, a signal) fails the scenario. For setup lines such as `run --all`.
checks_may_fail() {
  local got=0
  "$@" || got=$?
  [ "$got" -le 1 ] || fail "'$*' exited $got, expected 0 or 1 (checks passed or failed)"
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

# fixture_expected_sql DB CASE POSITION TEXT: prints the SQL UPDATE that
# stores TEXT verbatim (valid JSON or not) as the expected value of fixture
# POSITION of CASE, the other fixtures byte for byte as DB has them
# (schema/006: cases.fixture_values).
fixture_expected_sql() {
  python3 - "$@" <<'PY' || fail "fixture_expected_sql $*"
import json, sqlite3, sys
db, case, pos, text = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
(values,) = sqlite3.connect(db).execute("SELECT fixture_values FROM cases WHERE id = ?", (case,)).fetchone()
pairs = json.loads(values)
assert json.dumps(pairs) == values, "fixture_values not in json.dumps spelling"
parts = [json.dumps(p) for p in pairs]
parts[pos] = "[" + json.dumps(pairs[pos][0]) + ", " + text + "]"
new = ("[" + ", ".join(parts) + "]").replace("'", "''")
print(f"UPDATE cases SET fixture_values = '{new}' WHERE id = '{case}';")
PY
}

# copy_fixture_rows NEW_DB OLD_DB: fills the `fixtures` table of an archive
# at schema version 1-5 (one row per fixture) from the cases of a current one
# (schema/006 keeps them in cases.fixture_labels and cases.fixture_values).
copy_fixture_rows() {
  python3 - "$@" <<'PY' || fail "copy_fixture_rows $*"
import json, sqlite3, sys
new, old = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
for case, labels, values in new.execute("SELECT id, fixture_labels, fixture_values FROM cases"):
    pairs = json.loads(values)
    assert json.dumps(pairs) == values, "fixture_values not in json.dumps spelling"
    for pos, (label, (args, expected)) in enumerate(zip(json.loads(labels), pairs)):
        old.execute("INSERT INTO fixtures VALUES (?, ?, ?, ?, ?)", (case, pos, label, json.dumps(args), json.dumps(expected)))
old.commit()
PY
}

# v6_cases ALIAS: a subquery giving the cases of the attached current archive
# ALIAS in the shape of schema versions 3-6 (prose columns in the row,
# field_digests as the RFC 8785 text {member: hex digest}; schema/007 keeps
# the prose in case_texts and the digests as two 256-byte blobs, in the
# member orders of src/io/digest.h). For building old archives in tests:
#   INSERT INTO cases(cols) SELECT cols FROM $(v6_cases n)
v6_cases() {
  local alias=$1 text=(contract failure root_cause scope summary title unsuccessful_approach why_it_matters)
  local row=(evaluation_group fixtures id mechanism params recorded tier variant)
  local members=() i
  for i in "${!text[@]}"; do members+=("${text[$i]} t $i"); done
  for i in "${!row[@]}"; do members+=("${row[$i]} c $i"); done
  local json="'{'" sep="" name tab pos
  while read -r name tab pos; do
    json+=" || '$sep\"$name\":\"' || lower(hex(substr($tab.field_digests, $((1 + 32 * pos)), 32))) || '\"'"
    sep=","
  done < <(printf '%s\n' "${members[@]}" | sort)
  json+=" || '}'"
  echo "(SELECT c.id, c.mechanism_id, c.variant, t.title, c.tier, t.summary, t.root_cause, t.failure,
    t.unsuccessful_approach, t.contract, t.why_it_matters, t.scope, c.params, c.evaluation_group, c.recorded_runtime,
    c.recorded_at, c.published_case_digest, c.fixture_labels, c.fixture_values,
    CASE WHEN c.field_digests IS NULL THEN NULL ELSE $json END AS field_digests
    FROM $alias.cases c JOIN $alias.case_texts t USING (text_id))"
}
