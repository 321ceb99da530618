#!/usr/bin/env bash
# Builds the libFuzzer targets in bench/fuzz/ with address and undefined-
# behaviour sanitizers (Debian clang) and runs each for SECONDS (default 60)
# with seed corpora from cases/ and ../shared/seeds/. Prints libFuzzer's
# final figures (execs, cov, ft) per target; crashes land in bench/fuzz/out/.
# Usage: bench/fuzz.sh [SECONDS]
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/bench/fuzz/out
build=$root/build-fuzz
# Debian clang and its matching compiler-rt (libFuzzer, sanitizer runtimes).
command -v clang++ >/dev/null || apt-get install -y clang
ver=$(clang++ --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
ls /usr/lib/llvm-"$ver"/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
  apt-get install -y "libclang-rt-$ver-dev" || apt-get install -y "libclang-common-$ver-dev"
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g -O1"
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFAILMAP_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="$flags" >/dev/null
cmake --build "$build" --target failmap_lib -j "$(nproc)" >/dev/null
mkdir -p "$out"
for src in "$root"/bench/fuzz/fuzz_*.cc; do
  name=$(basename "$src" .cc)
  clang++ -std=c++20 $flags -fsanitize=fuzzer -I"$root/src" "$src" "$build/libfailmap_lib.a" \
    -lsqlite3 -lcrypto -lpthread -o "$build/$name"
  corpus=$out/$name.corpus; mkdir -p "$corpus"
  case $name in
    fuzz_expr) cp "$root"/src/mechanisms/*.cc "$corpus"/ 2>/dev/null || true
               grep -ho 'check([^)]*)' "$root"/../shared/seeds/*.txt 2>/dev/null | head -50 > "$corpus/checks.txt" || true ;;
    fuzz_jsonl) for f in "$root"/cases/*.json; do python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$f" \
                  > "$corpus/$(basename "$f" .json).jsonl"; done ;;
    fuzz_listing) printf '{"id": "a", "group": "g1", "tag": [1, 2]}\n{"id": 7, "group": null, "tag": 2}\n{"id": "c", "group": "g1"}\n' \
                    > "$corpus/items.jsonl" ;;
    *) cp "$root"/cases/*.json "$corpus"/ ;;
  esac
  echo "== $name ($secs s)"
  (cd "$out" && "$build/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
     "$corpus" 2>"$out/$name.log") || echo "   CRASH or error: see $out/$name.log"
  grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$out/$name.log" | sed 's/^/   /'
done
