# Every Markdown file and repository path a comment, document or script names
# exists in the repository, and nothing points to a sibling folder outside it:
# tests/harness/check_references.py over the tracked files. Then the checker
# itself on a small repository of known faults, each of which it must name.
command -v git >/dev/null && git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 ||
  { echo "SKIP: $SRC is not a git checkout"; exit 77; }
expect_status 0 python3 "$SRC/tests/harness/check_references.py" "$SRC"
[ -z "$out" ] || fail "references that name nothing: $out"

# The faults are spelt from parts, so that this file names no outside file itself.
outside="../sha""red/seeds/x.txt" notes="DESI""GN.md"
mkdir -p fake/src/io fake/docs fake/build && cd fake && git init -q .
printf '// Reads pages (%s "Terms", %s); see src/io/page.h\n' "$notes" "$outside" > src/io/a.cc
printf '// src/io/a.cc and io/a.cc exist; build/failmap and [x](../../docs/b.md) too\n' > src/io/b.cc
printf 'See [the glossary](glossary.md), [gone](../GONE.md), schema/NNN_*.sql, docs/COMMAND.md.\n' > docs/b.md
printf 'a\n' > docs/glossary.md
git add src docs && cd ..
expect_status 1 python3 "$SRC/tests/harness/check_references.py" fake
want="docs/b.md:1: ../GONE.md
src/io/a.cc:1: $outside (outside the repository)
src/io/a.cc:1: $notes
src/io/a.cc:1: src/io/page.h"
[ "$out" = "$want" ] || fail "the checker on known faults: $out"
