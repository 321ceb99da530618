#!/usr/bin/env bash
# The import path of one case: the sequence of failmap's
# own source files (.cc, generated ones included) whose functions run while
# `failmap import` adds one case file to an archive that already holds
# another one (so no migration runs), recorded with uftrace (Debian package
# uftrace) from a -pg -O0 build (no inlining: every function call of the
# source is one entry). Functions of headers (templates, inline helpers such
# as Result<T>) and of libraries are left out; consecutive entries into the
# same file are one visit. A function's file is addr2line's for the address
# uftrace records for it (its mcount call, in its body); only functions of
# namespace failmap count (the standard library's templates instantiated in
# a failmap file do not). Prints:
#   files        distinct .cc files entered
#   transitions  file-to-file transitions in the sequence of entries
#   returns      transitions into a file entered before (going "back")
# for the whole command and for the subtree of failmap::import_paths (the
# reading and adding of the case itself), each with its files in order of
# first entry.
#
# Usage: bench/import_path.sh [BUILD_DIR] [CASE_FILE]
#   BUILD_DIR  default build-trace; configured and built here when it has no
#              failmap binary (about 100 translation units at -O0)
#   CASE_FILE  default cases/FA-11135.json
#
# Figures: ARCHITECTURE.md "Import path".
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-trace}
case_file=${2:-cases/FA-11135.json}
command -v uftrace >/dev/null || { echo "uftrace not found (apt-get install uftrace)" >&2; exit 2; }
if [[ ! -x $build/failmap ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DCMAKE_CXX_FLAGS=-pg \
    -DCMAKE_EXE_LINKER_FLAGS=-pg -DCMAKE_UNITY_BUILD=OFF -DFAILMAP_TESTS=OFF -DFAILMAP_JEMALLOC=OFF >/dev/null
  nice cmake --build "$build" -j2 --target failmap >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
other=$(ls cases/*.json | grep -v "$(basename "$case_file")" | head -1)
binary=$(realpath "$build/failmap")
case_file=$(realpath "$case_file")
other=$(realpath "$other")
# In $work: a -pg binary writes gmon.out into its working folder.
(cd "$work" && "$binary" --db a.db import "$other" >/dev/null &&
  uftrace record -d trace --no-libcall "$binary" --db a.db import "$case_file" >/dev/null)
uftrace replay -d "$work/trace" -f addr --no-pager >"$work/replay.txt" 2>/dev/null
python3 - "$work/replay.txt" "$binary" "$work"/trace/sid-*.map <<'EOF'
import re, sys, subprocess, collections
replay, binary, mapfile = sys.argv[1:4]
base = None
for line in open(mapfile):
    if binary in line.split()[-2] if len(line.split())>1 else False:
        base = int(line.split('-')[0], 16); break
line_re = re.compile(r'^\s*([0-9a-f]+) \| ( *)(.+?)\(\)( \{|;)\s*$')
rows = []
for line in open(replay):
    m = line_re.match(line)
    if m: rows.append((len(m.group(2))//2, m.group(3), int(m.group(1),16)))
addrs = sorted({a for _,_,a in rows})
out = subprocess.run(['addr2line','-e',binary], input='\n'.join(hex(a-base) for a in addrs), capture_output=True, text=True).stdout.split('\n')
fileof = {a: o.rsplit(':',1)[0] for a,o in zip(addrs,out)}
def short(path):
    m = re.search(r'(?:^|/)src/((?:core|io|store|cli|grade|mechanisms)/[^/]+|main\.cc)$', path)
    if m: return m.group(1)
    m = re.search(r'/generated/([^/]+)$', path)
    if m: return 'generated/' + m.group(1)
    return None
def measure(rows):
    seq = []
    for _,n,a in rows:
        if not n.startswith('failmap::'): continue
        s = short(fileof[a])
        if s is None or not s.endswith('.cc'): continue
        if not seq or seq[-1] != s: seq.append(s)
    seen, back = set(), 0
    for s in seq:
        if s in seen: back += 1
        seen.add(s)
    return seq, len(seen), max(len(seq)-1,0), back
def subtree(rows, name):
    out, depth = [], None
    for r in rows:
        if depth is None:
            if r[1] == name: depth = r[0]; out.append(r)
        elif r[0] > depth: out.append(r)
        else: break
    return out
main_rows = subtree(rows, 'failmap::cli::main')
for label, part in (('command', main_rows), ('import_paths', subtree(rows, 'failmap::import_paths'))):
    seq, files, tr, back = measure(part)
    print(f'{label:13} files {files:3}  transitions {tr:6}  returns {back:6}')
    print('   ', ', '.join(dict.fromkeys(seq)))
EOF
