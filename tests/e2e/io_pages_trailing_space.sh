# A trailing space on one line of a page: the
# error names that line, quotes what was expected and what was found
# JSON-style (so the space shows) and, for a long line, shows the region
# where they differ rather than the first 100 characters of each. Before:
# the space was past the cut of long lines, or the error named another line
# (a binding at section 2's copy, the table header at a later section or
# the page's end, "observations = []" at the section heading), or the
# notice's lines were not read at all.
#
# Prose lines (summary, root cause, failure, unsuccessful approach, contract,
# why it matters, scope) are free text: a trailing space there is the
# text's, imported verbatim and exported back byte for byte.

# spaced N: the seed with a space after line N, as spaced_N.txt.
spaced() {
  python3 - "$SEED" "$1" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
n = int(sys.argv[2])
lines[n - 1] += " "
open(f"spaced_{n}.txt", "w", encoding="utf-8").write("\n".join(lines))
PY
}

# refused N MESSAGE: importing spaced_N.txt fails with exactly MESSAGE at line N.
refused() {
  spaced "$1"
  expect_status 2 "$FAILMAP" --db "spaced_$1.db" import "spaced_$1.txt"
  [ "$err" = "failmap: error: spaced_$1.txt:$1: $2 (nothing was imported)" ] || fail "line $1: $err"
}

refused 4 'expected "ROOT CAUSE", found "ROOT CAUSE " (first difference at column 11)'
refused 13 "section heading: expected \"1 / The failure\", found \"1 / The failure \" (first difference at column 16)"
# The docstring after "Exit 1": the column counts from the page line's start.
refused 14 "section '1 / The failure': source line differs from the reference: expected \"\\\"\\\"\\\"Failure Map reference implementation. Python standard library only.\\\"\\\"\\\"\", found \"\\\"\\\"\\\"Failure Map reference implementation. Python standard library only.\\\"\\\"\\\" \" (first difference at column 80)"
refused 16 "section '1 / The failure': source line differs from the reference: expected \"N = 1\", found \"N = 1 \" (first difference at column 6)"
refused 17 "section '1 / The failure': no solve body: expected \"observations = []\", found \"observations = [] \" (first difference at column 18)"
refused 19 "section '1 / The failure': the solve body matches no compiled strategy of mechanism gradient-accumulation-weighting: expected \"return sum(size for size in batch_sizes if size == target)\", found \"return sum(size for size in batch_sizes if size == target) \" (first difference at column 59)"
# Longer than 100 characters: the region of the difference, after "...".
refused 21 "section '1 / The failure': source line differs from the reference: expected ...\"expected, \\\"passed\\\": actual == expected})\", found ...\"expected, \\\"passed\\\": actual == expected}) \" (first difference at column 108)"
refused 25 "section '1 / The failure': expected check('LABEL',solve(ARGS),EXPECTED): expected \"check('empty',solve([],N),0)\", found \"check('empty',solve([],N),0) \" (first difference at column 29)"
refused 31 "section '1 / The failure': expected \"| Boundary fixture | Actual | Expected | Outcome |\", found \"| Boundary fixture | Actual | Expected | Outcome | \" (first difference at column 51)"
refused 32 'expected "|---|---|---|---|", found "|---|---|---|---| " (first difference at column 18)'
refused 40 "section '1 / The failure': SHA-256 value is not 64 lower-case hex digits: found \"d3953127d7246b718e7fc63ed5d9348feb644afacb10dd47339aaba00537157f \""
refused 44 "section '2 / The unsuccessful fix': binds \"N = 1 \", section '1 / The failure' (line 16) binds \"N = 1\": every section of a page runs the same binding"
refused 59 "section '2 / The unsuccessful fix': expected \"| Boundary fixture | Actual | Expected | Outcome |\", found \"| Boundary fixture | Actual | Expected | Outcome | \" (first difference at column 51)"
refused 71 'the member-archive notice: expected ..."that prove it, are available to members.", found ..."that prove it, are available to members. " (first difference at column 233)'
refused 74 'the member-archive notice: expected "Sign in to the archive ↗Verification & scope", found "Sign in to the archive ↗Verification & scope " (first difference at column 45)'
refused 76 "expected 'Observations recorded using RUNTIME at TIME.', found \"Observations recorded using Python 3.12.14 at 2026-09-30T16:48:18.535136+00:00. \""
refused 77 'case digest is not 64 lower-case hex digits: found "74a424fc52e6faa167222a2d71e2934c886258981317e46222f3c35933e4df56 "'
# A table row: a cell disagreement at the row's line, the row quoted.
spaced 35
expect_status 2 "$FAILMAP" --db spaced_35.db import spaced_35.txt
expect_error_mentions "spaced_35.txt:35: section '1 / The failure', check 'single short', Row: page says '| single short | 0 | 1 | Failed | ', computed '| single short | 0 | 1 | Failed |'"

# Every other line but the prose ones: refused, blamed on that line, saying what it found.
total=$(( $(wc -l < "$SEED") + 1 ))
prose=" 3 5 7 8 10 12 75 "
for n in $(seq 1 "$total"); do
  case "$prose" in *" $n "*) continue ;; esac
  spaced "$n"
  expect_status 2 "$FAILMAP" --db "spaced_$n.db" import "spaced_$n.txt"
  case "$(head -1 stderr.txt)" in
    "failmap: error: spaced_$n.txt:$n: "*) ;;
    *) fail "a space after line $n is blamed elsewhere: $err" ;;
  esac
  grep -qE "found|page says|binds \"N = 1 \"|'(Open access|01) '" stderr.txt || fail "line $n: the error does not show what was found: $err"
done
# The prose lines: imported with the space, and exported back byte for byte.
for n in $prose; do
  spaced "$n"
  expect_status 0 "$FAILMAP" --db "prose_$n.db" import "spaced_$n.txt"
  expect_status 0 "$FAILMAP" --db "prose_$n.db" export --format pages --out "prose_$n"
  cmp "prose_$n/FA-98921.txt" "spaced_$n.txt" || fail "line $n: the page does not export back as imported"
done
