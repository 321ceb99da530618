#!/usr/bin/env bash
# failmap split vs scikit-learn on one generated listing: 1,000,000 items in 20,000 groups with
# Zipf-like sizes (weights 1/rank^1.1). Prints figures side by side; asserts nothing (not a test).
#
#   bench/split_bench.sh [build/failmap]
#
# Installs Debian's python3-sklearn if missing (needs root); uses /usr/bin/python3, which sees it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
failmap=$(readlink -f "${1:-$here/../build/failmap}")
py=/usr/bin/python3
if ! "$py" -c "import sklearn" 2>/dev/null; then
  echo "installing python3-sklearn (Debian)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-sklearn >/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/failmap-split-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
seeds="0 1 2 3 4 5 6 7 8 9"

"$py" "$here/split_bench.py" gen items.jsonl
# timed OUT CMD...: runs CMD, appends "wall cpu rss" to OUT: seconds (cpu = user + system) and peak RSS in KiB.
timed() { local out=$1; shift; /usr/bin/time -f "%e %U %S %M" -o t.txt "$@"; awk '{print $1, $2 + $3, $4}' t.txt >> "$out"; }

# failmap: end to end (read, split, write assignments, split files, manifest, SHA256SUMS), one process per seed.
fm_shares=() fm_leaks=()
for s in $seeds; do
  timed fm_times.txt "$failmap" -q split --input items.jsonl --group-field group --ratios train=0.8,test=0.2 \
    --seed "$s" --out "fm$s"
  fm_shares+=("$("$py" -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["splits"][1]["achieved"])' "fm$s/manifest.json")")
  fm_leaks+=("$("$py" "$here/split_bench.py" audit items.jsonl "fm$s/assignments.jsonl")")
  [ "$s" = 0 ] && { "$failmap" -q split check "fm$s" --input items.jsonl --group-field group >/dev/null &&
                    echo "failmap split check fm0: clean (exit 0)"; }
  rm -rf "fm$s"
done
"$failmap" -q split --input items.jsonl --group-field group --folds 5 --seed 0 --out fm_folds
fm_folds=$("$py" -c 'import json; m=json.load(open("fm_folds/manifest.json")); print(" ".join(str(s["items"]) for s in m["splits"]))')
fm_fold_leak=$("$py" "$here/split_bench.py" audit items.jsonl fm_folds/assignments.jsonl)
"$failmap" -q split --input items.jsonl --group-field group --ratios train=0.8,test=0.2 --stable --seed 0 --out fm_stable
fm_stable=$("$py" -c 'import json; m=json.load(open("fm_stable/manifest.json")); print(m["splits"][1]["achieved"])')

# scikit-learn: the same end to end in one process per seed (read with json, split, write assignments).
for s in 0 1 2; do
  timed sk_times.txt "$py" "$here/split_bench.py" sklearn items.jsonl "sk$s.jsonl" "$s" >/dev/null
done
sk_leak=$("$py" "$here/split_bench.py" audit items.jsonl sk0.jsonl)
sk=$("$py" "$here/split_bench.py" stats items.jsonl $seeds)

echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
"$py" - "$sk" "${fm_shares[*]}" "$(cat fm_times.txt)" "$(cat sk_times.txt)" "$fm_folds" "${fm_leaks[*]}" "$sk_leak" \
      "$fm_fold_leak" "$fm_stable" <<'PY'
import json, sys
sk = json.loads(sys.argv[1])
fm_shares = [float(x) for x in sys.argv[2].split()]
fm_times = [tuple(map(float, l.split())) for l in sys.argv[3].splitlines()]
sk_times = [tuple(map(float, l.split())) for l in sys.argv[4].splitlines()]
med = lambda xs: sorted(xs)[len(xs) // 2]
fm_folds = [int(x) for x in sys.argv[5].split()]
fm_leaks = [int(x) for x in sys.argv[6].split()]
sk_leak, fm_fold_leak, fm_stable = int(sys.argv[7]), int(sys.argv[8]), float(sys.argv[9])
gss = [s for _, s, _ in sk["gss"]]
gss_leak = sum(l for _, _, l in sk["gss"])
gkf = sk["gkf_sizes"]
print()
print("test share asked 0.2, 10 seeds   %-28s %s" % ("scikit-learn GroupShuffleSplit", "failmap split --ratios"))
for (seed, s, _), f in zip(sk["gss"], fm_shares):
    print("  seed %-27d %-28.4f %.4f" % (seed, s, f))
print("  %-32s %-28s %s" % ("range", "%.4f .. %.4f" % (min(gss), max(gss)), "%.4f .. %.4f" % (min(fm_shares), max(fm_shares))))
print("  %-32s %-28s %s" % ("worst |share - 0.2| (pp)", "%.2f" % (100 * max(abs(x - 0.2) for x in gss)),
                            "%.3f" % (100 * max(abs(x - 0.2) for x in fm_shares))))
print("  %-32s %-28d %d" % ("groups in both splits", gss_leak, sum(fm_leaks)))
print("  failmap --stable, seed 0: test share %.4f (what stable mode gives up)" % fm_stable)
print()
print("5 folds                          %-28s %s" % ("scikit-learn GroupKFold(5)", "failmap split --folds 5"))
print("  %-32s %-28s %s" % ("items per fold", ",".join(map(str, gkf)), ",".join(map(str, fm_folds))))
print("  %-32s %-28.4f %.4f" % ("spread max/min", max(gkf) / min(gkf), max(fm_folds) / min(fm_folds)))
print("  %-32s %-28s %d" % ("groups in two folds", "0 (by construction)", fm_fold_leak))
print()
print("seconds, end to end              %-28s %s" % ("scikit-learn (3 runs)", "failmap (10 runs)"))
print("  %-32s %-28.3f %.3f" % ("wall, median", med([w for w, _, _ in sk_times]), med([w for w, _, _ in fm_times])))
print("  %-32s %-28.3f %.3f" % ("wall, min", min(w for w, _, _ in sk_times), min(w for w, _, _ in fm_times)))
print("  %-32s %-28.3f %.3f" % ("cpu (user+sys), median", med([c for _, c, _ in sk_times]), med([c for _, c, _ in fm_times])))
print("  %-32s %-28.1f %.1f" % ("peak RSS MiB, median", med([r for _, _, r in sk_times]) / 1024,
                              med([r for _, _, r in fm_times]) / 1024))
print("  scikit-learn split alone (arrays in memory): %.3f s per seed" % sk["gss_split_seconds"])
print("  assignments leaking groups (seed 0): scikit-learn %d, failmap %d" % (sk_leak, fm_leaks[0]))
PY
