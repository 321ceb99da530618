# The reference manual covers the command table: every command `failmap help` lists (the table of
# src/cli/commands.cc) has its page docs/COMMAND.md, `failmap help COMMAND` prints that page byte for byte,
# every option its --help lists (and those of its subcommands) appears on the page, and the man page
# generated from the same files holds every page.
commands=$("$FAILMAP" help | sed -n '/^Commands/,/^Other pages/p' | awk '/^  [a-z]/ {print $1}')
[ "$(echo "$commands" | wc -l)" -ge 19 ] || fail "failmap help lists too few commands: $commands"
echo "$commands" | grep -qx import && echo "$commands" | grep -qx completion || fail "failmap help misses commands: $commands"
# options_of CMD...: the long options (or the short one, where there is no long one) `failmap CMD... --help` lists.
# The greps exit 1 for a command without options of its own, which is fine; --help's own status is checked
# where options_of is called.
options_of() {
  "$FAILMAP" "$@" --help | sed -n '/^Options:/,/^[A-Z]/p' | grep -oE '^  +(-[A-Za-z0-9],)?-{1,2}[A-Za-z0-9][A-Za-z0-9-]*' |
    sed -E 's/^ +//; s/^-[A-Za-z0-9],//' | grep -vx -- '--help\|-h' || true
}
subcommands_of() { "$FAILMAP" "$@" --help | sed -n '/^Subcommands:/,/^$/p' | awk '/^  [a-z]/ {print $1}'; }
man_page="$(dirname "$FAILMAP")/man/failmap.1"
[ -s "$man_page" ] || fail "no man page at $man_page"
if command -v groff >/dev/null; then
  groff -man -Tutf8 -P-cbou -ww "$man_page" > man.utf8 2> groff.err || fail "groff failed: $(cat groff.err)"
  [ ! -s groff.err ] || fail "groff warns about the man page: $(head -5 groff.err)"
  LC_ALL=C.UTF-8 sed 's/\xe2\x88\x92/-/g; s/\xe2\x80\x90/-/g' man.utf8 > man.txt  # minus and hyphen signs as typed
else
  cp "$man_page" man.txt  # the roff source still holds every heading and option (hyphens as \-)
  sed -i 's/\\-/-/g' man.txt
fi
checked=0
for cmd in $commands; do
  page="$SRC/docs/$cmd.md"
  [ -f "$page" ] || fail "command '$cmd' has no page docs/$cmd.md"
  "$FAILMAP" help "$cmd" > help.txt || fail "failmap help $cmd failed"
  cmp -s help.txt "$page" || fail "failmap help $cmd differs from docs/$cmd.md"
  head -1 "$page" | grep -qx "# failmap $cmd" || fail "docs/$cmd.md does not open with '# failmap $cmd'"
  for section in "## Synopsis" "## Exit status" "## Example"; do
    grep -qx "$section" "$page" || fail "docs/$cmd.md has no '$section' section"
  done
  grep -q '^```console' "$page" || fail "docs/$cmd.md shows no example"
  grep -qi "failmap $cmd" man.txt || fail "man failmap has no section of '$cmd'"
  for sub in "" $(subcommands_of "$cmd"); do
    "$FAILMAP" help $cmd $sub > /dev/null || fail "failmap help $cmd $sub failed"
    "$FAILMAP" $cmd $sub --help > /dev/null || fail "failmap $cmd $sub --help failed"
    for opt in $(options_of $cmd $sub); do
      grep -qF -- "$opt" "$page" || fail "docs/$cmd.md does not mention $opt of 'failmap $cmd${sub:+ $sub}'"
      grep -qF -- "$opt" man.txt || fail "man failmap does not mention $opt of 'failmap $cmd${sub:+ $sub}'"
      checked=$((checked + 1))
    done
  done
done
[ "$checked" -ge 60 ] || fail "only $checked options were checked: the --help parsing is broken"
# The other pages, and the refusals.
"$FAILMAP" help glossary | cmp -s - "$SRC/docs/glossary.md" || fail "failmap help glossary differs from docs/glossary.md"
expect_status 2 "$FAILMAP" help bogus
expect_error_mentions "no page of the manual for 'bogus'"
expect_status 2 "$FAILMAP" help split bogus
expect_error_mentions "'split' has no subcommand 'bogus'"
