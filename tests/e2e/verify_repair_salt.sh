# A repair salt changed behind failmap's back is found by verify: each
# repair_salts row keeps its seal digest (schema/009_seal_digests.sql), which
# `digest regenerate` accepts a change into. Before, nothing covered the salt:
# verify said every case matched while every exported repair commitment changed.
needs_repairs  # the repair salt and commitment are checked against the repaired record
"$FAILMAP" -q import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11135.json" >/dev/null
expect_status 0 "$FAILMAP" verify
# The stored digest is SHA-256("failmap-seal-v1\0salt\0" || salt), computed here by Python.
python3 - "$FAILMAP_DB" <<'PY' || fail "seal digest of the stored salt"
import hashlib, sqlite3, sys
for case, salt, commitment, digest in sqlite3.connect(sys.argv[1]).execute("SELECT case_id, salt, commitment, seal_digest FROM repair_salts"):
    assert commitment is None and len(salt) == 32, case
    assert digest == hashlib.sha256(b"failmap-seal-v1\0salt\0" + salt).digest(), case
PY
cp "$FAILMAP_DB" tampered.db
sqlite3 tampered.db "UPDATE repair_salts SET salt = zeroblob(32) WHERE case_id = 'FA-98921'"
stored=$(sqlite3 tampered.db "SELECT lower(hex(seal_digest)) FROM repair_salts WHERE case_id = 'FA-98921'")
recomputed=$(python3 -c 'import hashlib; print(hashlib.sha256(b"failmap-seal-v1\0salt\0" + bytes(32)).hexdigest())')
expect_status 1 "$FAILMAP" --db tampered.db verify
[ "$out" = "FA-98921  -  seal_digest (repair_salt): stored $stored, recomputed $recomputed
verified 2 case(s) and 0 replayed run(s): 1 mismatch(es)" ] || fail "verify of a changed salt: $out"
expect_status 1 "$FAILMAP" --db tampered.db verify FA-98921 --json
printf '%s\n' "$out" | grep -qF "{\"case\":\"FA-98921\",\"strategy\":null,\"field\":\"seal_digest (repair_salt)\",\"stored\":\"$stored\",\"recomputed\":\"$recomputed\"}" ||
  fail "verify --json of a changed salt: $out"
expect_status 0 "$FAILMAP" --db tampered.db verify FA-11135
# A seal digest set NULL by hand is a mismatch too.
cp "$FAILMAP_DB" nulled.db
sqlite3 nulled.db "UPDATE repair_salts SET seal_digest = NULL WHERE case_id = 'FA-11135'"
expect_status 1 "$FAILMAP" --db nulled.db verify
printf '%s\n' "$out" | grep -q "^FA-11135  -  seal_digest (repair_salt): stored null, recomputed [0-9a-f]\{64\}$" || fail "NULL seal digest: $out"
# digest regenerate accepts the change; verify is clean again.
expect_status 0 "$FAILMAP" --db tampered.db digest regenerate
printf '%s\n' "$out" | grep -qF "FA-98921  -  seal_digest (repair_salt): was $stored, now $recomputed" || fail "regenerate: $out"
expect_status 0 "$FAILMAP" --db tampered.db verify

# An archive of schema version 8 (no seal digests) is brought forward by
# migrate, which computes every row's; verify is then clean.
cp "$FAILMAP_DB" v8.db
python3 - v8.db "$SRC/schema/008_commitment_bytes.sql" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript(open(sys.argv[2]).read())  # repair_salts_v8 as version 8 made it
db.executescript("""
INSERT INTO repair_salts_v8 SELECT case_id, salt, commitment FROM repair_salts;
DROP TABLE repair_salts;
ALTER TABLE repair_salts_v8 RENAME TO repair_salts;
PRAGMA user_version = 8;
""")
db.commit()
PY
expect_status 2 "$FAILMAP" --db v8.db verify
expect_error_mentions "needs migration"
expect_status 0 "$FAILMAP" --db v8.db migrate
expect_status 0 "$FAILMAP" --db v8.db verify
[ "$(sqlite3 v8.db "SELECT lower(hex(seal_digest)) FROM repair_salts ORDER BY case_id")" = "$(sqlite3 "$FAILMAP_DB" "SELECT lower(hex(seal_digest)) FROM repair_salts ORDER BY case_id")" ] ||
  fail "migrate computed other seal digests than import stored"

# A case imported from an open bundle keeps the published commitment, not a
# salt: its seal digest covers the commitment, and a changed one is found.
"$FAILMAP" -q export --format jsonl --tier open --out open FA-98921
"$FAILMAP" --db fromopen.db -q import open >/dev/null
python3 - fromopen.db <<'PY' || fail "seal digest of a kept commitment"
import hashlib, sqlite3, sys
((salt, commitment, digest),) = sqlite3.connect(sys.argv[1]).execute("SELECT salt, commitment, seal_digest FROM repair_salts")
assert salt is None and len(commitment) == 32
assert digest == hashlib.sha256(b"failmap-seal-v1\0commitment\0" + commitment).digest()
PY
sqlite3 fromopen.db "UPDATE repair_salts SET commitment = zeroblob(32)"
expect_status 1 "$FAILMAP" --db fromopen.db verify
printf '%s\n' "$out" | grep -q "^FA-98921  -  seal_digest (repair_commitment): stored [0-9a-f]\{64\}, recomputed [0-9a-f]\{64\}$" ||
  fail "verify of a changed commitment: $out"
