# A failed export leaves nothing at --out: it writes into a hidden sibling folder and renames it into
# place only when complete. A folder that was there already is refused unless empty, and an empty one
# stays as it was when the export fails.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
expect_status 0 "$FAILMAP" import "$SRC/cases/"
expect_status 1 "$FAILMAP" run FA-98921
no_leftovers() {  # nothing at $1, and no staging folder beside it
  [ ! -e "$1" ] || fail "a failed export left $1 behind: $(ls -la "$1")"
  ! ls -A "$(dirname "$1")" | grep -q 'failmap-' || fail "a failed export left a staging folder: $(ls -A "$(dirname "$1")")"
}

# Refused before anything is read: an unknown case.
expect_status 2 "$FAILMAP" export --format jsonl NO-SUCH-CASE --out out1
[ "$err" = "failmap: error: unknown case(s) in $FAILMAP_DB: NO-SUCH-CASE" ] || fail "unknown case: $err"
no_leftovers out1
# ... in a folder of its own: nothing is left there either.
mkdir parent
expect_status 2 "$FAILMAP" export --format pages NO-SUCH-CASE --out parent/out2
[ -z "$(ls -A parent)" ] || fail "a failed export left something beside --out: $(ls -A parent)"

# A failure midway, after the other cases' records were written: the last case in id order has a
# stored run that does not decode.
cp "$FAILMAP_DB" broken.db
sqlite3 broken.db "UPDATE runs SET actuals = '[1' WHERE case_id = 'FA-98921' AND strategy = 0"
expect_status 2 "$FAILMAP" --db broken.db export --format jsonl --tier member --out out3
expect_error_mentions "case FA-98921, broken run actuals"
no_leftovers out3
# An empty folder that was there stays, empty.
mkdir out4
expect_status 2 "$FAILMAP" --db broken.db export --format jsonl --out out4
[ -d out4 ] && [ -z "$(ls -A out4)" ] || fail "a failed export into an empty folder changed it: $(ls -A out4)"
no_leftovers out4/x

# A folder with content is refused and left as it was.
mkdir full && echo keep > full/note.txt
expect_status 2 "$FAILMAP" export --out full
expect_error_mentions "full: folder is not empty (export writes into a new or empty folder)"
[ "$(ls -A full)" = note.txt ] && [ "$(cat full/note.txt)" = keep ] || fail "a refused export changed full/"

# Success: into an empty folder (which keeps its mode), a new one, and through a trailing slash.
chmod 750 out4
expect_status 0 "$FAILMAP" export --format jsonl --out out4 FA-98921
[ "$(stat -c %a out4)" = 750 ] || fail "out4 lost its mode: $(stat -c %a out4)"
(cd out4 && sha256sum -c --quiet SHA256SUMS) || fail "out4 is not a complete bundle"
umask 022
mkdir made
expect_status 0 "$FAILMAP" export --format pages --out made/pages/ FA-98921
[ "$(stat -c %a made/pages)" = 755 ] || fail "a new export folder is not 0755 under umask 022: $(stat -c %a made/pages)"
cmp made/pages/FA-98921.txt <("$FAILMAP" export --format pages --out made2 FA-98921 >/dev/null 2>&1; cat made2/FA-98921.txt) ||
  fail "pages differ between two exports"
[ -z "$(ls -A . | grep failmap-)" ] || fail "staging folders left after successful exports: $(ls -A)"
