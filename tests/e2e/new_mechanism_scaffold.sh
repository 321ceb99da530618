# scripts/new-mechanism in a copy of the tree: it writes exactly the mechanism
# file and one case file; the scaffold compiles and fails the mechanism rules
# (its TODO(curator) markers and raising strategies); filled in with a tiny
# example it compiles, passes the rules test, and its two case files come from
# gen_cases.py. The build is a small one: the core library, the JSON writer,
# the one mechanism and the two rules test files, with ccache when present
# (CCACHE_BASEDIR makes the copy's paths relative, so reruns hit the cache).
# It builds with its own compiler flags whatever the build under test, so it
# runs in the first pass and in the open build's, not in the sanitizer's.
skip_under_sanitizer "the scaffold's build does not use the sanitizer build's flags"
copy=$PWD/tree
mkdir -p "$copy"
tar -C "$SRC" --exclude='./build*' --exclude='./.git' -cf - . | tar -C "$copy" -xf -
cd "$copy"
rm -f cases/*.json  # the copy's archive holds only the new mechanism's cases

# Bad ids and existing files are refused with exit 2 and nothing written.
expect_status 2 scripts/new-mechanism Tiny_Example
expect_error_mentions "expected kebab-case"
expect_status 2 scripts/new-mechanism warmup-off-by-one
expect_error_mentions "src/mechanisms/warmup-off-by-one.cc exists; nothing written"

before=$(find . -type f | sort)
expect_status 0 scripts/new-mechanism tiny-example
after=$(find . -type f | sort)
written=$(comm -13 <(echo "$before") <(echo "$after"))
[ "$(echo "$written" | wc -l)" -eq 2 ] || fail "new-mechanism wrote: $written"
echo "$written" | grep -qx './src/mechanisms/tiny-example.cc' || fail "no mechanism file in: $written"
case_file=$(echo "$written" | grep -E '^\./cases/FA-[0-9]{5}\.json$') || fail "no case file in: $written"
case_id=$(basename "$case_file" .json)
number=${case_id#FA-}
[ "$number" -ge 65000 ] && [ "$number" -le 99999 ] || fail "case id $case_id outside FA-65000..FA-99999"
[ "$(comm -23 <(echo "$before") <(echo "$after"))" = "" ] || fail "new-mechanism removed files"
grep -q 'TODO(curator)' src/mechanisms/tiny-example.cc || fail "scaffold has no TODO(curator) markers"
for part in '#if FAILMAP_REPAIRS' 'FAILMAP_REPAIRED(repaired,' '.source = ' '.parameter_maximum = ' \
            'Why the unsuccessful fix fails.' 'Why the repair holds.' '// Source: '; do
  grep -qF -- "$part" src/mechanisms/tiny-example.cc || fail "scaffold lacks $part"
done

# A small build of the rules test over the one mechanism.
cxx="c++"
if command -v ccache >/dev/null; then cxx="ccache c++"; export CCACHE_BASEDIR=$copy; fi
flags=(-std=c++20 -O1 -Wall -Wextra -Wpedantic -Wshadow -Werror -Isrc -Imini
       "-DFAILMAP_SOURCE_DIR=\"$copy\"")
build_rules() {
  mkdir -p mini/obj
  printf '%s\n' 'include(cmake/GenerateRegistry.cmake)' 'failmap_generate_registry("${SOURCES}" "${OUT}")' \
    > mini/registry.cmake
  cmake -DOUT=mini/registry.cc -DSOURCES=src/mechanisms/tiny-example.cc -P mini/registry.cmake || return 1
  local objs=() todo=() pids=() failed=0 i
  for f in src/core/*.cc src/encoding/jcs.cc src/encoding/json.cc src/encoding/json_syntax.cc src/encoding/text.cc src/encoding/pyjson.cc src/mechanisms/tiny-example.cc mini/registry.cc \
           tests/unit/test_mechanism_rules.cc tests/unit/test_mechanism_scaffold.cc; do
    local o=mini/obj/$(echo "$f" | tr / _).o
    objs+=("$o")
    # Compiled again only when its source is newer than its object: between
    # the two builds the fill edits the mechanism alone (no header changes).
    [ "$o" -nt "$f" ] || todo+=("$f" "$o")
  done
  # Two compilers at a time.
  for ((i = 0; i < ${#todo[@]}; i += 2)); do
    $cxx "${flags[@]}" -c "${todo[i]}" -o "${todo[i + 1]}" &
    pids+=($!)
    if [ ${#pids[@]} -ge 2 ]; then
      wait "${pids[0]}" || failed=1
      pids=("${pids[@]:1}")
    fi
  done
  for i in "${pids[@]}"; do wait "$i" || failed=1; done
  [ $failed = 0 ] || return 1
  $cxx "${objs[@]}" -o mini/rules -lgtest -lgtest_main -lcrypto -pthread
}
# Left out here: the rules over the whole registry (its size, the distractor list, which names mechanisms this
# one-mechanism build lacks) and the GROUPS.md and source-line rules, which ask for what a curator writes after
# the scaffold (its group's section, the cited report).
rules_filter='MechanismRules.*:MechanismScaffold.*-MechanismRules.RegistryHolds*:MechanismRules.DistractorsNameRealParameters:MechanismRules.GroupsFile*:MechanismRules.EverySourceIsCited*'

build_rules || fail "the scaffold does not compile"
set +e
mini/rules --gtest_filter="$rules_filter" > scaffold_rules.txt 2>&1; status=$?
set -e
[ "$status" -ne 0 ] || fail "the unfilled scaffold passes the rules: $(tail -5 scaffold_rules.txt)"
grep -q 'still holds TODO(curator)' scaffold_rules.txt || fail "the rules do not name the TODO markers"

# Fill the scaffold with a tiny example: the sum of a list whose broken
# path drops the last element and whose unsuccessful fix adds 1 for it.
python3 - src/mechanisms/tiny-example.cc <<'PY'
import re, sys
path = sys.argv[1]
t = open(path, encoding="utf-8").read()
start = t.index("Result<Value> broken(")
end = t.index("#endif\n", start) + len("#endif\n")
t = t[:start] + '''// sum(xs[:-1]) + extra, or sum(xs) when keep_last.
Result<Value> total(std::vector<std::int64_t> xs, bool keep_last, std::int64_t extra) {
  if (!keep_last && !xs.empty()) xs.pop_back();
  auto s = args::checked_sum(xs);
  if (!s) return s.error();
  auto r = checked_add(*s, extra);
  if (!r) return r.error();
  return Value::integer(*r);
}

Result<Value> broken(std::vector<std::int64_t> xs) { return total(std::move(xs), false, 0); }
Result<Value> unsuccessful(std::vector<std::int64_t> xs) { return total(std::move(xs), false, 1); }
#if FAILMAP_REPAIRS
Result<Value> repaired(std::vector<std::int64_t> xs) { return total(std::move(xs), true, 0); }
#endif
''' + t[end:]
t = t.replace('"def solve(x):\\n"\n               "    raise NotImplementedError(\'TODO(curator): broken\')\\n"',
              '"def solve(xs):\\n"\n               "    return sum(xs[:-1])\\n"')
t = t.replace('"def solve(x):\\n"\n               "    raise NotImplementedError(\'TODO(curator): unsuccessful\')\\n"',
              '"def solve(xs):\\n"\n               "    return sum(xs[:-1]) + 1\\n"')
t = t.replace('"def solve(x):\\n"\n               "    raise NotImplementedError(\'TODO(curator): repaired\')\\n"',
              '"def solve(xs):\\n"\n               "    return sum(xs)\\n"')
checks = [("last is one", "[N,1]", "N+1"), ("last is two", "[N,2]", "N+2"), ("single one", "[1]", "1"),
          ("empty", "[]", "0"), ("last is zero", "[N,0]", "N"), ("three", "[1,1,N]", "N+2"), ("ones", "[1]*N", "N")]
for i, (label, args, expected) in enumerate(checks, start=1):
    t = t.replace(f'{{"TODO(curator): check {i}", "N", "N"}}', f'{{"{label}", "{args}", "{expected}"}}')
# Every remaining marker is a prose line: a curator's sentence replaces it.
t = re.sub(r'TODO\(curator\): Title of the mechanism', 'Tiny example', t)
t = t.replace('"TODO(curator): https URL of the bug report or fix"', '"https://example.org/tiny-example"')
t = t.replace('"TODO(curator): group"', '"tiny-example"')
t = t.replace('TODO(curator): one-line case title without a final period', 'The last element is dropped from a sum')
t = re.sub(r'"TODO\(curator\): [^"]*\."', '"A sentence of the tiny example."', t)
t = re.sub(r'TODO\(curator\): ', '', t)  # the header comment's prompts
open(path, "w", encoding="utf-8").write(t)
PY
! grep -q 'TODO(curator)' src/mechanisms/tiny-example.cc || fail "the fill left a marker"
build_rules || fail "the filled mechanism does not compile"
expect_status 0 mini/rules --gtest_filter="$rules_filter"

# The Python side agrees, and the case files come from gen_cases.py.
expect_status 0 python3 scripts/gen_cases.py check --n 1,2,3,10,1000
expect_status 0 python3 scripts/gen_cases.py case tiny-example --variant 1 --n 1 --id "$case_id" --replace
expect_status 0 python3 scripts/gen_cases.py case tiny-example --variant 2 --n 3
[ "$(ls cases/*.json | wc -l)" -eq 2 ] || fail "expected two case files: $(ls cases)"
grep -q '"label": "last is one", "args": \[\[1, 1\]\], "expected": 2' "cases/$case_id.json" ||
  fail "case $case_id does not hold the filled fixtures: $(grep label "cases/$case_id.json" | head -2)"
echo "scaffold filled, built and passed the rules"
