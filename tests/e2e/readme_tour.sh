# The README's tour, run as a reader runs it: every command of its console blocks in order, in a fresh
# folder holding `build/failmap`, `cases/` and `tests/` as a checkout does, each printing what the README
# shows (tests/harness/readme_tour.py: "…" elides, timestamps are normalised). The README cannot rot.
needs_repairs  # the tour exports the member tier and records repaired runs
mkdir -p build
ln -s "$FAILMAP" build/failmap
ln -s "$SRC/cases" cases
ln -s "$SRC/tests" tests
ln -s "$SRC/clients" clients
unset FAILMAP_DB  # the tour uses the default ./failmap.db
python3 "$SRC/tests/harness/readme_tour.py" "$SRC/README.md" || fail "the README's tour no longer prints what it shows"
# The README stays one page (at most 240 lines), and says how long the first `make run` takes beside it (a fresh
# clone took 8 min 44 s on 2 cores: packages, then the build; it said nothing and looked hung).
[ "$(wc -l < "$SRC/README.md")" -le 240 ] || fail "README.md has $(wc -l < "$SRC/README.md") lines, more than 240"
grep -A1 '^make run ' "$SRC/README.md" | grep -q 'the first time about 9 minutes on 2 cores' ||
  fail "README.md does not say beside make run how long it takes the first time"
