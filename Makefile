# The two set-up commands of the README. Everything else is CMake.
#   make run   install deps, build, import cases/ into ./failmap.db, run FA-98921
#   make test  install deps, build, run the whole test suite through ctest
#   make install  build, then install the binary, the man page and the bash and
#                 zsh completions under PREFIX (default /usr/local), into DESTDIR
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
FAILMAP := $(BUILD)/failmap
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: run test deps configure build install test-asan test-open clean

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# `run` needs the binary alone: the tests, benches and fuzz replay wait for `make test`.
run: configure
	@cmake --build $(BUILD) -j $(JOBS) --target failmap
	$(FAILMAP) --db failmap.db import cases/
	@# Exit 1 means "checks failed", which the broken strategies do by design.
	$(FAILMAP) --db failmap.db run FA-98921 --format table; test $$? -le 1

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# cmake --install lays out PREFIX/bin/failmap, PREFIX/share/man/man1/failmap.1,
# PREFIX/share/bash-completion/completions/failmap and
# PREFIX/share/zsh/site-functions/_failmap (CMakeLists.txt), under DESTDIR.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# One full test pass with -fsanitize=address,undefined (CI runs it).
test-asan:
	$(MAKE) test BUILD=build-asan CMAKE_FLAGS="-DFAILMAP_SANITIZE=ON -DFAILMAP_WERROR=ON"

# One full test pass of the open build: no repaired strategy compiled in (CI runs it).
test-open:
	$(MAKE) test BUILD=build-open CMAKE_FLAGS="-DFAILMAP_REPAIRS=OFF -DFAILMAP_WERROR=ON -DFAILMAP_DEBUG_INFO=OFF"

clean:
	rm -rf build build-asan build-open
