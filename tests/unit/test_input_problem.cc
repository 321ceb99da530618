// ProblemSink (src/encoding/input_problem.h): the one place a reader puts the
// problems it finds. A vector of problems gets every one in order, a vector
// of strings gets describe() of each in order, first_only keeps the first and
// says the reader may stop; count() counts every problem added.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "encoding/input_problem.h"
#include "encoding/jsonl.h"
#include "support.h"

namespace fs = std::filesystem;
using namespace failmap;

namespace {

InputProblem at(std::uint64_t line, std::string message) { return input_problem("f.jsonl", line, "", message); }

}  // namespace

TEST(ProblemSink, ProblemsKeepsEveryProblemInOrder) {
  std::vector<InputProblem> problems;
  ProblemSink sink(&problems);
  sink.add(at(2, "two"));
  sink.add(at(1, "one"));
  EXPECT_EQ(sink.count(), 2u);
  EXPECT_FALSE(sink.stopped());
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].line, 2u);
  EXPECT_EQ(problems[1].message, "one");
}

TEST(ProblemSink, TextIsDescribeOfEachInOrder) {
  std::vector<std::string> text{"kept"};
  ProblemSink sink(&text);
  InputProblem p = at(3, "bad value");
  p.field = "x";
  p.expected = "1";
  p.found = "2";
  sink.add(p);
  sink.add(input_problem("", 0, "", "cannot open"));
  EXPECT_EQ(text,
            (std::vector<std::string>{"kept", "f.jsonl:3: field 'x': bad value: expected 1, found 2", "cannot open"}));
  EXPECT_EQ(sink.count(), 2u);
}

TEST(ProblemSink, FirstOnlyKeepsTheFirstAndStops) {
  std::optional<InputProblem> first;
  ProblemSink sink = ProblemSink::first_only(&first);
  EXPECT_FALSE(sink.stopped());
  sink.add(at(4, "first"));
  sink.add(at(5, "second"));
  EXPECT_TRUE(sink.stopped());
  EXPECT_EQ(sink.count(), 2u);
  ASSERT_TRUE(first);
  EXPECT_EQ(describe(*first), "f.jsonl:4: first");
}

TEST(ProblemSink, FirstOnlyKeepsTheFirstAddedThroughAnyCopy) {
  // A reader hands its sink on by value to the reader of a part; the part's
  // problem, found first, is the one kept, and the caller's copy stops too.
  std::optional<InputProblem> first;
  ProblemSink outer = ProblemSink::first_only(&first);
  ProblemSink inner = outer;
  inner.add(at(7, "in the part"));
  EXPECT_TRUE(outer.stopped());
  outer.add(at(9, "after the part"));
  ASSERT_TRUE(first);
  EXPECT_EQ(describe(*first), "f.jsonl:7: in the part");
}

TEST(ProblemSink, ReadJsonlGivesTheSameTextInEitherForm) {
  fs::path d = testing_support::unit_temp_dir() / "problem-sink";
  fs::create_directories(d);
  std::ofstream(d / "a.jsonl", std::ios::binary) << "{\"a\":1}\n\n{\"c\": [1,}\n{\"d\":1,\"d\":2}\n";
  auto ignore = [](std::uint64_t, Json&&) {};
  std::vector<std::string> text;
  std::vector<InputProblem> problems;
  EXPECT_TRUE(read_jsonl(d / "a.jsonl", ignore, &text));
  EXPECT_TRUE(read_jsonl(d / "a.jsonl", ignore, &problems));
  ASSERT_EQ(text.size(), 3u);
  ASSERT_EQ(problems.size(), 3u);
  for (std::size_t i = 0; i < text.size(); ++i) EXPECT_EQ(text[i], describe(problems[i]));
  std::optional<InputProblem> first;
  std::uint64_t lines = 0;
  read_jsonl(
      d / "a.jsonl", [&](std::uint64_t, Json&&) { ++lines; }, ProblemSink::first_only(&first));
  ASSERT_TRUE(first);
  EXPECT_EQ(describe(*first), text[0]);
  EXPECT_EQ(lines, 1u);  // the reading ended at the empty line 2
  fs::remove_all(d);
}
