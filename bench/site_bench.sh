#!/usr/bin/env bash
# export --format site over CASES cases (default 10,000 and 100,000 of the
# seed mechanism, made by `failmap instantiate`), at --jobs 1 and 2: wall and
# CPU seconds, cases per wall and per CPU second, peak RSS and the folder's
# size. Prints; never asserts (STYLE: no timed tests).
#
#   bench/site_bench.sh [CASES...]
set -euo pipefail
FAILMAP=${FAILMAP:-$(dirname "$0")/../build/failmap}
[ $# -gt 0 ] || set -- 10000 100000
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-site-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '%-9s %-5s %8s %8s %10s %10s %9s %9s\n' cases jobs wall_s cpu_s cases/s cases/cpu_s rss_MiB site_MiB
for n in "$@"; do
  rm -f "$work/a.db"*
  "$FAILMAP" --db "$work/a.db" --quiet instantiate gradient-accumulation-weighting --param N=1..$n --id-prefix B >/dev/null
  for jobs in 1 2; do
    rm -rf "$work/site"
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$FAILMAP" --db "$work/a.db" --quiet export --format site \
      --jobs $jobs --out "$work/site"
    read -r wall user sys rss <"$work/time.txt"
    size=$(du -sm "$work/site" | cut -f1)
    python3 -c "import sys; n,j,w,u,s,r,z=sys.argv[1:]; w,c=float(w),float(u)+float(s); print('%-9s %-5s %8.2f %8.2f %10.0f %10.0f %9.1f %9s'%(n,j,w,c,int(n)/w,int(n)/c,int(r)/1024,z))" \
      "$n" "$jobs" "$wall" "$user" "$sys" "$rss" "$size"
  done
done
