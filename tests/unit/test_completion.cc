// The rule that takes a candidate's code from a model's raw answer
// (grade/completion.h), the reward a results line carries (grader.h
// reward_of), and the body reader of serve's POST /v1/grade
// (serve/request.h), over completions shaped as models write them.
#include <gtest/gtest.h>

#include "grade/completion.h"
#include "grade/grader.h"
#include "serve/request.h"

using namespace failmap;

namespace {

const char* k_two_blocks =
    "The sum must skip the padding, so first a helper:\n"
    "\n"
    "```python\n"
    "def helper(x):\n"
    "    return x\n"
    "```\n"
    "\n"
    "and then the fix:\n"
    "\n"
    "```python\n"
    "def solve(batch_sizes, target):\n"
    "    return sum(batch_sizes)\n"
    "```\n"
    "\n"
    "This passes every check.\n";

}  // namespace

TEST(Completion, ProseAroundOneBlockGivesTheBlock) {
  Extraction e = extract_solution("Here is the fix.\n\n```python\ndef solve(a, b):\n    return a + b\n```\n\nDone.\n");
  EXPECT_EQ(e.source, "def solve(a, b):\n    return a + b\n");
  EXPECT_EQ(e.block, 1u);
  EXPECT_EQ(e.blocks, 1u);
}

TEST(Completion, OfSeveralBlocksTheLastThatDefinesSolve) {
  Extraction e = extract_solution(k_two_blocks);
  EXPECT_EQ(e.source, "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n");
  EXPECT_EQ(e.block, 2u);
  EXPECT_EQ(e.blocks, 2u);
  // A later block that does not define solve (a usage example) does not win.
  Extraction f = extract_solution(std::string(k_two_blocks) + "Usage:\n```python\nprint(solve([1], 1))\n```\n");
  EXPECT_EQ(f.block, 2u);
  EXPECT_EQ(f.blocks, 3u);
  // Of two blocks that define solve, the last (a model's corrected answer).
  Extraction g = extract_solution(
      "```python\ndef solve(a):\n    return 1\n```\nOops:\n```python\ndef solve(a):\n    return 2\n```\n");
  EXPECT_EQ(g.source, "def solve(a):\n    return 2\n");
  EXPECT_EQ(g.block, 2u);
}

TEST(Completion, NoFenceGivesTheWholeText) {
  const std::string raw = "def solve(a, b):\n    return a - b\n";
  Extraction e = extract_solution(raw);
  EXPECT_EQ(e.source, raw);
  EXPECT_EQ(e.block, 0u);
  EXPECT_EQ(e.blocks, 0u);
}

TEST(Completion, AFenceWithoutLanguageCounts) {
  Extraction e = extract_solution("Answer:\n```\ndef solve(x):\n    return x\n```\n");
  EXPECT_EQ(e.source, "def solve(x):\n    return x\n");
  EXPECT_EQ(e.block, 1u);
  // Tildes, a longer fence, "py" in capitals, an info string after the language, CRLF line ends.
  Extraction t = extract_solution("~~~~Py title=fix.py\r\ndef solve(x):\r\n    return 2\r\n~~~~\r\n");
  EXPECT_EQ(t.source, "def solve(x):\r\n    return 2\r\n");
  EXPECT_EQ(t.block, 1u);
}

TEST(Completion, ABlockWithoutSolveGivesTheWholeText) {
  const std::string text = "Use this:\n```python\ndef fix(a):\n    return a\n```\n";
  Extraction e = extract_solution(text);
  EXPECT_EQ(e.source, text);
  EXPECT_EQ(e.block, 0u);
  EXPECT_EQ(e.blocks, 1u);
  // A block of another language that defines solve is not taken either.
  Extraction js = extract_solution("```javascript\ndef solve(a) {}\n```\n");
  EXPECT_EQ(js.block, 0u);
  // A nested "def solve" (indented: a method, not the module's function) does not count.
  Extraction nested = extract_solution("```python\nclass A:\n    def solve(self):\n        return 1\n```\n");
  EXPECT_EQ(nested.block, 0u);
}

TEST(Completion, IndentedFenceAndUnclosedBlock) {
  // The opening fence's indentation is removed from the block's lines (CommonMark 4.5).
  Extraction e = extract_solution("  ```python\n  def solve(a):\n      return a\n  ```\n");
  EXPECT_EQ(e.source, "def solve(a):\n    return a\n");
  // A block left open runs to the end of the text (a truncated completion).
  Extraction u = extract_solution("Fix:\n```python\ndef solve(a):\n    return a\n");
  EXPECT_EQ(u.source, "def solve(a):\n    return a\n");
  EXPECT_EQ(u.block, 1u);
  // Four spaces is an indented code block, not a fence.
  Extraction four = extract_solution("    ```python\n    def solve(a): pass\n    ```\n");
  EXPECT_EQ(four.blocks, 0u);
}

TEST(Completion, ResolvedPredictionsRecordHow) {
  Prediction p;
  p.completion = k_two_blocks;
  resolve_completion(p);
  EXPECT_EQ(p.source, "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n");
  ASSERT_TRUE(p.extraction);
  EXPECT_EQ(dump_compact(extraction_json(*p.extraction)), R"({"from":"block","block":2,"blocks":2})");
  EXPECT_EQ(dump_compact(extraction_json(SourceExtraction{0, 3})), R"({"from":"text","block":null,"blocks":3})");
  Prediction q;
  q.source = "def solve(): pass\n";
  resolve_completion(q);
  EXPECT_FALSE(q.extraction);
  EXPECT_EQ(q.source, "def solve(): pass\n");
}

