#!/usr/bin/env bash
# Memory and time of `failmap split` and `failmap split check` over an archive
# (archives up to a million cases). The archive: the 10 compiled
# mechanisms other than the seed's, CASES/10 cases each, plus the published
# seed page (failmap import), with every run recorded (failmap run --all).
# Each mechanism is instantiated at N = 1..100 under CASES/1000 id prefixes
# (P1-..., P2-...): several mechanisms grow their fixtures and observations
# with N (token-weighted-accumulation-loss holds about 20 KB of fixtures at
# N = 1,000), so N = 1..10,000 would make a 100,000-case archive of 4.8 GB.
# The prefixes also give every case content duplicates, which --group-by
# content links. Prints, per command, peak RSS (/usr/bin/time %M), wall and
# CPU (user+sys: the machine may be shared) seconds. With OLD_FAILMAP=path,
# runs that binary on the same archive in the same run, prints its figures
# beside and the ratios, and compares the two split folders byte for byte.
# Asserts nothing (not a test).
#
#   [FAILMAP=build/failmap] [OLD_FAILMAP=old/failmap] bench/split_archive_bench.sh [CASES]   (default 100000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
FAILMAP=$(readlink -f "${FAILMAP:-$here/../build/failmap}")
OLD=${OLD_FAILMAP:+$(readlink -f "$OLD_FAILMAP")}
cases=${1:-100000}
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-split-archive-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export FAILMAP_DB="$work/a.db"

prefixes=$(( (cases + 999) / 1000 ))
for m in distributed-sampler-padding ema-bias-correction global-norm-clipping linear-decay-final-step \
         padded-token-loss-mean partial-accumulation-flush resume-batch-skip steps-per-epoch-with-accumulation \
         token-weighted-accumulation-loss warmup-off-by-one; do
  for ((p = 1; p <= prefixes; p++)); do
    "$FAILMAP" -q instantiate "$m" --param "N=1..100" --id-prefix "P$p" >/dev/null
  done
done
"$FAILMAP" -q import "$here/../tests/data/seeds/000_b91ddc69b4d265ed.txt" >/dev/null
"$FAILMAP" -q run --all >/dev/null || true  # exit 1: broken strategies fail their checks
sqlite3 a.db "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
n=$(sqlite3 a.db "SELECT count(*) FROM cases")
runs=$(sqlite3 a.db "SELECT count(*) FROM runs")
echo "archive: $n cases, $runs recorded runs, $(( $(stat -c %s a.db) / 1048576 )) MiB; $(nproc) CPU(s), load average $(cut -d' ' -f1-3 /proc/loadavg)"

# measure WHO LABEL ARGS...: runs `failmap ARGS` (exit 0 or 1), appends "LABEL|WHO|rss_kib wall cpu" to figures.
measure() {
  local who=$1 label=$2; shift 2
  local bin=$FAILMAP; [ "$who" = old ] && bin=$OLD
  /usr/bin/time -f "%M %e %U %S" -o t.txt "$bin" -q "$@" >/dev/null || [ $? = 1 ]
  awk -v l="$label" -v w="$who" '{printf "%s|%s|%d %.2f %.2f\n", l, w, $1, $2, $3 + $4}' t.txt >> figures
}
: > figures
same=()
# both LABEL NAME ARGS...: `split ARGS --out WHO-NAME` by the new binary, then the old one; compares
# and removes the two folders (a million-case split folder holds gigabytes).
both() {
  local label=$1 name=$2; shift 2
  measure new "$label" split "$@" --out "new-$name"
  if [ -n "$OLD" ]; then
    measure old "$label" split "$@" --out "old-$name"
    if diff -r "old-$name" "new-$name" >/dev/null; then same+=("split folders $name: byte-identical (old, new)")
    else same+=("split folders $name: DIFFERENT"); fi
    rm -rf "old-$name"
  fi
  [ "$name" = ratios ] || rm -rf "new-$name"
}
both "split --ratios train=0.8,test=0.2 --test-tier open" ratios --ratios train=0.8,test=0.2 --test-tier open
both "split --folds 5 --group-by content" folds --folds 5 --group-by content --seed 3
both "split --folds 2 --stable --test-tier open" stable --folds 2 --stable --test-tier open
measure new "split check (ratios folder)" split check new-ratios
[ -n "$OLD" ] && measure old "split check (ratios folder)" split check new-ratios

python3 - figures "${OLD:+old}" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    label, who, figs = line.rstrip("\n").split("|")
    rss, wall, cpu = figs.split()
    rows.setdefault(label, {})[who] = (int(rss), float(wall), float(cpu))
old = sys.argv[2] == "old"
if old:
    print("%-50s %21s %21s %21s" % ("command", "peak RSS MiB old/new", "wall s old/new", "CPU s old/new"))
else:
    print("%-50s %12s %8s %8s" % ("command", "peak RSS MiB", "wall s", "CPU s"))
for label, r in rows.items():
    n = r["new"]
    if old:
        o = r["old"]
        print("%-50s %7.0f / %-5.0f %5.1fx %6.2f / %-6.2f %4.1fx %6.2f / %-6.2f %4.1fx" % (
            label, o[0] / 1024, n[0] / 1024, o[0] / n[0], o[1], n[1], o[1] / max(n[1], 0.01),
            o[2], n[2], o[2] / max(n[2], 0.01)))
    else:
        print("%-50s %12.0f %8.2f %8.2f" % (label, n[0] / 1024, n[1], n[2]))
PY
for line in "${same[@]}"; do echo "$line"; done
