# --out makes only the last folder of its path: a parent that does not exist is refused (exit 2, one error
# naming it) by every command that writes an output folder, and nothing is made, neither the parent nor the
# folder. A parent that is a file is named as such.
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json" "$SRC/cases/FA-11135.json"
preds="$SRC/tests/data/predictions/demo.jsonl"

# refused_out OUT CMD...: CMD (which writes --out OUT) exits 2 with the one error for OUT's missing parent, and
# leaves no folder behind.
refused_out() {
  local dir=$1 parent; shift  # not "out": expect_status sets $out
  parent=$(dirname "$dir")
  expect_status 2 "$@"
  [ "$err" = "failmap: error: $dir: no such folder $parent (--out makes only the last folder of its path; create $parent first)" ] ||
    fail "'$*' said: $err"
  [ ! -e new ] || fail "'$*' made folders: $(find new)"
  [ -z "$(ls -A . | grep failmap-)" ] || fail "'$*' left a staging folder: $(ls -A)"
}

if [ "${FAILMAP_REPAIRS:-1}" = 1 ]; then  # the open build exports and splits no archive
  for format in jsonl pages tasks; do
    refused_out new/deeper/out "$FAILMAP" export --format $format --out new/deeper/out
  done
  refused_out new/site/ "$FAILMAP" export --format site --out new/site/
  refused_out new/split "$FAILMAP" split --ratios a=0.5,b=0.5 --out new/split
fi
printf '{"id":"i%d","group":"g%d"}\n' 1 1 2 2 3 3 4 4 > listing.jsonl
refused_out new/parts "$FAILMAP" split --input listing.jsonl --group-field group --ratios a=0.5,b=0.5 --out new/parts
refused_out new/graded "$FAILMAP" grade "$preds" --sandbox none --no-record --out new/graded
expect_status 0 "$FAILMAP" grade "$preds" --sandbox none --no-record --shard 1/1 --out shard
refused_out new/merged "$FAILMAP" grade merge shard --out new/merged
# An absolute path is named as given; so is a parent that is a file.
refused_out "$PWD/new/x/y" "$FAILMAP" grade merge shard --out "$PWD/new/x/y"
echo text > afile
expect_status 2 "$FAILMAP" grade merge shard --out afile/merged
[ "$err" = "failmap: error: afile/merged: afile is not a folder" ] || fail "a parent that is a file: $err"

# The last folder itself is still made, beside files already there.
expect_status 0 "$FAILMAP" grade merge shard --out merged
[ -s merged/results.jsonl ] || fail "grade merge --out merged wrote no results"