TEST(Reward, GradedIsTheShareOfChecksPassedBinaryTheVerdict) {
  auto judged = [](const char* verdict, std::vector<bool> passed) {
    Json checks = Json::array();
    for (bool p : passed) checks.push_back(Json{{"check", "c"}, {"passed", p}});
    return Json{{"verdict", verdict}, {"checks", checks}};
  };
  EXPECT_EQ(reward_of(judged("resolved", {true, true, true}), RewardMode::Graded), 1.0);
  EXPECT_EQ(reward_of(judged("partial", {true, false, true, false}), RewardMode::Graded), 0.5);
  EXPECT_EQ(reward_of(judged("unresolved", {true, false, false}), RewardMode::Graded), 1.0 / 3.0);
  EXPECT_EQ(reward_of(judged("error", {false, false}), RewardMode::Graded), 0.0);
  EXPECT_EQ(reward_of(judged("unresolved", {}), RewardMode::Graded), 0.0);
  EXPECT_EQ(reward_of(judged("partial", {true, false}), RewardMode::Binary), 0.0);
  EXPECT_EQ(reward_of(judged("resolved", {true}), RewardMode::Binary), 1.0);
  // As a results line prints it: Python's float repr.
  Prediction p;
  p.case_id = "FA-98921";
  p.model = "m";
  std::string line = result_line(p, "mech", "00", "", judged("unresolved", {true, false, false}));
  EXPECT_NE(line.find(R"(,"reward":0.3333333333333333})"), std::string::npos) << line;
}

TEST(ServeRequest, ReadsBothFormatsAndNumbersTheLines) {
  using namespace failmap::serve;
  const std::string one = R"({"case": "FA-98921", "model": "m", "sample": 0, "source": "def solve(): pass\n"})";
  const std::string two =
      R"({"case": "FA-98921", "model": "m", "sample": 1, "completion": "```\ndef solve(): pass\n```"})";
  GradeRequest a = read_grade_request("[" + one + ", " + two + "]", BatchFormat::JsonArray, 10);
  ASSERT_FALSE(a.problem) << a.problem->message;
  ASSERT_EQ(a.predictions.size(), 2u);
  EXPECT_EQ(a.predictions[1].line, 2u);
  EXPECT_EQ(a.predictions[1].source, "def solve(): pass\n");
  GradeRequest l = read_grade_request("\xEF\xBB\xBF" + one + "\r\n" + two + "\n", BatchFormat::JsonLines, 10);
  ASSERT_FALSE(l.problem) << l.problem->message;
  EXPECT_EQ(l.predictions.size(), 2u);
  EXPECT_EQ(batch_format_of("Application/JSON; charset=utf-8"), BatchFormat::JsonArray);
  EXPECT_EQ(batch_format_of("application/x-ndjson"), BatchFormat::JsonLines);
  EXPECT_FALSE(batch_format_of("text/plain"));
}

TEST(ServeRequest, RefusesWithTheMatchingStatus) {
  using namespace failmap::serve;
  const std::string one = R"({"case": "FA-98921", "model": "m", "source": "x"})";
  auto status = [](const GradeRequest& r) { return r.problem ? r.problem->status : 200; };
  EXPECT_EQ(status(read_grade_request("{\"predictions\": []}", BatchFormat::JsonArray, 10)), 400);
  EXPECT_EQ(status(read_grade_request("[" + one + ",", BatchFormat::JsonArray, 10)), 400);
  EXPECT_EQ(status(read_grade_request("[]", BatchFormat::JsonArray, 10)), 422);
  EXPECT_EQ(status(read_grade_request("[" + one + "," + one + "," + one + "]", BatchFormat::JsonArray, 2)), 413);
  EXPECT_EQ(status(read_grade_request(one + "\n" + one + "\n" + one + "\n", BatchFormat::JsonLines, 2)), 413);
  EXPECT_EQ(
      status(read_grade_request(one + "\n\n" + R"({"case": "FA-98921", "model": "m", "sample": 1, "source": "x"})",
                                BatchFormat::JsonLines, 10)),
      400);
  // Given twice, an unknown member, both source and completion: 422, each named.
  GradeRequest twice = read_grade_request("[" + one + "," + one + "]", BatchFormat::JsonArray, 10);
  ASSERT_EQ(status(twice), 422);
  ASSERT_EQ(twice.problem->problems.size(), 1u);
  EXPECT_EQ(twice.problem->problems[0],
            "request:2: field 'sample': case FA-98921, model \"m\", sample 0 is given twice in this batch");
  GradeRequest both =
      read_grade_request(R"([{"case": "FA-98921", "model": "m", "source": "x", "completion": "y", "smaple": 1}])",
                         BatchFormat::JsonArray, 10);
  ASSERT_EQ(status(both), 422);
  ASSERT_EQ(both.problem->problems.size(), 2u);
  // Nesting beyond the JSON depth limit inside `meta`: refused, not recursed into.
  std::string deep = R"([{"case": "FA-98921", "model": "m", "source": "x", "meta": )" + std::string(200, '[') +
                     std::string(200, ']') + "}]";
  EXPECT_EQ(status(read_grade_request(deep, BatchFormat::JsonArray, 10)), 400);
}
