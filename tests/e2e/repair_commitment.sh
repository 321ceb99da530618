# Repair commitments (schema/DIGESTS.md "Repair commitments"): the worked example recomputed with Python's
# hashlib and json, salts made once and kept (re-exports byte-identical), nothing of the repair at the open tier
# beyond the commitment, and migration 4 giving existing cases their salts.
needs_repairs  # the open build refuses what this scenario does with the repaired strategy
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
salt_hex=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
sqlite3 "$FAILMAP_DB" "UPDATE repair_salts SET salt = X'$salt_hex' WHERE case_id = 'FA-98921'"
expect_status 0 "$FAILMAP" export --format jsonl --tier open --out open
expect_status 0 "$FAILMAP" export --format jsonl --tier member --out member
"$FAILMAP" reference FA-98921 --strategy repaired > ref_repaired.py
python3 - "$salt_hex" > python.txt <<'PY'
import hashlib, json, subprocess, sys
salt = bytes.fromhex(sys.argv[1])
source = json.loads(open("member/mechanisms.jsonl", encoding="utf-8").readline())["strategies"]["repaired"]
p = subprocess.run([sys.executable, "ref_repaired.py"], capture_output=True)
record = {"scheme": "failmap-repair", "version": 1, "case": "FA-98921", "strategy": "repaired", "source": source,
          "exit_status": p.returncode, "observation_digest": hashlib.sha256(p.stdout.rstrip(b"\n")).hexdigest()}
canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
print(hashlib.sha256(salt + canonical).hexdigest())
print(canonical.decode("utf-8"))
PY
python_commitment=$(head -1 python.txt)
field() { python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])" "$1" "$2"; }
[ "$(field open/cases.jsonl repair_commitment)" = "$python_commitment" ] ||
  fail "open commitment $(field open/cases.jsonl repair_commitment), Python says $python_commitment"
[ "$(field member/cases.jsonl repair_commitment)" = "$python_commitment" ] || fail "member commitment differs"
[ "$(field member/cases.jsonl repair_salt)" = "$salt_hex" ] || fail "member salt is not the archive's"
documented=$(grep -oE 'commitment `[0-9a-f]{64}`' "$SRC/schema/DIGESTS.md" | grep -oE '[0-9a-f]{64}')
[ "$documented" = "$python_commitment" ] || fail "DIGESTS.md documents $documented, Python says $python_commitment"
grep -qF "$(sed -n 2p python.txt | cut -c1-120)" "$SRC/schema/DIGESTS.md" || fail "DIGESTS.md does not show the canonical record"
expect_status 0 "$FAILMAP" verify-bundle member --open open

# The open tier holds nothing of the repair but the commitment: no source, no repaired digest, no salt.
repaired_digest=$(python3 ref_repaired.py | head -c -1 | sha256sum | cut -d' ' -f1)
# The whole repaired source as the JSONL files spell it (its last line alone also occurs in other sources).
src_json=$(python3 -c "import json; print(json.dumps(json.loads(open('member/mechanisms.jsonl').readline())['strategies']['repaired'], ensure_ascii=False))")
for needle in "$repaired_digest" "$salt_hex" "$src_json" '"repair_salt"'; do
  ! grep -rqF -- "$needle" open || fail "the open bundle contains '$needle'"
done
grep -rqF -- "$src_json" member || fail "the leak scan's needle is not in the member bundle either: $src_json"

# Recording runs changes nothing in the commitment; re-exports are byte-identical.
expect_status 1 "$FAILMAP" run FA-98921
expect_status 0 "$FAILMAP" export --format jsonl --tier open --out open2
[ "$(field open2/cases.jsonl repair_commitment)" = "$python_commitment" ] || fail "recording runs changed the commitment"
expect_status 0 "$FAILMAP" export --format jsonl --tier open --out open3
diff -r open2 open3 >/dev/null || fail "re-export differs"

# New cases get fresh, distinct 32-byte salts; an open bundle imported elsewhere keeps its published commitment.
expect_status 0 "$FAILMAP" instantiate gradient-accumulation-weighting --param N=2..4 --id-prefix T
[ "$(sqlite3 "$FAILMAP_DB" "SELECT count(DISTINCT salt) FROM repair_salts WHERE length(salt) = 32")" = 4 ] || fail "salts"
expect_status 0 "$FAILMAP" --db other.db import open
expect_status 0 "$FAILMAP" --db other.db export --format jsonl --tier open --out open_rt
diff open/cases.jsonl open_rt/cases.jsonl >/dev/null || fail "open round trip changed the commitment"

# Migration 4 on an archive from before it: every case gets a salt.
# (schema 1-3 from the migration files, the content of the current archive).
for f in "$SRC"/schema/00[1-3]_*.sql; do sqlite3 old.db <"$f"; done
cols="id, mechanism_id, variant, title, tier, summary, root_cause, failure, unsuccessful_approach, contract, why_it_matters, scope, params, evaluation_group, recorded_runtime, recorded_at, published_case_digest, field_digests"
sqlite3 old.db "ATTACH '$FAILMAP_DB' AS n; INSERT INTO mechanisms SELECT * FROM n.mechanisms;
  INSERT INTO cases($cols) SELECT $cols FROM $(v6_cases n);
  INSERT INTO published_runs SELECT * FROM n.published_runs; PRAGMA user_version = 3"
copy_fixture_rows "$FAILMAP_DB" old.db
expect_status 0 "$FAILMAP" --db old.db import "$SRC/cases/FA-98921.json"
[ "$(sqlite3 old.db "SELECT count(*) FROM repair_salts WHERE length(salt) = 32")" = 4 ] || fail "migration 4 did not fill the salts"
[ "$(sqlite3 old.db "PRAGMA user_version")" -ge 4 ] || fail "migration 4 not recorded"
