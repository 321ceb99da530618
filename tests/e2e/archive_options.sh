# --db and FAILMAP_DB choose the archive; a newer schema version is refused;
# imports are idempotent and conflicting content is refused.
"$FAILMAP" --db a.db import "$SRC/cases/FA-98921.json" >/dev/null
[ -f a.db ] || fail "--db did not create a.db"
FAILMAP_DB=b.db "$FAILMAP" import "$SRC/cases/FA-98921.json" >/dev/null
[ -f b.db ] || fail "FAILMAP_DB did not create b.db"
expect_status 0 "$FAILMAP" --db a.db import "$SRC/cases/FA-98921.json"
echo "$out" | grep -q "nothing changed" || fail "re-import did not say nothing changed"
# --db and --quiet also after the command, as users type them.
expect_status 0 "$FAILMAP" list --db a.db
echo "$out" | grep -q "^FA-98921 " || fail "list --db a.db did not list a.db: $out"
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json" --db b.db -q
echo "$out" | grep -q "nothing changed" || fail "import --db b.db after the command: $out"
expect_status 2 "$FAILMAP" list --db
expect_error_mentions "--db: 1 required TEXT missing"

# Refuse an archive written by a newer failmap.
sqlite3 a.db "PRAGMA user_version = 999"
expect_status 2 "$FAILMAP" --db a.db list
expect_error_mentions "schema version 999"

# Same id, different content: refused.
python3 - "$SRC/cases/FA-98921.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["title"] = "Another title"
json.dump(c, open("changed.json", "w"))
PY
before=$(archive_state b.db)
expect_status 2 "$FAILMAP" --db b.db import changed.json
expect_error_mentions "already exists"
[ "$(archive_state b.db)" = "$before" ] || fail "conflicting import changed the archive"

# Runs are recorded with their digest: SHA-256 of the document bytes.
expect_status 1 "$FAILMAP" --db b.db run FA-98921 --strategy broken --format json
digest=$(printf '%s' "$out" | sha256sum | cut -d' ' -f1)
[ "$digest" = "a378d6ff06041f516e6a464753268da9846e841d91153f083e4c1990d69d8c68" ] || fail "unexpected document digest $digest"
stored=$(sqlite3 b.db "SELECT lower(hex(digest)) FROM runs WHERE case_id='FA-98921' AND strategy=0")
[ "$stored" = "$digest" ] || fail "recorded digest $stored != $digest"
