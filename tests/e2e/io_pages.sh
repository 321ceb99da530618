# Published pages: the seed imports, restores indentation, and exports back byte for byte;
# disagreeing tables are refused cell by cell unless --force; member pages show the repair.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
cp "$SEED" seed.txt
expect_status 0 "$FAILMAP" import seed.txt
case_json=$("$FAILMAP" show FA-98921 --json)
# The page's digests are kept verbatim as published values.
echo "$case_json" | grep -q '"digest": "d3953127d7246b718e7fc63ed5d9348feb644afacb10dd47339aaba00537157f"' || fail "published digest lost"
echo "$case_json" | grep -q '"case_digest": "74a424fc52e6faa167222a2d71e2934c886258981317e46222f3c35933e4df56"' || fail "case digest lost"
# The page imports to exactly the case file of cases/ (same content: importing it is a no-op).
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
echo "$out" | grep -q "nothing changed" || fail "page import differs from cases/FA-98921.json: $out"
expect_status 0 "$FAILMAP" export --format pages --tier open --out open
cmp open/FA-98921.txt "$SEED" || fail "open-tier page export is not the seed byte for byte"
(cd open && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS of the page export"

# Member tier: section 3 with the repaired source (indentation restored in the reference), no notice.
expect_status 0 "$FAILMAP" export --format pages --tier member --out member
grep -qx '3 / The repair' member/FA-98921.txt || fail "member page lacks section 3"
grep -q 'HELD IN THE MEMBER ARCHIVE' member/FA-98921.txt && fail "member page still holds the notice"
grep -qx 'FA-98921 / Gradient accumulation weighting / Member access' member/FA-98921.txt || fail "member header"
# The member page re-imports into a fresh archive.
expect_status 0 "$FAILMAP" --db m.db import member/FA-98921.txt

# A table cell that disagrees: refused, reported cell by cell, archive unchanged.
sed 's/^| single short | 0 | 1 | Failed |$/| single short | 1 | 1 | Passed |/' "$SEED" > bad_table.txt
before=$(archive_state)
expect_status 2 "$FAILMAP" import bad_table.txt
expect_error_mentions "bad_table.txt:35: section '1 / The failure', check 'single short', Actual: page says 1, computed 0"
expect_error_mentions "bad_table.txt:35: section '1 / The failure', check 'single short', Outcome: page says Passed, computed Failed"
expect_error_mentions "bad_table.txt:63: section '2 / The unsuccessful fix'"
[ "$(archive_state)" = "$before" ] || fail "a refused page changed the archive"
# One line per disagreeing cell (4 here), the last saying how many and what
# --force does, then the total: 4 problems, not 5.
[ "$(grep -c "page says" stderr.txt)" = 4 ] || fail "expected 4 cells: $(cat stderr.txt)"
expect_error_mentions "(the page disagrees with the computed tables in 4 place(s); --force imports it and records them)"
expect_error_mentions "failmap: error: 4 problem(s); nothing was imported"
# One wrong cell: one line.
sed '35s/^| single short | 0 | 1 | Failed |$/| single short | 5 | 1 | Failed |/' "$SEED" > one_cell.txt
expect_status 2 "$FAILMAP" import one_cell.txt
[ "$(cat stderr.txt)" = "failmap: error: one_cell.txt:35: section '1 / The failure', check 'single short', Actual: page says 5, computed 0 (the page disagrees with the computed tables in 1 place(s); --force imports it and records them) (nothing was imported)" ] ||
  fail "one wrong cell: $(cat stderr.txt)"
# --force imports it (as a new id) and records the disagreements.
sed 's/^FA-98921 /FA-98922 /' bad_table.txt > forced.txt
expect_status 0 "$FAILMAP" import --force forced.txt
echo "$out" | grep -q "recorded 4 disagreement(s)" || fail "--force did not record the disagreements: $out"
[ "$(sqlite3 "$FAILMAP_DB" "select count(*) from import_disagreements where case_id='FA-98922'")" = 4 ] || fail "disagreement rows"
# ... and `show` names them, in text and JSON, the same way the refusal did.
expect_status 0 "$FAILMAP" show FA-98922
echo "$out" | grep -q "^Imported with --force over 4 disagreement(s) with the page$" || fail "show lacks the disagreements: $out"
echo "$out" | grep -q "^  forced.txt:63: section '2 / The unsuccessful fix'" || fail "show lacks the disagreeing cell: $out"
expect_status 0 "$FAILMAP" show FA-98922 --json
python3 -c "
import json, sys
d = json.loads(sys.argv[1])['import_disagreements']
assert len(d) == 4 and all(x['source'].startswith('forced.txt:') for x in d), d
assert {x['strategy'] for x in d} <= {'broken', 'unsuccessful'}, d
" "$out" || fail "show --json disagreements: $out"
expect_status 0 "$FAILMAP" show FA-98921 --json
python3 -c "import json, sys; assert json.loads(sys.argv[1])['import_disagreements'] == []" "$out" || fail "clean case"
# The same page forced again is identical content: nothing recorded twice, archive unchanged.
before=$(archive_state)
expect_status 0 "$FAILMAP" import --force forced.txt
echo "$out" | grep -q "recorded .* disagreement" && fail "identical content recorded its disagreements again: $out"
[ "$(archive_state)" = "$before" ] || fail "re-importing identical content with --force changed the archive"
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(*) FROM import_disagreements WHERE case_id = 'FA-98922'")" = 4 ] || fail "disagreements duplicated"

