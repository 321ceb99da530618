// The grading workflow (grade/grading.h) with the archive replaced by a
// lookup and a record held in memory: input order, the record consulted and
// filled, shards that partition the predictions, refusals before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "encoding/file.h"
#include "encoding/sha256.h"
#include "grade/grading.h"
#include "support.h"

namespace failmap {
namespace {

using testing_support::seed_case;
using testing_support::unit_temp_dir;

class OneCase final : public CaseLookup {
 public:
  explicit OneCase(Case c) : m_case(std::move(c)) {}
  Result<std::optional<std::pair<Case, std::string>>> find_case(const std::string& id) override {
    ++lookups;
    if (id != m_case.id) return std::optional<std::pair<Case, std::string>>();
    return std::optional<std::pair<Case, std::string>>(std::pair{m_case, std::string(64, 'a')});
  }
  std::string name() const override { return "the test's archive"; }
  int lookups = 0;

 private:
  Case m_case;
};

class MemoryCache final : public GradingCache {
 public:
  Result<std::optional<std::string>> find(const std::string& case_digest, const std::string& source_sha256,
                                          const std::string& settings) override {
    ++finds;
    auto it = m_rows.find(case_digest + "|" + source_sha256 + "|" + settings);
    if (it == m_rows.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Status record(const std::string& case_digest, const std::string& source_sha256, const std::string& settings,
                const std::string& judged) override {
    m_rows[case_digest + "|" + source_sha256 + "|" + settings] = judged;
    return ok_status();
  }
  Status finish() override {
    ++finishes;
    return ok_status();
  }
  std::size_t size() const { return m_rows.size(); }
  int finds = 0, finishes = 0;

 private:
  std::map<std::string, std::string> m_rows;
};

const char* k_right = "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n";
const char* k_wrong = "def solve(batch_sizes, target):\n    return sum(s for s in batch_sizes if s == target)\n";

std::string prediction(const std::string& model, int sample, const char* source) {
  Json p = Json::object();
  p["case"] = "FA-98921";
  p["model"] = model;
  p["sample"] = sample;
  p["source"] = source;
  return dump_compact(p) + "\n";
}

std::string write_predictions(const std::string& name, const std::string& text) {
  auto path = unit_temp_dir() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

std::vector<Json> results(const std::string& dir) {
  auto text = read_file(std::filesystem::path(dir) / "results.jsonl");
  EXPECT_TRUE(text.ok());
  std::vector<Json> out;
  std::istringstream in(text.ok() ? *text : "");
  for (std::string line; std::getline(in, line);) out.push_back(Json::parse(line));
  return out;
}

GradeOptions options(const std::string& predictions, const std::string& out) {
  GradeOptions o;
  o.predictions = predictions;
  o.out = (unit_temp_dir() / out).string();
  o.jobs = 2;
  o.mode = sandbox_unavailable() ? unnamespaced_mode() : SandboxMode::Bubblewrap;
  return o;
}

TEST(Grading, WritesResultsInInputOrderAndRecordsEachNewGrading) {
  std::string text;
  for (int i = 0; i < 6; ++i) text += prediction("m", i, i % 2 ? k_wrong : k_right);
  auto file = write_predictions("order.jsonl", text);
  OneCase cases(seed_case());
  MemoryCache cache;
  int started = 0, advanced = 0;
  GradeHooks hooks;
  hooks.start = [&](std::size_t total) { started = static_cast<int>(total); };
  hooks.advance = [&] { ++advanced; };
  auto outcome = grade_predictions(options(file, "order"), cases, &cache, hooks);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->problems.empty());
  EXPECT_EQ(outcome->graded, 6u);
  EXPECT_EQ(started, 6);
  EXPECT_EQ(advanced, 6);
  auto lines = results(options(file, "order").out);
  ASSERT_EQ(lines.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(lines[i]["sample"], i);
    EXPECT_EQ(lines[i]["verdict"], i % 2 ? "unresolved" : "resolved") << i;
  }
  // Two distinct sources: two records; the case was looked up once.
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cases.lookups, 1);
  EXPECT_EQ(cache.finishes, 1);
  EXPECT_EQ(outcome->summary["models"]["m"]["resolved"], 3);
  EXPECT_EQ(outcome->summary["models"]["m"]["unresolved"], 3);
}

TEST(Grading, TheShardsOfAFilePartitionItsPredictions) {
  std::string text;
  for (int i = 0; i < 8; ++i)
    text += prediction("m", i, (std::string(k_right) + "# variant " + std::to_string(i) + "\n").c_str());
  auto file = write_predictions("shards.jsonl", text);
  OneCase cases(seed_case());
  std::multiset<std::int64_t> seen;
  for (std::uint64_t i = 1; i <= 3; ++i) {
    GradeOptions o = options(file, "shard" + std::to_string(i));
    o.shard = std::pair<std::uint64_t, std::uint64_t>{i, 3};
    auto outcome = grade_predictions(o, cases, nullptr);
    ASSERT_TRUE(outcome) << outcome.error().message;
    for (const Json& line : results(o.out)) {
      seen.insert(line["sample"].get<std::int64_t>());
      EXPECT_EQ(shard_of("FA-98921", line["source_sha256"].get<std::string>(), 3), i - 1);
    }
  }
  EXPECT_EQ(seen, (std::multiset<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(Grading, AnUnknownCaseIsAProblemAndNothingIsWritten) {
  std::string text = prediction("m", 0, k_right);
  text += "{\"case\":\"FA-00000\",\"model\":\"m\",\"sample\":0,\"source\":\"x\"}\n";
  auto file = write_predictions("unknown.jsonl", text);
  OneCase cases(seed_case());
  GradeOptions o = options(file, "unknown");
  auto outcome = grade_predictions(o, cases, nullptr);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->problems.size(), 1u);
  EXPECT_EQ(outcome->problems[0].line, 2u);
  EXPECT_EQ(outcome->problems[0].field, "case");
  EXPECT_NE(outcome->problems[0].message.find("no case FA-00000 in the test's archive"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

// The predictions file is read twice, checked then graded, and digested as
// it is read: summary.json gives the SHA-256 of its bytes, and a file that
// changes between the passes is refused with nothing written.
TEST(Grading, TheFilesDigestIsTakenAsItIsReadAndAChangeBetweenPassesIsRefused) {
  const std::string text = prediction("m", 0, k_right) + prediction("m", 1, k_wrong);
  auto file = write_predictions("digested.jsonl", text);
  OneCase cases(seed_case());
  GradeOptions o = options(file, "digested");
  auto outcome = grade_predictions(o, cases, nullptr);
  ASSERT_TRUE(outcome) << outcome.error().message;
  auto summary = read_file(std::filesystem::path(o.out) / "summary.json");
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(Json::parse(*summary)["predictions_sha256"], sha256_hex(text));

  GradeOptions changed = options(file, "changed");
  GradeHooks hooks;
  // Called between the passes: the second pass reads other bytes.
  hooks.start = [&](std::size_t) {
    write_predictions("digested.jsonl", prediction("m", 0, k_wrong) + prediction("m", 1, k_right));
  };
  auto refused = grade_predictions(changed, cases, nullptr, hooks);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            file + " changed while it was graded (its SHA-256 is no longer " + sha256_hex(text) + ")");
  EXPECT_FALSE(std::filesystem::exists(changed.out));
}

TEST(Grading, ParsesShardsStrictly) {
  EXPECT_EQ(*parse_shard("2/4"), (std::pair<std::uint64_t, std::uint64_t>{2, 4}));
  for (const char* bad : {"", "0/3", "4/3", " 1/3", "+1/3", "1/4097", "1/", "/3", "1-3"})
    EXPECT_FALSE(parse_shard(bad)) << bad;
}

TEST(Grading, APoolGradesEveryJobItAcceptsAndDropsWhatIsQueued) {
  auto gc = prepare_grading_case(seed_case(), "", 0);
  ASSERT_TRUE(gc);
  SandboxLimits limits;
  CandidatePool pool(1, sandbox_unavailable() ? unnamespaced_mode() : SandboxMode::Bubblewrap, limits, 4);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> verdicts;
  for (int i = 0; i < 3; ++i) {
    CandidateJob job;
    job.gc = &*gc;
    job.prediction.source = i == 1 ? k_wrong : k_right;
    job.done = [&](GradeResult r) {
      std::lock_guard lock(mu);
      verdicts.push_back(r.verdict);
      cv.notify_all();
    };
    ASSERT_TRUE(pool.submit(std::move(job)));
  }
  std::unique_lock lock(mu);
  cv.wait_for(lock, std::chrono::seconds(60), [&] { return verdicts.size() == 3; });
  std::sort(verdicts.begin(), verdicts.end());
  EXPECT_EQ(verdicts, (std::vector<std::string>{"resolved", "resolved", "unresolved"}));
}

// try_submit_for: false, the job untouched, while the queue stays full for
// the wait; true once a worker takes a job and makes room. One worker, a
// queue of one: the first job sleeps a second at import, so the second waits
// in the queue meanwhile.
TEST(Grading, APoolQueuesAJobWhenRoomComesWithinTheWait) {
  auto gc = prepare_grading_case(seed_case(), "", 0);
  ASSERT_TRUE(gc);
  CandidatePool pool(1, sandbox_unavailable() ? unnamespaced_mode() : SandboxMode::Bubblewrap, SandboxLimits{}, 1);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> verdicts;
  auto job_of = [&](std::string source) {
    CandidateJob job;
    job.gc = &*gc;
    job.prediction.source = std::move(source);
    job.done = [&](GradeResult r) {
      std::lock_guard lock(mu);
      verdicts.push_back(r.verdict);
      cv.notify_all();
    };
    return job;
  };
  ASSERT_TRUE(pool.submit(job_of(std::string("import time\ntime.sleep(1)\n") + k_right)));
  ASSERT_TRUE(pool.submit(job_of(k_wrong)));  // queued once the worker took the first
  CandidateJob third = job_of(k_right);
  EXPECT_FALSE(pool.try_submit_for(third, std::chrono::milliseconds(1)));
  EXPECT_EQ(third.prediction.source, k_right);
  ASSERT_TRUE(third.done);
  EXPECT_TRUE(pool.try_submit_for(third, std::chrono::seconds(60)));
  std::unique_lock lock(mu);
  cv.wait_for(lock, std::chrono::seconds(60), [&] { return verdicts.size() == 3; });
  EXPECT_EQ(verdicts, (std::vector<std::string>{"resolved", "unresolved", "resolved"}));
}

}  // namespace
}  // namespace failmap

// --timeout calibrated[:F]: the factor, or none for text read as seconds.
TEST(Grading, CalibrationFactorOfTimeout) {
  EXPECT_EQ(calibration_factor("calibrated"), std::optional<double>(10.0));
  EXPECT_EQ(calibration_factor("calibrated:2.5"), std::optional<double>(2.5));
  EXPECT_EQ(calibration_factor("calibrated:1000"), std::optional<double>(1000.0));
  EXPECT_EQ(calibration_factor("calibrated:1000.5"), std::nullopt);
  EXPECT_EQ(calibration_factor("calibrated:0"), std::nullopt);
  EXPECT_EQ(calibration_factor("calibrated:"), std::nullopt);
  EXPECT_EQ(calibration_factor("calibrated:2x"), std::nullopt);
  EXPECT_EQ(calibration_factor("10"), std::nullopt);
}

// The table of a summary: columns as wide as grade prints them, HELD-OUT and
// COVERAGE only when the summary has them, "-" without an interval, and a
// model name's control characters escaped.
TEST(Grading, SummaryTableColumns) {
  Json s = Json::parse(R"({"held_out": 0, "models": {"m\u0007": {"predictions": 4, "resolved": 2, "partial": 1,
      "unresolved": 1, "errors": 0, "pass_at_k": {"1": 0.5}, "pass_at_k_interval": {"1": [0.125, 0.875]}},
      "z": {"predictions": 1, "resolved": 0, "partial": 0, "unresolved": 1, "errors": 0, "pass_at_k": {"1": 0.0},
      "pass_at_k_interval": null}}})");
  EXPECT_EQ(summary_table(s),
            "MODEL                     PREDICTIONS  RESOLVED  PARTIAL  UNRESOLVED  ERRORS  PASS@1  95% INTERVAL\n"
            "m\\x07                               4         2        1           1       0   0.500  [0.125, 0.875]\n"
            "z                                   1         0        0           1       0   0.000  -\n");
  s["held_out"] = 2;
  s["split_cases"] = 3;
  s["models"]["z"]["held_out_resolved"] = 0;
  s["models"]["z"]["cases"] = 1;
  s["models"]["z"]["split_cases"] = 3;
  s["models"].erase("m\u0007");
  EXPECT_EQ(
      summary_table(s),
      "MODEL                     PREDICTIONS  RESOLVED  PARTIAL  UNRESOLVED  ERRORS  HELD-OUT  COVERAGE  PASS@1  "
      "95% INTERVAL\n"
      "z                                   1         0        0           1       0         0       1/3   0.000  -\n");
}

TEST(Grading, SandboxModeWarningOnlyWithoutNamespaces) {
  EXPECT_EQ(sandbox_mode_warning(SandboxMode::Bubblewrap), "");
  EXPECT_NE(sandbox_mode_warning(SandboxMode::None).find("can read and write every file this user can"),
            std::string::npos);
  EXPECT_NE(sandbox_mode_warning(SandboxMode::NoneLandlock).find("\"sandbox\": \"none+landlock\""), std::string::npos);
}
