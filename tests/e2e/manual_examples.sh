# Every example of the reference manual is real: each page's console blocks (docs/*.md) run in a fresh
# folder holding `failmap` on PATH, `build/failmap`, `cases/` and `tests/` as a checkout does, and print
# what the page shows (tests/harness/readme_tour.py: "…" elides, timestamps are normalised).
needs_repairs  # the examples record repaired runs and export the member tier
mkdir bin
ln -s "$FAILMAP" bin/failmap
export PATH="$PWD/bin:$PATH"
unset FAILMAP_DB
pages=0
for page in "$SRC"/docs/*.md; do
  grep -q '^```console' "$page" || continue
  name=$(basename "$page" .md)
  mkdir -p "$name/build" && ln -s "$FAILMAP" "$name/build/failmap"
  ln -s "$SRC/cases" "$name/cases" && ln -s "$SRC/tests" "$name/tests"
  (cd "$name" && python3 "$SRC/tests/harness/readme_tour.py" "$page") || fail "docs/$name.md: an example no longer prints what the page shows"
  pages=$((pages + 1))
done
[ "$pages" -ge 19 ] || fail "only $pages pages have examples"
