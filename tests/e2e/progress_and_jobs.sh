# run --all --jobs N prints and records exactly what --jobs 1 does; the
# progress bar appears on a terminal only, never in files or with --quiet.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
python3 "$SRC/tests/harness/gen_seed_cases.py" files gen 1 300
"$FAILMAP" --db one.db import gen >/dev/null
cp one.db three.db

expect_status 0 "$FAILMAP" --db one.db run --all --jobs 1
cp stdout.txt one.out
[ "$(wc -l <one.out)" -eq 900 ] || fail "expected 900 run lines"
grep -q $'\r' stderr.txt && fail "progress drawn on a non-terminal stderr"
expect_status 0 "$FAILMAP" --db three.db run --all --jobs 3
cmp one.out stdout.txt || fail "--jobs 3 printed something else than --jobs 1"
runs() { sqlite3 "$1" "SELECT case_id, strategy, actuals, observation, exit_status, hex(digest), failmap_version FROM runs JOIN recordings ON recordings.id = recording ORDER BY case_id, strategy"; }
[ "$(runs one.db | wc -l)" -eq 900 ] || fail "expected 900 recorded runs"
[ "$(runs one.db)" = "$(runs three.db)" ] || fail "--jobs 3 recorded other rows than --jobs 1"
expect_status 0 "$FAILMAP" --db one.db run --all --jobs 2 --json --no-record
[ "$(head -c 60 stdout.txt)" = '{"case":"GEN-000001","strategy":"broken","exit_status":1,"pa' ] || fail "unexpected --json line: $(head -1 stdout.txt)"
expect_status 2 "$FAILMAP" --db one.db run --all --jobs 0

# On a terminal (script(1) gives the command a pty) the bar is drawn on
# stderr while stdout goes to a file; --quiet draws nothing.
script -qec "'$FAILMAP' --db one.db run --all --no-record >tty.out" typescript >/dev/null
grep -q 'run --all \[' typescript || fail "no progress bar on a terminal: $(cat -v typescript | head -c 300)"
cmp tty.out one.out || fail "stdout differs when stderr is a terminal"
script -qec "'$FAILMAP' --db one.db --quiet run --all --no-record >tty.out" typescript >/dev/null
grep -q 'run --all \[' typescript && fail "--quiet still drew the progress bar"
script -qec "'$FAILMAP' --db imported.db import gen" typescript >/dev/null
grep -q 'importing \[' typescript || fail "import drew no progress bar on a terminal"
# A bundle's total comes from its manifest's counts (the files are hashed
# once, by the import itself): the bar counts to 300. A data file edited
# after export still gives the bar its total and then the refusal.
"$FAILMAP" --db one.db -q export --format jsonl --out bun >/dev/null
script -qec "'$FAILMAP' --db bundled.db import bun" typescript >/dev/null
grep -q 'importing \[.*/300 ' typescript || fail "bundle import bar has no total of 300: $(cat -v typescript | head -c 300)"
echo >>bun/cases.jsonl
script -qec "'$FAILMAP' --db edited.db import bun" typescript >/dev/null && fail "an edited bundle was imported"
grep -q 'cases.jsonl: .*SHA-256\|SHA256SUMS' typescript || fail "an edited bundle was not refused: $(cat -v typescript | head -c 400)"
true
