# One byte-order-mark policy for every reader (schema/BUNDLE.md "Byte-order marks"): one UTF-8 BOM at the
# very start of a file is skipped; a second one, or one at the start of any later line, is refused with a
# message naming it, exit 2, nothing written. And one trailing-blank-line rule for bundles and listings: one
# empty last line is ignored, two are refused. Before: case files took 2-3 leading BOMs, bundle JSONL and
# split-check folders skipped a BOM on line 2, listings refused one as "column 1: Invalid value." and a
# trailing blank line as "blank line", SHA256SUMS refused the leading BOM that manifest.json accepted.
bom=$'\xef\xbb\xbf'
second="a second UTF-8 byte-order mark (U+FEFF) at the start of the file: only one is skipped (schema/BUNDLE.md \"Byte-order marks\")"
later="a UTF-8 byte-order mark (U+FEFF), which only the very start of a file may hold (schema/BUNDLE.md \"Byte-order marks\")"
# utf8_clean: the last command's stderr is valid UTF-8 and shows no raw U+FEFF.
utf8_clean() {
  python3 -c 'import sys; t = open("stderr.txt", "rb").read().decode("utf-8"); sys.exit("\ufeff" in t)' ||
    fail "stderr is not valid UTF-8 or holds a raw U+FEFF: $(od -c stderr.txt | head -5)"
}
# refused WANT_LINE CMD...: exit 2 and stderr exactly WANT_LINE.
refused() {
  local want=$1; shift
  expect_status 2 "$@"
  [ "$err" = "$want" ] || fail "'$*' said: $err
expected: $want"
  utf8_clean
}
# with_bom FILE N: puts N BOMs before FILE's first byte.
with_bom() { local f=$1 n=$2 p=""; for _ in $(seq "$n"); do p="$p$bom"; done; { printf '%s' "$p"; cat "$f"; } > "$f.tmp" && mv "$f.tmp" "$f"; }
# bom_on_line FILE LINE: a BOM at the start of line LINE.
bom_on_line() { python3 - "$1" "$2" <<'PY'
import sys
f, n = sys.argv[1], int(sys.argv[2])
lines = open(f, "rb").read().split(b"\n")
lines[n - 1] = b"\xef\xbb\xbf" + lines[n - 1]
open(f, "wb").write(b"\n".join(lines))
PY
}
# resum DIR: a bundle's manifest "sha256" and SHA256SUMS redone over its files' bytes as they are (a BOM
# before the manifest kept).
resum() { python3 - "$1" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
h = lambda f: hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()
raw = open(os.path.join(d, "manifest.json"), "rb").read()
lead = raw[: len(raw) - len(raw.lstrip(b"\xef\xbb\xbf"))]
m = json.loads(raw[len(lead):])
m["sha256"] = {f: h(f) for f in m["files"]}
open(os.path.join(d, "manifest.json"), "wb").write(lead + json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
names = sorted(f for f in os.listdir(d) if f != "SHA256SUMS")
open(os.path.join(d, "SHA256SUMS"), "w").write("".join(f"{h(f)}  {f}\n" for f in names))
PY
}

# Case files.
cp "$SRC/cases/FA-98921.json" one.json && with_bom one.json 1
expect_status 0 "$FAILMAP" --db c.db import one.json
cp "$SRC/cases/FA-98921.json" two.json && with_bom two.json 2
refused "failmap: error: two.json:1:4: $second (nothing was imported)" "$FAILMAP" --db c2.db import two.json
cp "$SRC/cases/FA-98921.json" three.json && with_bom three.json 3
refused "failmap: error: three.json:1:4: $second (nothing was imported)" "$FAILMAP" --db c2.db import three.json
cp "$SRC/cases/FA-98921.json" line2.json && bom_on_line line2.json 2
refused "failmap: error: line2.json:2:1: $later (nothing was imported)" "$FAILMAP" --db c2.db import line2.json
[ ! -e c2.db ] || fail "a refused import left c2.db"

# Bundle JSONL, manifest.json and SHA256SUMS.
"$FAILMAP" -q import "$(cases_dir)" >/dev/null
needs_repairs  # a member-tier bundle of recorded runs (`run --all`)
checks_may_fail "$FAILMAP" -q run --all >/dev/null
expect_status 0 "$FAILMAP" export --format jsonl --tier member --out b
fresh() { rm -rf "$1" && cp -r b "$1"; }
fresh b1 && with_bom b1/cases.jsonl 1 && with_bom b1/manifest.json 1 && resum b1 && with_bom b1/SHA256SUMS 1
expect_status 0 "$FAILMAP" --db b1.db import b1
expect_status 0 "$FAILMAP" verify-bundle b1
fresh b2 && bom_on_line b2/cases.jsonl 2 && resum b2
refused "failmap: error: b2/cases.jsonl:2:1: $later (nothing was imported)" "$FAILMAP" --db b2.db import b2
# verify-bundle read the bundle (manifest and SHA256SUMS are sound) and a record failed to parse: a failed check,
# exit 1, the problem on stdout before the summary (docs/verify-bundle.md "Exit status").
expect_status 1 "$FAILMAP" verify-bundle b2
[ "$(printf '%s\n' "$out" | head -1)" = "b2/cases.jsonl:2:1: $later" ] || fail "verify-bundle of a BOM on line 2: $out"
printf '%s\n' "$out" | tail -1 | grep -q "^mismatch: b2 (member tier): " || fail "verify-bundle b2 summary: $out"
[ -z "$err" ] || fail "verify-bundle b2 wrote to stderr: $err"
fresh b3 && bom_on_line b3/runs.jsonl 5 && resum b3
refused "failmap: error: b3/runs.jsonl:5:1: $later (nothing was imported)" "$FAILMAP" --db b3.db import b3
fresh b4 && with_bom b4/cases.jsonl 2 && resum b4
refused "failmap: error: b4/cases.jsonl:1: $second (nothing was imported)" "$FAILMAP" --db b4.db import b4
fresh b5 && with_bom b5/manifest.json 2 && resum b5
refused "failmap: error: b5/manifest.json:1:4: $second (nothing was imported)" "$FAILMAP" --db b5.db import b5
fresh b6 && with_bom b6/SHA256SUMS 2
refused "failmap: error: b6/SHA256SUMS:1: $second (nothing was imported)" "$FAILMAP" --db b6.db import b6
fresh b7 && bom_on_line b7/SHA256SUMS 2
refused "failmap: error: b7/SHA256SUMS:2: $later (nothing was imported)" "$FAILMAP" --db b7.db import b7
# One empty last line is ignored (the file ends in a blank line); two are refused, naming the first.
fresh b8 && printf '\n' >> b8/cases.jsonl && resum b8
expect_status 0 "$FAILMAP" --db b8.db import b8
fresh b9 && printf '\n\n' >> b9/cases.jsonl && resum b9
lines=$(wc -l < b/cases.jsonl)
refused "failmap: error: b9/cases.jsonl:$((lines + 1)): empty line (one JSON object per line) (nothing was imported)" \
  "$FAILMAP" --db b9.db import b9
for n in 2 3 4 5 6 7 9; do [ ! -e b$n.db ] || fail "a refused import left b$n.db"; done

# Listings for split --input, and split-check folders.
printf '{"id":"a","g":"A"}\n{"id":"b","g":"B"}\n{"id":"c","g":"C"}\n' > items.jsonl
cp items.jsonl l1.jsonl && with_bom l1.jsonl 1
expect_status 0 "$FAILMAP" split --input l1.jsonl --group-field g --ratios x=0.5,y=0.5 --out s1
cp items.jsonl l2.jsonl && bom_on_line l2.jsonl 2
refused "failmap: error: l2.jsonl:2: $later" "$FAILMAP" split --input l2.jsonl --group-field g --ratios x=0.5,y=0.5 --out s2
cp items.jsonl l3.jsonl && with_bom l3.jsonl 2
refused "failmap: error: l3.jsonl:1: $second" "$FAILMAP" split --input l3.jsonl --group-field g --ratios x=0.5,y=0.5 --out s3
cp items.jsonl l4.jsonl && printf '\n' >> l4.jsonl
expect_status 0 "$FAILMAP" split --input l4.jsonl --group-field g --ratios x=0.5,y=0.5 --out s4
cp items.jsonl l5.jsonl && printf '\n\n' >> l5.jsonl
refused "failmap: error: l5.jsonl:4: blank line" "$FAILMAP" split --input l5.jsonl --group-field g --ratios x=0.5,y=0.5 --out s5
[ ! -e s2 ] && [ ! -e s3 ] && [ ! -e s5 ] || fail "a refused split wrote a folder"
mkdir chk && printf '{"id":"a"}\n{"id":"b"}\n' > chk/train.jsonl && printf '{"id":"c"}\n' > chk/test.jsonl
expect_status 0 "$FAILMAP" split check chk --input items.jsonl --group-field g
with_bom chk/train.jsonl 1
expect_status 0 "$FAILMAP" split check chk --input items.jsonl --group-field g
bom_on_line chk/train.jsonl 2
refused "failmap: error: chk/train.jsonl:2:1: $later" "$FAILMAP" split check chk --input items.jsonl --group-field g
printf '{"id":"a"}\n{"id":"b"}\n' > chk/train.jsonl && (cd chk && sha256sum test.jsonl train.jsonl > SHA256SUMS)
with_bom chk/SHA256SUMS 1
expect_status 0 "$FAILMAP" split check chk --input items.jsonl --group-field g
with_bom chk/SHA256SUMS 1
refused "failmap: error: chk/SHA256SUMS:1: $second" "$FAILMAP" split check chk --input items.jsonl --group-field g

# Published pages.
cp "$SEED" p1.txt && with_bom p1.txt 1
expect_status 0 "$FAILMAP" --db p.db import p1.txt
cp "$SEED" p2.txt && with_bom p2.txt 2
refused "failmap: error: p2.txt:1: $second (nothing was imported)" "$FAILMAP" --db p2.db import p2.txt
cp "$SEED" p3.txt && bom_on_line p3.txt 3
expect_status 2 "$FAILMAP" --db p3.db import p3.txt
expect_error_mentions "p3.txt:3: $later"
utf8_clean
[ ! -e p2.db ] && [ ! -e p3.db ] || fail "a refused page import left an archive"
