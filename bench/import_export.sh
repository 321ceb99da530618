#!/usr/bin/env bash
# Import/export throughput and peak memory. Prints figures side by
# side with the targets; never asserts (STYLE: no timed tests).
#
#   bench/import_export.sh [N_SMALL [N_LARGE]]     defaults 100000 1000000
#
# Steps: instantiate N_SMALL cases (one transaction), export them as a JSONL
# bundle, import the bundle into an empty archive, export pages; then
# instantiate N_LARGE cases and export them, to compare peak resident memory
# (streaming: the 1M export should stay within 2x the 100k one).
#
# Each line: wall seconds, cases per wall second, cases per CPU second
# (user + sys, the figure that holds on a shared machine), peak RSS, and for
# the measured targets the ratio figure/target (>= 1.00x meets it).
set -euo pipefail
FAILMAP=${FAILMAP:-$(dirname "$0")/../build/failmap}
SMALL=${1:-100000}
LARGE=${2:-1000000}
MECH=gradient-accumulation-weighting
IMPORT_TARGET=50000   # cases/s
EXPORT_TARGET=100000  # cases/s
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# measure NAME CASES TARGET CMD...: runs CMD under /usr/bin/time -v and prints
# seconds, cases/s (wall and CPU), peak RSS and, when TARGET > 0, the ratio of
# cases per wall second to TARGET (and per CPU second in parentheses).
measure() {
  local name=$1 cases=$2 target=$3; shift 3
  /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt"; exit 1; }
  python3 - "$name" "$cases" "$target" "$work/time.txt" <<'PY'
import re, sys
name, cases, target, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
text = open(path).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
secs = 0.0
for part in wall.split(":"):
    secs = secs * 60 + float(part)
cpu = float(re.search(r"User time \(seconds\): (\S+)", text).group(1)) + \
      float(re.search(r"System time \(seconds\): (\S+)", text).group(1))
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
per_wall = cases / max(secs, 1e-9)
per_cpu = cases / max(cpu, 1e-9)
line = (f"{name:<34} {cases:>9,} cases  {secs:7.2f} s wall {cpu:7.2f} s cpu  "
        f"{per_wall:>9,.0f}/s wall {per_cpu:>9,.0f}/s cpu  peak RSS {rss / 1024:7.1f} MiB")
if target:
    line += f"  target {target:,}/s: {per_wall / target:.2f}x ({per_cpu / target:.2f}x cpu)"
print(line)
open(path + ".rss", "w").write(str(rss))
PY
}

echo "failmap import/export bench: $(nproc) cores, $($FAILMAP --version | head -1)"
measure "instantiate (1 transaction)" "$SMALL" 0 "$FAILMAP" --db "$work/a.db" -q instantiate $MECH --param N=1..$SMALL
measure "export jsonl (open tier)" "$SMALL" $EXPORT_TARGET "$FAILMAP" --db "$work/a.db" -q export --format jsonl --out "$work/bundle"
rss_small=$(cat "$work/time.txt.rss")
measure "import jsonl bundle (empty archive)" "$SMALL" $IMPORT_TARGET "$FAILMAP" --db "$work/b.db" -q import "$work/bundle"
measure "export pages (open tier)" "$SMALL" 0 "$FAILMAP" --db "$work/a.db" -q export --format pages --out "$work/pages"
rm -rf "$work/pages"
measure "export jsonl again (import result)" "$SMALL" $EXPORT_TARGET "$FAILMAP" --db "$work/b.db" -q export --format jsonl --out "$work/bundle2"
diff -rq "$work/bundle" "$work/bundle2" >/dev/null && echo "round trip: identical bytes" || echo "round trip: BUNDLES DIFFER"
rm -rf "$work/b.db"* "$work/bundle2" "$work/bundle"

measure "instantiate (1 transaction)" "$LARGE" 0 "$FAILMAP" --db "$work/c.db" -q instantiate $MECH --param N=1..$LARGE
measure "export jsonl (open tier)" "$LARGE" $EXPORT_TARGET "$FAILMAP" --db "$work/c.db" -q export --format jsonl --out "$work/bundle_large"
rss_large=$(cat "$work/time.txt.rss")
python3 -c "r = $rss_large / $rss_small; print(f'peak RSS of export, {$LARGE:,} vs {$SMALL:,} cases: {r:.2f}x (target <= 2x: {\"met\" if r <= 2 else \"NOT met\"})')"
echo "targets: import >= ${IMPORT_TARGET} cases/s, export >= ${EXPORT_TARGET} cases/s, export peak RSS at ${LARGE} <= 2x at ${SMALL}"
