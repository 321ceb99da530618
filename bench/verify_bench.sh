#!/usr/bin/env bash
# Speed of `failmap verify` and of failmap's hashing, printed side by side.
#
#   bench/verify_bench.sh [BUILD_DIR] [CASES]     (defaults: build, 100000)
#
# Builds an archive of CASES cases with all runs recorded (the seed case copied
# under new ids with SQL, `failmap digest regenerate` digests them, then
# `failmap run --all` records every run and its digests), times `failmap verify` over it (replay included), then hashes the
# bytes verify hashes — written to a file — with failmap (message by message,
# as verify does), `sha256sum` and `openssl dgst -sha256`, in the same run.
# Targets: verify >= 50,000 cases/s; failmap hashing >= 0.8x openssl.
# Wall and CPU (user + sys) times are both printed: on a shared machine the
# CPU figures are the comparable ones.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(readlink -f "${1:-$here/build}")
n=${2:-100000}
failmap=$build/failmap
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export FAILMAP_DB=$work/bench.db
# cpu_time CMD...: runs CMD, prints "WALL CPU" seconds (CPU = user + sys).
cpu_time() { /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$@" >"$work/out.txt"; awk '{printf "%s %.2f\n", $1, $2 + $3}' "$work/time.txt"; }
rate() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):,.0f}')" "$@"; }

"$failmap" import "$here/cases/FA-98921.json" >/dev/null
# The case row's columns since schema 7 (the prose is in case_texts, shared
# through text_id); field digests are left NULL, as for a row made by hand,
# and `digest regenerate` computes them and the case digests (a recorded
# run refuses a case whose digests do not describe it).
cols="mechanism_id, variant, tier, text_id, params, evaluation_group, recorded_runtime, recorded_at, fixture_labels, fixture_values"
sqlite3 "$FAILMAP_DB" "
  WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $n - 1)
  INSERT INTO cases(id, $cols, published_case_digest) SELECT printf('FB-%06d', i), $cols, '' FROM cases, k WHERE id = 'FA-98921';"
"$failmap" -q digest regenerate >/dev/null
read -r wall cpu < <(cpu_time "$failmap" -q run --all)
echo "archive: $n cases, $((3 * n)) recorded runs; run --all (replay + record + digests): wall $wall s, CPU $cpu s"

for jobs in 1 2; do
  read -r wall cpu < <(cpu_time "$failmap" verify --jobs "$jobs")
  echo "verify --jobs $jobs: wall $wall s = $(rate $n "$wall") cases/s; CPU $cpu s = $(rate $n "$cpu") cases/s (target >= 50,000)"
done
tail -1 "$work/out.txt"

"$build/failmap_hash_bench" "$FAILMAP_DB" "$work/hashed.bin" >"$work/hash.txt"
read -r _ bytes fm_s _ <"$work/hash.txt"
cat "$work/hashed.bin" >/dev/null   # warm the page cache
read -r _ sum_s < <(cpu_time sha256sum "$work/hashed.bin")
read -r _ ossl_s < <(cpu_time openssl dgst -sha256 "$work/hashed.bin")
mbps() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]) / 1e6:.0f}')" "$bytes" "$1"; }
echo "hashing the same $bytes bytes ($(sed 's/.*messages=\([0-9]*\).*/\1/' "$work/hash.txt") messages), CPU time:"
printf '  %-36s %6s MB/s\n' "failmap (message by message, EVP)" "$(mbps "$fm_s")" "sha256sum (one stream)" "$(mbps "$sum_s")" \
  "openssl dgst -sha256 (one stream)" "$(mbps "$ossl_s")"
echo "  failmap / openssl = $(python3 -c "import sys; print(f'{float(sys.argv[2]) / float(sys.argv[1]):.2f}')" "$fm_s" "$ossl_s")x (target >= 0.8x)"
