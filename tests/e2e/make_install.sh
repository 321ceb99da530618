# `make install DESTDIR=... PREFIX=/usr` lays out the binary, the man page and the two completion scripts,
# and nothing else. It runs the Makefile's own target on the build folder ctest tests, which is built:
# `-o build` keeps make from running the target's build step, which would relink the binary the other
# scenarios are running if a source changed since.
build=$(dirname "$FAILMAP")
make -s -o build -C "$SRC" install BUILD="$build" DESTDIR="$PWD/stage" PREFIX=/usr > make.out 2>&1 || fail "make install failed: $(tail -20 make.out)"
(cd stage && find . -type f | sort) > files.txt
printf '%s\n' ./usr/bin/failmap ./usr/share/bash-completion/completions/failmap ./usr/share/man/man1/failmap.1 \
  ./usr/share/zsh/site-functions/_failmap > want.txt
diff want.txt files.txt > files.diff || fail "make install laid out other files: $(cat files.diff)"
[ -x stage/usr/bin/failmap ] || fail "the installed failmap is not executable"
[ "$(stage/usr/bin/failmap --version)" = "$("$FAILMAP" --version)" ] || fail "the installed failmap is another binary"
"$FAILMAP" completion bash | cmp -s - stage/usr/share/bash-completion/completions/failmap || fail "installed bash completion is stale"
"$FAILMAP" completion zsh | cmp -s - stage/usr/share/zsh/site-functions/_failmap || fail "installed zsh completion is stale"
head -1 stage/usr/share/man/man1/failmap.1 | grep -q '^\.TH FAILMAP 1' || fail "the man page has no .TH line"
