# An empty value where a file or folder is named is refused by name, exit 2, before anything is read or written.
# Before: `verify-bundle DIR --pubkey ""` (a script whose key variable was unset) skipped the signature check and
# exited 0, `--open ""` skipped the commitments, `import ""` said ": no such file or folder", `export --out ""`
# ": cannot move the export into place", `split check ""` ": no such folder".
expect_status 0 "$FAILMAP" -q import "$SRC/cases/FA-98921.json"
before=$(archive_state)
empty() {  # empty WANT_ERROR CMD...: CMD exits 2 with exactly the error line WANT_ERROR
  local want=$1; shift
  expect_status 2 "$@"
  [ "$(head -1 stderr.txt)" = "failmap: error: $want" ] || fail "'$*': $err"
}
empty "paths: expected the path of a case file, page or folder, got an empty value" "$FAILMAP" import ""
empty "predictions: expected the path of a predictions file, got an empty value" "$FAILMAP" grade "" --out g
empty "--out: expected the path of an output folder, got an empty value" \
  "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --out ""
empty "--split-name: expected the name of one of the split folder's splits, got an empty value" \
  "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --out g --split s --split-name ""
empty "dirs: expected the path of a shard's folder, got an empty value" "$FAILMAP" grade merge "" --out g
empty "--out: expected the path of an output folder, got an empty value" "$FAILMAP" export --format jsonl --out ""
empty "--out: expected the path of an output folder, got an empty value" "$FAILMAP" split --ratios a=1 --out ""
empty "dir: expected the path of a split folder, got an empty value" "$FAILMAP" split check ""
empty "dir: expected the path of a bundle folder, got an empty value" "$FAILMAP" verify-bundle ""
mkdir bundle
empty "--pubkey: expected the path of an Ed25519 public key (PEM), got an empty value" "$FAILMAP" verify-bundle bundle --pubkey ""
empty "--open: expected the path of an open-tier bundle folder, got an empty value" "$FAILMAP" verify-bundle bundle --open ""
[ "$(archive_state)" = "$before" ] || fail "the archive changed"
[ ! -e g ] || fail "g/ was written"
