// Helpers shared by the unit tests (one definition each: the tests are
// also compiled as unity translation units, CMAKE_UNITY_BUILD).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "core/case.h"
#include "core/evaluate.h"
#include "io/case_file.h"

/// First statement of a test that needs a repaired strategy: in the open
/// build (-DFAILMAP_REPAIRS=OFF) it skips itself and says why.
#define FAILMAP_NEEDS_REPAIRS()        \
  if (!::failmap::k_build_has_repairs) \
  GTEST_SKIP() << "needs the repaired strategies, which the open build (-DFAILMAP_REPAIRS=OFF) does not hold"

namespace failmap::testing_support {

/// A folder of this test process's own, "failmap-unit-PID" under the system's
/// temporary folder, made on first use and removed with all it holds when the
/// process exits: the unit tests' archives, bundles and listings live there,
/// so that `make test` leaves nothing behind in /tmp.
inline const std::filesystem::path& unit_temp_dir() {
  struct Dir {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("failmap-unit-" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

/// Case FA-98921 made from the seed mechanism's templates at N = 1
/// (make_case): what the published page shows.
inline Case seed_case() {
  auto c = make_case(*find_mechanism("gradient-accumulation-weighting"), "FA-98921", 1, {{"N", Value::integer(1)}});
  EXPECT_TRUE(c.ok());
  return c.ok() ? *c : Case{};
}

/// Case FA-98921 as cases/FA-98921.json holds it (read_case_file).
inline Case seed_case_from_file() {
  Case c;
  std::vector<std::string> errors;
  EXPECT_TRUE(read_case_file(FAILMAP_SOURCE_DIR "/cases/FA-98921.json", &c, &errors))
      << (errors.empty() ? "" : errors[0]);
  return c;
}

}  // namespace failmap::testing_support
