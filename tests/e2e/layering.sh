# The include layering of ARCHITECTURE.md's table holds: every src/FOLDER/*.{h,cc} includes only the folders
# its row allows (tests/harness/check_layering.py). Then the checker on a small tree of known faults: core
# including io, a folder the table does not list, and an allowed include that must pass.
expect_status 0 python3 "$SRC/tests/harness/check_layering.py" "$SRC"
[ -z "$out" ] || fail "includes the table does not allow: $out"
# The table as the checker reads it: the eight folders of src/, each with its row.
expect_status 0 python3 "$SRC/tests/harness/check_layering.py" --table "$SRC"
[ "$out" = "core: core
mechanisms: core
encoding: core, encoding
io: core, encoding, io
grade: core, encoding, grade, io
store: core, encoding, io, store
serve: core, encoding, grade, io, serve, store
cli: everything" ] || fail "the table as read: $out"
mkdir -p fake/src/core fake/src/io fake/src/extra
printf '| folder | holds | may include |\n|---|---|---|\n| `src/core/` | the model | `core` |\n| `src/io/` | files | `core`, `io` |\n' > fake/ARCHITECTURE.md
printf '#include "core/a.h"\n#include "io/b.h"\n' > fake/src/core/a.h
printf '#include "core/a.h"\n#include <vector>\n' > fake/src/io/b.h
printf '#include "core/a.h"\n' > fake/src/extra/c.cc
expect_status 1 python3 "$SRC/tests/harness/check_layering.py" fake
want='src/core/a.h:2: core includes io (allowed: core)
src/extra/: a folder ARCHITECTURE.md'"'"'s table does not list'
[ "$out" = "$want" ] || fail "the checker on known faults: $out"
