#!/usr/bin/env bash
# Import/export throughput and peak memory (issue 3). Prints figures side by
# side with the targets; never asserts (STYLE: no timed tests).
#
#   bench/import_export.sh [N_SMALL [N_LARGE]]     defaults 100000 1000000
#
# Steps: instantiate N_SMALL cases (one transaction), export them as a JSONL
# bundle, import the bundle into an empty archive, export pages; then
# instantiate N_LARGE cases and export them, to compare peak resident memory
# (streaming: the 1M export should stay within 2x the 100k one).
set -euo pipefail
FAILMAP=${FAILMAP:-$(dirname "$0")/../build/failmap}
SMALL=${1:-100000}
LARGE=${2:-1000000}
MECH=gradient-accumulation-weighting
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# measure NAME CASES CMD...: runs CMD under /usr/bin/time -v, prints seconds, cases/s, peak RSS.
measure() {
  local name=$1 cases=$2; shift 2
  /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt"; exit 1; }
  python3 - "$name" "$cases" "$work/time.txt" <<'PY'
import re, sys
name, cases, text = sys.argv[1], int(sys.argv[2]), open(sys.argv[3]).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
secs = 0.0
for part in wall.split(":"):
    secs = secs * 60 + float(part)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
print(f"{name:<34} {cases:>9,} cases  {secs:8.2f} s  {cases / max(secs, 1e-9):>11,.0f} cases/s  peak RSS {rss / 1024:8.1f} MiB")
open(sys.argv[3] + ".rss", "w").write(str(rss))
PY
}

echo "failmap import/export bench: $(nproc) cores, $($FAILMAP --version | head -1)"
measure "instantiate (1 transaction)" "$SMALL" "$FAILMAP" --db "$work/a.db" -q instantiate $MECH --param N=1..$SMALL
measure "export jsonl (open tier)" "$SMALL" "$FAILMAP" --db "$work/a.db" -q export --format jsonl --out "$work/bundle"
rss_small=$(cat "$work/time.txt.rss")
measure "import jsonl bundle (empty archive)" "$SMALL" "$FAILMAP" --db "$work/b.db" -q import "$work/bundle"
measure "export pages (open tier)" "$SMALL" "$FAILMAP" --db "$work/a.db" -q export --format pages --out "$work/pages"
rm -rf "$work/pages"
measure "export jsonl again (import result)" "$SMALL" "$FAILMAP" --db "$work/b.db" -q export --format jsonl --out "$work/bundle2"
diff -rq "$work/bundle" "$work/bundle2" >/dev/null && echo "round trip: identical bytes" || echo "round trip: BUNDLES DIFFER"
rm -rf "$work/b.db"* "$work/bundle2"

measure "instantiate (1 transaction)" "$LARGE" "$FAILMAP" --db "$work/c.db" -q instantiate $MECH --param N=1..$LARGE
measure "export jsonl (open tier)" "$LARGE" "$FAILMAP" --db "$work/c.db" -q export --format jsonl --out "$work/bundle_large"
rss_large=$(cat "$work/time.txt.rss")
python3 -c "print(f'peak RSS of export, {$LARGE:,} vs {$SMALL:,} cases: {$rss_large/$rss_small:.2f}x (target <= 2x)')"
echo "targets: import >= 50,000 cases/s, export >= 100,000 cases/s"
