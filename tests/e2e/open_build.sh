# The open build (-DFAILMAP_REPAIRS=OFF) holds no repaired strategy: the executable's bytes contain no
# mechanism's distinctive repaired source line and its symbols no repaired function; what needs a repair
# refuses with one line, exit 2. In the full build the same scan is the control: every line and symbol is there.
python3 - "$SRC/src/mechanisms" > repaired_lines.txt <<'PY'
# One line per mechanism: lines of its repaired Python source that no broken or unsuccessful source of
# any mechanism contains, as a JSON string. The sources are C++ string literals.
import ast, glob, json, re, sys
literal = r'"(?:[^"\\]|\\.)*"'
def source(text):
    return "".join(ast.literal_eval(s) for s in re.findall(literal, text))
files = sorted(glob.glob(sys.argv[1] + "/*.cc"))
repaired, others = {}, []
for path in files:
    text = open(path, encoding="utf-8").read()
    m = re.search(r"FAILMAP_REPAIRED\(repaired,\s*((?:" + literal + r"\s*)+)\)", text)
    assert m, f"{path}: no FAILMAP_REPAIRED(repaired, ...) entry"
    repaired[path] = source(m.group(1))
    for kind in ("Broken", "Unsuccessful"):
        o = re.search(r"\{StrategyKind::" + kind + r",\s*\w+,\s*((?:" + literal + r"\s*)+)\}", text)
        assert o, f"{path}: no {kind} strategy entry"
        others.append(source(o.group(1)))
for path, src in repaired.items():
    # Lines after the first, each with the newline before it (so a line is matched from its start): the
    # fewest consecutive lines that no other source holds, the longest such window.
    lines = src.split("\n")[1:-1]
    for k in range(1, len(lines) + 1):
        windows = ["\n" + "\n".join(lines[i:i + k]) + "\n" for i in range(len(lines) - k + 1)]
        unique = [w for w in windows if not any(w in o for o in others)]
        if unique:
            break
    assert unique, f"{path}: the repair is a broken or unsuccessful source"
    print(json.dumps(max(unique, key=len)))
PY
[ "$(wc -l < repaired_lines.txt)" -ge 11 ] || fail "fewer repaired lines than mechanisms: $(cat repaired_lines.txt)"
python3 - "$FAILMAP" repaired_lines.txt > found.txt <<'PY'
import json, sys
binary = open(sys.argv[1], "rb").read()
for line in open(sys.argv[2], encoding="utf-8"):
    text = json.loads(line)
    print(("found " if text.encode() in binary else "absent ") + json.dumps(text))
PY
# grep -c exits 1 when it counts 0, the count wanted here.
symbols=$(nm -C "$FAILMAP" | grep -c "(anonymous namespace)::repaired(" || true)
expect_status 0 "$FAILMAP" --version
if [ "${FAILMAP_REPAIRS:-1}" = 1 ]; then
  # Control: the scan finds what the full build holds.
  ! grep -q "^absent " found.txt || fail "full build: a repaired line is not in the binary, so the scan proves nothing: $(grep '^absent ' found.txt)"
  [ "$symbols" -ge 11 ] || fail "full build: $symbols repaired function symbol(s), expected one per mechanism"
  echo "$out" | grep -qx "build full (repaired strategies compiled in)" || fail "--version does not say full build: $out"
  exit 0
fi
! grep -q "^found " found.txt || fail "open build holds repaired source: $(grep '^found ' found.txt)"
[ "$symbols" -eq 0 ] || fail "open build holds $symbols repaired function symbol(s)"
echo "$out" | grep -qx "build open (no repaired strategies: -DFAILMAP_REPAIRS=OFF)" || fail "--version does not say open build: $out"

# What needs a repair refuses with one line; the archive is unchanged.
expect_status 0 "$FAILMAP" import "$SRC/cases"
before=$(archive_state)
refused() {  # refused WHAT CMD...: exit 2, one line naming WHAT and the open build
  local what=$1; shift
  expect_status 2 "$@"
  [ "$(wc -l < stderr.txt)" -eq 1 ] || fail "'$*': expected one error line, got: $err"
  grep -qF "failmap: error: $what: this build of failmap has no repairs (an open build, -DFAILMAP_REPAIRS=OFF)" stderr.txt ||
    fail "'$*': unexpected message: $err"
}
refused "--strategy repaired" "$FAILMAP" run FA-98921 --strategy repaired
refused "--strategy repaired" "$FAILMAP" reference FA-98921 --strategy repaired
refused "run --all (it runs the repaired strategy of every case)" "$FAILMAP" run --all
refused "export --tier member" "$FAILMAP" export --tier member --out member
[ ! -e member ] || fail "a refused export left a folder"
[ "$(archive_state)" = "$before" ] || fail "a refusal changed the archive"

# Everything else works: the two strategies the build holds, their scripts, the fixtures.
expect_status 1 "$FAILMAP" run FA-98921
[ "$(printf '%s\n' "$out" | grep -c '^FA-98921 · ')" -eq 2 ] && printf '%s\n' "$out" | grep -q '^FA-98921 · 1 / The failure (broken)$' &&
  printf '%s\n' "$out" | grep -q '^FA-98921 · 2 / The unsuccessful fix (unsuccessful)$' ||
  fail "open build run: expected the broken and unsuccessful tables: $out"
"$FAILMAP" reference FA-98921 --strategy broken > broken.py
checks_may_fail python3 broken.py > broken.json
expect_status 1 "$FAILMAP" run FA-98921 --strategy broken --format json
[ "$out" = "$(cat broken.json)" ] || fail "open build broken run differs from its Python reference"
expect_status 0 "$FAILMAP" verify FA-98921
