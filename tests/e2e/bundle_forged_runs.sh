# A run edited in a bundle and re-hashed (its digest, its case's case_digest,
# the manifest and SHA256SUMS recomputed, as anyone can: the scheme is public)
# is refused by import and by verify-bundle: both replay every run through the
# compiled strategy over the case's fixtures. Each forgery
# names file, line, field, the replayed value and the bundle's; import leaves
# the archive exactly as before.
needs_repairs  # member bundles and the repaired run
FORGE="$SRC/tests/data/forge/forge_run.py"
expect_status 0 "$FAILMAP" import "$(cases_dir)"
expect_status 0 "$FAILMAP" run --all
expect_status 0 "$FAILMAP" export --format jsonl --tier open --out open
expect_status 0 "$FAILMAP" export --format jsonl --tier member --out member
mv "$FAILMAP_DB" recorded.db
rm -f "$FAILMAP_DB"-*

# The forger itself: re-hashing without an edit gives the bundle back byte for byte.
for tier in open member; do
  cp -r "$tier" "check_$tier"
  python3 "$FORGE" "check_$tier" none >/dev/null
  diff -r "$tier" "check_$tier" >/dev/null || fail "forge_run.py changes an unedited $tier bundle: the test's digests are wrong"
done

# Into an empty archive and into one that holds other cases already.
expect_status 0 "$FAILMAP" --db other.db instantiate gradient-accumulation-weighting --param N=7
before_empty=none
before_other=$(archive_state other.db)

forged() {  # forged TIER EDIT STRATEGY: forges, then checks import and verify-bundle refuse it
  local tier=$1 edit=$2 strategy=$3 dir="forged_${1}_${2}_${3}"
  rm -rf "$dir"; cp -r "$tier" "$dir"
  read -r line case field < <(python3 "$FORGE" "$dir" "$edit" "$strategy") || fail "forge $edit"
  local place="$dir/runs.jsonl:$line: field '$field': case $case, $strategy run: not the run the compiled strategy gives over the case's fixtures"
  # The bundle's own checks pass: only the replay can catch it.
  (cd "$dir" && sha256sum -c --quiet SHA256SUMS) || fail "$dir: SHA256SUMS does not pass after the forgery"
  expect_status 2 "$FAILMAP" --db fresh.db import "$dir"
  expect_error_mentions "$place"
  expect_error_mentions ": expected "
  printf '%s\n' "$err" > "$dir.err"
  [ ! -e fresh.db ] || [ "$(sqlite3 fresh.db 'SELECT count(*) FROM cases')" = 0 ] || fail "$edit: a refused import left cases in a new archive"
  rm -f fresh.db*
  expect_status 2 "$FAILMAP" --db other.db import "$dir"
  expect_error_mentions "$place"
  [ "$(archive_state other.db)" = "$before_other" ] || fail "$edit: a refused import changed the archive"
  expect_status 1 "$FAILMAP" verify-bundle "$dir"
  grep -qF "$place" stdout.txt stderr.txt || fail "$edit: verify-bundle does not name $place: $out $err"
  expect_status 1 "$FAILMAP" verify-bundle "$dir" --json
  python3 - "$line" "$field" stdout.txt <<'PY' || fail "$edit: verify-bundle --json: $(cat stdout.txt)"
import json, sys
line, field, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
report = json.load(open(path))
hits = [p for p in report["problems"] if p.get("line") == line and p.get("field") == field and p["file"].endswith("runs.jsonl")]
assert len(hits) == 1, report["problems"]
assert hits[0]["expected"] != hits[0]["found"], hits[0]
PY
}

# Each forgery of the issue, on the broken run of an open and of a member bundle.
for tier in open member; do
  for edit in spell17 reorder compact int_for_float negzero other_value newline label; do
    forged "$tier" "$edit" broken
  done
done
# The same edits to the repaired run of a member bundle.
for edit in spell17 reorder compact negzero other_failing newline label; do
  forged member "$edit" repaired
done

# Exact wording of three: the number's spelling, the forged value, the newline.
grep -qF "field 'observation': case " forged_open_spell17_broken.err || fail "spell17: $(cat forged_open_spell17_broken.err)"
grep -qF '(first difference at byte' forged_open_spell17_broken.err || fail "spell17 place: $(cat forged_open_spell17_broken.err)"
grep -qE '0\.[0-9]{17}' forged_open_spell17_broken.err || fail "spell17 shows no 17-digit spelling: $(cat forged_open_spell17_broken.err)"
grep -qF '"\n"' forged_open_newline_broken.err || grep -qF '\n' forged_open_newline_broken.err ||
  fail "newline not shown as an escape: $(cat forged_open_newline_broken.err)"
grep -qE "field 'observation.observations\[[0-9]+\].actual': .*\(also observation.observations\[[0-9]+\].passed: expected false, found true" \
  forged_member_other_value_broken.err || fail "other_value: $(cat forged_member_other_value_broken.err)"

# The unedited bundles import, and verify passes on what they give.
expect_status 0 "$FAILMAP" --db good.db import member
expect_status 0 "$FAILMAP" --db good.db verify
expect_status 0 "$FAILMAP" verify-bundle open
