#!/usr/bin/env bash
# Builds the libFuzzer targets in bench/fuzz/ with address and undefined-
# behaviour sanitizers (Debian clang) and runs each, one after the other, for
# SECONDS (default 60), seeded from the repository: each target's inputs in
# tests/data/fuzz/NAME/ (which the test suite replays), plus cases/ in the
# target's format (pages: tests/data/seeds/ and every case of cases/
# exported at both tiers). A crash input found here belongs in
# tests/data/fuzz/NAME/crash_WHAT with the fix, so every test pass replays it.
# Corpora grow across runs in bench/fuzz/out/NAME.corpus; crash, timeout and
# OOM inputs land in bench/fuzz/out/NAME-crash-… (-timeout=10 s, 2 GiB RSS).
# Ends with one table: per target the wall and CPU (user+sys) seconds, execs,
# execs per wall second, libFuzzer's final cov (edges) and ft (features),
# corpus size (inputs, bytes) and the crashes/hangs/OOMs of this run.
# Usage: bench/fuzz.sh [SECONDS] [TARGET...]   (TARGET e.g. fuzz_page)
set -euo pipefail
secs=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=$root/tests/data/seeds
out=$root/bench/fuzz/out
build=$root/build-fuzz
# Debian clang and its matching compiler-rt (libFuzzer, sanitizer runtimes).
command -v clang++ >/dev/null || apt-get install -y clang
ver=$(clang++ --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
ls /usr/lib/llvm-"$ver"/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
  apt-get install -y "libclang-rt-$ver-dev" || apt-get install -y "libclang-common-$ver-dev"
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g -O1"
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFAILMAP_TESTS=OFF -DFAILMAP_JEMALLOC=OFF \
  -DCMAKE_CXX_FLAGS="$flags" >/dev/null
jobs=$(nproc); [ "$jobs" -gt 2 ] && jobs=2
cmake --build "$build" --target failmap_lib failmap -j "$jobs" >/dev/null
mkdir -p "$out"

# Page seeds: the published seeds, and every case of cases/ exported as pages at both tiers.
pages=$out/pages.seed
if [ ! -d "$pages" ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  "$build/failmap" --db "$tmp/a.db" -q import "$root/cases/" >/dev/null
  for tier in open member; do
    "$build/failmap" --db "$tmp/a.db" -q export --format pages --tier "$tier" --out "$tmp/$tier" >/dev/null
    for f in "$tmp/$tier"/*.txt; do cp "$f" "$tmp/p.$tier.$(basename "$f")"; done
  done
  mkdir -p "$pages.tmp" && mv "$tmp"/p.*.txt "$pages.tmp"/ && cp "$seeds"/*.txt "$pages.tmp"/ && mv "$pages.tmp" "$pages"
fi

targets=("$@")
[ ${#targets[@]} -gt 0 ] || for src in "$root"/bench/fuzz/fuzz_*.cc; do targets+=("$(basename "$src" .cc)"); done
rows=()
for name in "${targets[@]}"; do
  clang++ -std=c++20 $flags -fsanitize=fuzzer -I"$root/src" "$root/bench/fuzz/$name.cc" "$build/libfailmap_lib.a" \
    -lsqlite3 -lcrypto -lseccomp -lmstch -lpthread -o "$build/$name"
  corpus=$out/$name.corpus; mkdir -p "$corpus"
  # Seeds: the target's inputs kept in the repository (tests/data/fuzz/NAME/,
  # replayed by the test suite), plus the shipped cases in the target's format.
  cp "$root"/tests/data/fuzz/"$name"/* "$corpus"/
  case $name in
    fuzz_expr) cp "$root"/src/mechanisms/*.cc "$corpus"/ ;;
    fuzz_jsonl) for f in "$root"/cases/*.json; do python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$f" \
                  > "$corpus/$(basename "$f" .json).jsonl"; done ;;
    fuzz_page) cp "$pages"/*.txt "$corpus"/ ;;
    fuzz_json|fuzz_jcs) cp "$root"/cases/*.json "$corpus"/ ;;
  esac
  before=$(ls "$out" | grep -c "^$name-" || true)
  echo "== $name ($secs s)"
  start=$(date +%s.%N)
  status=0
  (cd "$out" && /usr/bin/time -f "%U %S" -o "$out/$name.cpu" "$build/$name" -max_total_time="$secs" -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/$name-" "$corpus" 2>"$out/$name.log") || status=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  [ "$status" = 0 ] || echo "   CRASH, hang or error (exit $status): see $out/$name.log"
  grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$out/$name.log" | sed 's/^/   /' || true
  found=$(( $(ls "$out" | grep -c "^$name-" || true) - before ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log" | tail -1)
  last=$(grep -E "^#[0-9]+.*cov: " "$out/$name.log" | tail -1)
  field() { echo "$last" | sed -n "s/.* $1: \([^ ]*\).*/\1/p"; }
  cpu=$(tail -1 "$out/$name.cpu" | awk '{printf "%.1f", $1 + $2}')
  rows+=("$(printf '%-13s %6.1f %6s %10s %8s %6s %6s %14s %7s' "$name" "$wall" "$cpu" "${execs:-?}" \
    "$( [ -n "${execs:-}" ] && echo "$execs / $wall" | bc || echo "?")" "$(field cov)" "$(field ft)" \
    "$(field corp)" "$found")")
done
echo
printf '%-13s %6s %6s %10s %8s %6s %6s %14s %7s\n' target wall_s cpu_s execs execs/s cov ft corpus crashes
printf '%s\n' "${rows[@]}"
echo "(corpus: inputs/bytes; crashes: crash, timeout and OOM inputs this run, in $out)"
