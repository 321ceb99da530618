// The check of a hashed folder's SHA256SUMS (src/io/hashed_folder.h,
// check_sums and verify_sums): the syntax it reads and each problem, with
// its file and line.
#include <gtest/gtest.h>

#include "support.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "encoding/input_problem.h"
#include "encoding/sha256.h"
#include "io/hashed_folder.h"

namespace fs = std::filesystem;
using namespace failmap;

namespace {

// A fresh folder holding a.txt ("a\n") and b.txt ("b\n").
fs::path folder(const std::string& name) {
  fs::path d = ::failmap::testing_support::unit_temp_dir() / ("sums-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  std::ofstream(d / "a.txt", std::ios::binary) << "a\n";
  std::ofstream(d / "b.txt", std::ios::binary) << "b\n";
  return d;
}

void write_sums(const fs::path& d, const std::string& text) {
  std::ofstream(d / "SHA256SUMS", std::ios::binary) << text;
}

const std::string k_a = sha256_hex("a\n");
const std::string k_b = sha256_hex("b\n");

std::vector<InputProblem> problems_of(const fs::path& d, SumsCheck check = {}) {
  std::vector<InputProblem> problems;
  EXPECT_TRUE(check_sums(d, check, &problems));
  return problems;
}

// The one problem a check found: a mismatch of `file` (at `line`, 0: the
// file as a whole) saying `message`.
void expect_one_mismatch(const std::vector<InputProblem>& problems, const fs::path& file, std::size_t line,
                         const std::string& message) {
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, InputProblem::Kind::Mismatch);
  EXPECT_EQ(problems[0].file, file.string());
  EXPECT_EQ(problems[0].line, line);
  EXPECT_EQ(problems[0].message, message);
}

}  // namespace

TEST(HashedFolder, SumsInTextAndBinaryModePass) {
  fs::path d = folder("modes");
  // sha256sum's text mode ("  ") and binary mode (" *"), and a CRLF line end.
  write_sums(d, k_a + "  a.txt\n" + k_b + " *b.txt\r\n");
  EXPECT_TRUE(problems_of(d).empty());
  EXPECT_TRUE(verify_sums(d, "failmap-split").ok());
}

TEST(HashedFolder, SumsMissingFileIsNamedWithItsLine) {
  fs::path d = folder("missing");
  write_sums(d, k_a + "  a.txt\n" + k_b + "  b.txt\n" + k_b + "  c.txt\n");
  expect_one_mismatch(problems_of(d), d / "SHA256SUMS", 3, "'c.txt' is missing from the folder");
}

TEST(HashedFolder, SumsExtraFileIsNamed) {
  fs::path d = folder("extra");
  write_sums(d, k_a + "  a.txt\n");
  expect_one_mismatch(problems_of(d), d / "b.txt", 0, "not listed in SHA256SUMS");
  // A grading's notes may be left out.
  std::ofstream(d / "b.txt", std::ios::trunc) << "";
  fs::rename(d / "b.txt", d / "cpu.jsonl");
  SumsCheck grading;
  grading.format = "failmap-grading";
  EXPECT_TRUE(problems_of(d, grading).empty());
}

TEST(HashedFolder, SumsBadHexIsASyntaxProblemOfItsLine) {
  fs::path d = folder("badhex");
  std::string upper = k_b;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  write_sums(d, k_a + "  a.txt\n" + upper + "  b.txt\n" + k_b.substr(1) + "  b.txt\n" + k_b + "\tb.txt\n");
  auto problems = problems_of(d);
  ASSERT_EQ(problems.size(), 4u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(problems[i].kind, InputProblem::Kind::Input);
    EXPECT_EQ(problems[i].file, (d / "SHA256SUMS").string());
    EXPECT_EQ(problems[i].line, i + 2);
    EXPECT_EQ(problems[i].message, "expected '<sha256 hex>  <file name>'");
  }
  // No well-formed line lists b.txt.
  EXPECT_EQ(problems[3].message, "not listed in SHA256SUMS");
}

TEST(HashedFolder, SumsChangedFileGivesBothDigests) {
  fs::path d = folder("changed");
  write_sums(d, k_a + "  a.txt\n" + k_b + "  b.txt\n");
  std::ofstream(d / "b.txt", std::ios::app) << "more\n";
  auto problems = problems_of(d);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(describe(problems[0]), (d / "SHA256SUMS").string() +
                                       ":2: 'b.txt': SHA-256 does not match (file changed or corrupt): expected " +
                                       k_b + ", found " + sha256_hex("b\nmore\n"));
  // verify_sums: the same problem as an Error, the cause named by the folder's kind.
  Status s = verify_sums(d, "failmap-grading");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, Error::Kind::Mismatch);
  EXPECT_EQ(s.error().message, (d / "SHA256SUMS").string() +
                                   ":2: 'b.txt': SHA-256 does not match (file changed since the grading wrote it): "
                                   "expected " +
                                   k_b + ", found " + sha256_hex("b\nmore\n"));
}

TEST(HashedFolder, SumsNamesOutsideTheFolderAndRepeatsAreRefused) {
  fs::path d = folder("names");
  write_sums(d,
             k_a + "  a.txt\n" + k_a + "  a.txt\n" + k_b + "  ../b.txt\n" + k_b + "  SHA256SUMS\n" + k_b + "  b.txt\n");
  auto problems = problems_of(d);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].line, 2u);
  EXPECT_EQ(problems[0].message, "'a.txt' is listed twice");
  EXPECT_EQ(problems[1].line, 3u);
  EXPECT_EQ(problems[1].message, "'../b.txt' is not a file SHA256SUMS may list");
  EXPECT_EQ(problems[2].line, 4u);
  EXPECT_EQ(problems[2].message, "'SHA256SUMS' is not a file SHA256SUMS may list");
}

TEST(HashedFolder, SumsFirstOnlyStopsAtTheFirstProblem) {
  fs::path d = folder("first");
  write_sums(d, "not a line\n" + k_b + "  c.txt\n");
  std::optional<InputProblem> first;
  ProblemSink sink = ProblemSink::first_only(&first);
  EXPECT_TRUE(check_sums(d, {}, sink));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->line, 1u);
  // The same folder, every problem: the line, the missing file, both files not listed.
  EXPECT_EQ(problems_of(d).size(), 4u);
}

TEST(HashedFolder, SumsOfNoFolderOrNoSumsFile) {
  fs::path d = folder("nosums");
  std::vector<InputProblem> problems;
  EXPECT_FALSE(check_sums(d, {}, &problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(describe(problems[0]), (d / "SHA256SUMS").string() + ": missing");
  Status s = verify_sums(d / "nosuch", "failmap-grading");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, Error::Kind::Input);
  EXPECT_EQ(s.error().message, (d / "nosuch").string() + ": no such folder");
  s = verify_sums(d / "a.txt", "failmap-grading");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, (d / "a.txt").string() + ": not a folder");
}

TEST(HashedFolder, SumsWithoutHashingChecksNamesOnly) {
  fs::path d = folder("nohash");
  write_sums(d, k_b + "  a.txt\n" + k_a + "  b.txt\n");
  SumsCheck check;
  check.hash_files = false;
  EXPECT_TRUE(problems_of(d, check).empty());
  EXPECT_EQ(problems_of(d).size(), 2u);
}
