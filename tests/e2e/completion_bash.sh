# The bash completion, generated from the command table (`failmap completion bash`), completes commands,
# subcommands, options and help topics as bash calls it: COMP_WORDS and COMP_CWORD set, _failmap called.
"$FAILMAP" completion bash > failmap.bash
source failmap.bash
complete -p failmap | grep -q -- '-F _failmap' || fail "the script does not register _failmap for failmap"
# completes WORD...: the completions of the last word, sorted, one a line.
completes() {
  COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
  _failmap
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
[ "$(completes failmap verif)" = "$(printf 'verify\nverify-bundle')" ] || fail "failmap verif<TAB>: $(completes failmap verif)"
[ "$(completes failmap --db x.db imp)" = "import" ] || fail "failmap --db x.db imp<TAB>: $(completes failmap --db x.db imp)"
[ "$(completes failmap split --rat)" = "--ratios" ] || fail "failmap split --rat<TAB>: $(completes failmap split --rat)"
[ "$(completes failmap split ch)" = "check" ] || fail "failmap split ch<TAB>: $(completes failmap split ch)"
[ "$(completes failmap grade m)" = "merge" ] || fail "failmap grade m<TAB>: $(completes failmap grade m)"
[ "$(completes failmap help verify-b)" = "verify-bundle" ] || fail "failmap help verify-b<TAB>: $(completes failmap help verify-b)"
[ "$(completes failmap completion z)" = "zsh" ] || fail "failmap completion z<TAB>: $(completes failmap completion z)"
# A subcommand's options, not its command's: split check has --input but no --ratios.
completes failmap split check --r | grep -q . && fail "split check --r<TAB> offers $(completes failmap split check --r)"
[ "$(completes failmap split check --js)" = "--json" ] || fail "split check --js<TAB>: $(completes failmap split check --js)"
# The value of an option is a file name.
touch preds.jsonl
[ "$(completes failmap grade --out pre)" = "preds.jsonl" ] || fail "grade --out pre<TAB>: $(completes failmap grade --out pre)"
[ "$(completes failmap import --jobs pre)" = "preds.jsonl" ] || fail "import --jobs pre<TAB>: $(completes failmap import --jobs pre)"
# Every option of every command's --help is offered after `failmap COMMAND --`, the global ones too.
for cmd in $("$FAILMAP" help | sed -n '/^Commands/,/^Other pages/p' | awk '/^  [a-z]/ {print $1}'); do
  offered=$(completes failmap "$cmd" -)
  for opt in $("$FAILMAP" "$cmd" --help | sed -n '/^Options:/,/^[A-Z]/p' | grep -oE '^  +-[^ ]+' | tr ',' '\n' | sed 's/^ *//' | sort -u) --db --quiet; do
    grep -qx -- "$opt" <<<"$offered" || fail "failmap $cmd -<TAB> does not offer $opt: $offered"
  done
done
# zsh: the script parses, names every command, and takes a value only after an option that has one.
"$FAILMAP" completion zsh > _failmap
head -1 _failmap | grep -qx '#compdef failmap' || fail "the zsh script does not start with #compdef failmap"
zsh -n _failmap || fail "the zsh completion script does not parse"
for cmd in $("$FAILMAP" help | sed -n '/^Commands/,/^Other pages/p' | awk '/^  [a-z]/ {print $1}'); do
  grep -q "^    '$cmd:" _failmap || fail "the zsh script does not list the command $cmd"
  grep -q "^        '$cmd') _arguments" _failmap || fail "the zsh script has no arguments for $cmd"
done
grep -q "'--replace\[[^]]*\]'" _failmap || fail "the zsh script gives the flag --replace a value"
grep -q "'--split-name\[[^]]*\]:value:_files'" _failmap || fail "the zsh script gives --split-name no value"
expect_status 2 "$FAILMAP" completion fish
