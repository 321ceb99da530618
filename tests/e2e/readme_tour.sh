# The README's tour, run as a reader runs it: every command of its console blocks in order, in a fresh
# folder holding `build/failmap`, `cases/` and `tests/` as a checkout does, each printing what the README
# shows (tests/harness/readme_tour.py: "…" elides, timestamps are normalised). The README cannot rot.
needs_repairs  # the tour exports the member tier and records repaired runs
mkdir -p build
ln -s "$FAILMAP" build/failmap
ln -s "$SRC/cases" cases
ln -s "$SRC/tests" tests
unset FAILMAP_DB  # the tour uses the default ./failmap.db
python3 "$SRC/tests/harness/readme_tour.py" "$SRC/README.md" || fail "the README's tour no longer prints what it shows"