# An exit status that disagrees.
sed '0,/^Exit 1"""/s//Exit 0"""/' "$SEED" | sed 's/^FA-98921 /FA-98923 /' > bad_exit.txt
expect_status 2 "$FAILMAP" import bad_exit.txt
expect_error_mentions "section '1 / The failure', Exit: page says 0, computed 1"

# A solve body that matches no compiled strategy: refused naming the section.
sed 's/^return sum(batch_sizes) - (sum(batch_sizes) % target if target else 0)$/return sum(batch_sizes) - 1/' "$SEED" > bad_body.txt
expect_status 2 "$FAILMAP" import bad_body.txt
expect_error_mentions "bad_body.txt:47: section '2 / The unsuccessful fix': the solve body matches no compiled strategy of mechanism gradient-accumulation-weighting"

# A fixture template that is not the mechanism's.
sed "s/^check('empty',solve(\[\],N),0)\$/check('empty',solve([],N),1)/" "$SEED" > bad_check.txt
expect_status 2 "$FAILMAP" import bad_check.txt
expect_error_mentions "bad_check.txt:25: check 'empty' is not the mechanism's fixture template check('empty',solve([],N),0)"

# refused_page FILE SED TAIL: the seed edited by SED, imported as FILE, is
# refused with exactly the one line "failmap: error: FILE" TAIL
# " (nothing was imported)".
refused_page() {
  sed "$2" "$SEED" > "$1"
  expect_status 2 "$FAILMAP" import "$1"
  [ "$err" = "failmap: error: $1$3 (nothing was imported)" ] || fail "$1: $err"
}

# Section 1's binding edited: one problem naming both binding lines (it was
# blamed on section 2's line as a "source line" that differs).
refused_page bad_binding.txt '16s/^N = 1$/N = 2/' ":44: section '2 / The unsuccessful fix': binds \"N = 1\", section '1 / The failure' (line 16) binds \"N = 2\": every section of a page runs the same binding"
# A line that differs from the reference only by a trailing space: both shown.
refused_page space_binding.txt 's/^N = 1$/N = 1 /' ":16: section '1 / The failure': source line differs from the reference: expected \"N = 1\", found \"N = 1 \" (first difference at column 6)"
# Every section bound to a float, or below the minimum: named at section 1's
# binding line (it was blamed on line 1, the page's first).
refused_page float_binding.txt 's/^N = 1$/N = 1.0/' ":16: binding: field 'params.N': expected an integer (the fixture templates of gradient-accumulation-weighting use N as a size or count), got a value of Python type float"
refused_page zero_binding.txt 's/^N = 1$/N = 0/' ":16: binding: field 'params.N': 0 is outside the domain of gradient-accumulation-weighting: N must be an integer >= 1"

# A truncated page.
head -c 1500 "$SEED" > truncated.txt
expect_status 2 "$FAILMAP" import truncated.txt
expect_error_mentions "truncated.txt:"
expect_error_mentions "truncated page"

# A section's SHA-256 line deleted: named at its own place (it was blamed on
# line 68, the next section's notice).
refused_page no_sha.txt '40d' ":40: section '1 / The failure': expected a table row or 'SHA-256 / …', found \"2 / The unsuccessful fix\""

# The scope paragraph deleted: refused at its line (the recorded line was
# read as the scope, and the page imported).
refused_page no_scope.txt '75d' ":75: expected the verification & scope paragraph after 'Verification & scope', found the recorded line \"Observations recorded using Python 3.12.14 at 2026-09-30T16:48:18.535136+00:00.\""

# The "Unsuccessful approach: " prefix edited: what was found is shown.
sed '8s/^Unsuccessful approach: /Unsuccessful fix: /' "$SEED" > no_ua.txt
expect_status 2 "$FAILMAP" import no_ua.txt
case "$err" in
  "failmap: error: no_ua.txt:8: expected 'Unsuccessful approach: …', found \"Unsuccessful fix: Rounding the total down"*) ;;
  *) fail "edited unsuccessful approach line: $err" ;;
esac

# Bad ids in the header (ids become file names on export).
sed '1s/^FA-98921/FA\/98921/' "$SEED" > slash.txt
sed '1s/^FA-98921/FA..98921/' "$SEED" > dots.txt
printf 'FA-1\0x / Gradient accumulation weighting / Open access\n' > nul.txt; tail -n +2 "$SEED" >> nul.txt
for f in slash dots nul; do
  expect_status 2 "$FAILMAP" import $f.txt
  expect_error_mentions "$f.txt:1: case id"
done

# Binding N=3 on a page: fixtures evaluated at N=3 and the tables must match them.
sed -e 's/^N = 1$/N = 3/' -e 's/^FA-98921 /FA-3 /' "$SEED" > n3.txt
expect_status 2 "$FAILMAP" import n3.txt
expect_error_mentions "check 'short final batch', Expected: page says 3, computed 7"

[ "$(sqlite3 "$FAILMAP_DB" "select count(*) from cases")" = 2 ] || fail "refused pages left cases behind"
