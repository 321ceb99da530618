// Grading's own logic, without a sandbox: pass@k against hand-computed
// values, the report grammar a candidate's process must keep, the held-out
// bindings, and dict values (which only candidates return).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/evaluate.h"
#include "encoding/pyjson.h"
#include "grade/grader.h"
#include "grade/report.h"

using namespace failmap;

TEST(Grade, PassAtKMatchesTheBinomialFormula) {
  // 1 - C(n-c, k) / C(n, k), by hand.
  EXPECT_DOUBLE_EQ(pass_at_k(5, 2, 1), 0.4);                  // 1 - 3/5
  EXPECT_DOUBLE_EQ(pass_at_k(5, 2, 2), 0.7);                  // 1 - C(3,2)/C(5,2) = 1 - 3/10
  EXPECT_DOUBLE_EQ(pass_at_k(10, 3, 5), 1.0 - 21.0 / 252.0);  // 1 - C(7,5)/C(10,5)
  EXPECT_EQ(pass_at_k(4, 0, 2), 0.0);
  EXPECT_EQ(pass_at_k(4, 3, 2), 1.0);  // n - c < k: every draw of 2 holds a correct one
  EXPECT_EQ(pass_at_k(1, 1, 1), 1.0);
  // The product form, in the documented order, gives exactly these doubles.
  EXPECT_EQ(pass_at_k(5, 2, 2), 1.0 - (1.0 - 2.0 / 4.0) * (1.0 - 2.0 / 5.0));
}

TEST(Grade, ReadsAWellFormedReport) {
  CandidateReport r = read_report(
      "V0:i3;\nV1:d0.1;\nX2:s17:ValueError: bad x\nT3:s4:why!\n"
      "V4:l3:ntf\nV5:m2:s1:al1:d-0.0;s2:\xc3\xa9"
      "s0:\nV6:dnan;\nD\n",
      7);
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_TRUE(r.done);
  ASSERT_EQ(r.calls.size(), 7u);
  EXPECT_EQ(python_json(r.returned(0)), "3");
  EXPECT_EQ(python_json(r.returned(1)), "0.1");
  EXPECT_EQ(r.calls[2].kind, CallResult::Kind::Raised);
  EXPECT_EQ(r.calls[2].text, "ValueError: bad x");
  EXPECT_EQ(r.calls[3].kind, CallResult::Kind::Refused);
  EXPECT_EQ(python_json(r.returned(4)), "[null, true, false]");
  EXPECT_EQ(python_json(r.returned(5)), "{\"a\": [-0.0], \"\xc3\xa9\": \"\"}");
  EXPECT_EQ(python_json(r.returned(6)), "NaN");
}

TEST(Grade, RefusesReportsThatBreakTheGrammar) {
  struct Bad {
    const char* text;
    const char* why;
  };
  const Bad bad[] = {
      {"V0:i3;\nV0:i3;\nD\n", "a record of call 0 where call 1"},
      {"V1:i3;\n", "a record of call 1 where call 0"},
      {"V0:i9223372036854775808;\n", "expected an int within int64"},
      {"V0:s2:\xff\xfe\n", "not valid UTF-8"},
      {"V0:s9:abc\n", "a string longer than the report"},
      {"V0:m2:s1:ai1;s1:ai2;\n", "a dict with a repeated key"},
      {"V0:i1;\nV1:i2;\nD\nV0:i3;\n", "records after the end record"},
      {"V0:d1e999;\n", "expected a float's repr"},
      {"V0:q\n", "expected a value"},
      {"D\n", "the end record after 0 of 2 calls"},
      {"garbage", "expected a record"},
  };
  for (const Bad& b : bad) {
    CandidateReport r = read_report(b.text, 2);
    ASSERT_TRUE(r.error) << b.text;
    EXPECT_EQ(r.error->kind, "output") << b.text;
    EXPECT_NE(r.error->message.find(b.why), std::string::npos) << b.text << " -> " << r.error->message;
  }
  // Nesting past 64 levels.
  std::string deep = "V0:";
  for (int i = 0; i < 65; ++i) deep += "l1:";
  deep += "n\n";
  CandidateReport r = read_report(deep, 1);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("nested deeper than 64"), std::string::npos) << r.error->message;
  // Errors the driver reports itself.
  EXPECT_EQ(read_report("Ss7:bad def\n", 3).error->kind, "syntax");
  EXPECT_EQ(read_report("Ls4:oops\n", 3).error->kind, "exception");
  EXPECT_EQ(read_report("V0:i1;\nM1\n", 3).error->kind, "memory");
}

// Found by bench/fuzz/fuzz_report.cc: bytes after a complete report left it
// both `done` and in error, which the header rules out (done: every call was
// made, and nothing broke the grammar).
TEST(Grade, AReportWithBytesAfterItsEndIsNotDone) {
  for (const char* text : {"V0:i3;\nD\nA", "V0:i3;\nD\nD\n", "V0:i3;\nD\nV0:i3;\n"}) {
    CandidateReport r = read_report(text, 1);
    ASSERT_TRUE(r.error) << text;
    EXPECT_EQ(r.error->kind, "output") << text;
    EXPECT_NE(r.error->message.find("records after the end record"), std::string::npos) << r.error->message;
    EXPECT_FALSE(r.done) << text;
    EXPECT_EQ(r.calls.size(), 1u) << text;
  }
}

TEST(Grade, DictsCompareAsPythonDoes) {
  Value a = Value::dict({{"x", Value::integer(1)}, {"y", Value::floating(2.0)}});
  Value b = Value::dict({{"y", Value::integer(2)}, {"x", Value::boolean(true)}});
  EXPECT_TRUE(python_equal(a, b));  // {'x': 1, 'y': 2.0} == {'y': 2, 'x': True}
  EXPECT_FALSE(a.identical(b));
  EXPECT_FALSE(python_equal(a, Value::dict({{"x", Value::integer(1)}})));
  EXPECT_FALSE(python_equal(a, Value::list({})));
  EXPECT_EQ(python_json(b), "{\"y\": 2, \"x\": true}");
  EXPECT_EQ(python_repr(b), "{'y': 2, 'x': True}");
}

// Held-out bindings (grade --held-out K): for every mechanism, 20 held-out bindings inside its
// declared domain, the same on every call, and the repair passes every check
// at each of them.
TEST(Grade, HeldOutBindingsStayInTheDomainAndTheRepairPassesThem) {
  for (const Mechanism* m : all_mechanisms()) {
    Bindings own;
    for (std::size_t i = 0; i < m->parameters.size(); ++i)
      own.emplace_back(std::string(m->parameters[i]), Value::integer(m->parameter_minimum[i]));
    auto c = make_case(*m, "FA-00001", 1, own);
    ASSERT_TRUE(c) << m->id << ": " << c.error().message;
    auto bindings = held_out_bindings(*m, *c, 20);
    // 20, or every other binding of a smaller domain (one parameter, minimum
    // to declared maximum, the case's own binding left out).
    std::size_t others = 20;
    if (m->parameters.size() == 1 && !m->parameter_maximum.empty())
      others = std::min<std::size_t>(20, static_cast<std::size_t>(m->parameter_maximum[0] - m->parameter_minimum[0]));
    ASSERT_EQ(bindings.size(), others) << m->id;
    auto text = [](const std::vector<Bindings>& bs) {
      std::string out;
      for (const Bindings& b : bs)
        for (const auto& [name, v] : b) out += name + "=" + python_json(v) + " ";
      return out;
    };
    EXPECT_EQ(text(bindings), text(held_out_bindings(*m, *c, 20)));
    std::set<std::string> distinct;
    for (const Bindings& b : bindings) {
      for (std::size_t i = 0; i < b.size(); ++i) {
        std::int64_t v = b[i].second.as_int();
        std::int64_t lo = m->parameter_minimum[i];
        std::int64_t hi = i < m->parameter_maximum.size() ? m->parameter_maximum[i] : lo + 999;
        EXPECT_GE(v, lo) << m->id;
        EXPECT_LE(v, hi) << m->id;
        EXPECT_NE(v, m->parameter_minimum[i]) << m->id << ": the case's own binding drawn";
      }
      distinct.insert(python_json(b.front().second));
#if FAILMAP_REPAIRS
      auto hc = make_case(*m, "FA-00001", 1, b);
      ASSERT_TRUE(hc) << m->id << ": " << hc.error().message;
      auto run = run_strategy(*hc, StrategyKind::Repaired);
      ASSERT_TRUE(run) << m->id << ": " << run.error().message;
      EXPECT_TRUE(run->all_passed) << m->id << " at " << python_json(b.front().second);
#endif
    }
    EXPECT_EQ(distinct.size(), others) << m->id;
  }
}

// The seed of a candidate's `random`: SHA-256 of "failmap-seed" NUL case id
// NUL source SHA-256, first 8 bytes big-endian; the value is Python's
// int.from_bytes(hashlib.sha256(b"failmap-seed\0FA-00001\0" + sha).digest()[:8], "big").
TEST(Grade, CandidateSeedIsTheDocumentedDigest) {
  EXPECT_EQ(candidate_seed("FA-00001", "708d6e8465067b037cffb343d915d7257181be8105d4eaca548e0df6476e6641"),
            11283507064177127394ull);
  EXPECT_NE(candidate_seed("FA-00002", "708d6e8465067b037cffb343d915d7257181be8105d4eaca548e0df6476e6641"),
            11283507064177127394ull);
}

// The call order: the case's without held-out bindings; with them, a
// Fisher-Yates shuffle driven by SplitMix64, whose first output for seed
// 1234567 is 6457827717110365317 (the reference implementation's); the
// order below is the same shuffle computed in Python.
TEST(Grade, CallOrderIsTheDocumentedShuffle) {
  GradingCase gc;
  gc.calls.assign(8, "[]");
  EXPECT_TRUE(call_order(gc, 1234567).empty());
  gc.held_out.push_back(Bindings{{"N", Value::integer(2)}});
  EXPECT_EQ(call_order(gc, 1234567), (std::vector<std::uint32_t>{6, 7, 0, 4, 1, 3, 2, 5}));
}

// A report of calls made in a shuffled order is read back in the case's
// order; calls not reached stay Missing wherever they are.
TEST(Grade, AShuffledReportComesBackInTheCasesOrder) {
  GradingCase gc;
  gc.calls.assign(4, "[]");
  ChildRun run;
  run.exit_code = 1;
  run.order = {2, 0, 3, 1};
  run.report = "V0:i20;\nV1:i0;\n";  // calls 2 and 0 answered, then the process ended
  SandboxLimits limits;
  CandidateReport r = candidate_report(gc, Result<ChildRun>(run), limits);
  ASSERT_EQ(r.calls.size(), 4u);
  EXPECT_EQ(python_json(r.returned(0)), "0");
  EXPECT_EQ(python_json(r.returned(2)), "20");
  EXPECT_EQ(r.calls[1].kind, CallResult::Kind::Missing);
  EXPECT_EQ(r.calls[3].kind, CallResult::Kind::Missing);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, "exception");
  EXPECT_NE(r.error->message.find("during call 3 of 4"), std::string::npos) << r.error->message;
}

// CPU time decides the timeout, the wall safety net has its own message, and
// the share of the budget is reported in buckets.
TEST(Grade, CpuBudgetDecidesTimeoutAndIsReportedInBuckets) {
  EXPECT_EQ(cpu_share(0.0, 10.0), "<1/16");
  EXPECT_EQ(cpu_share(0.625, 10.0), "<1/4");
  EXPECT_EQ(cpu_share(2.5, 10.0), "<1/2");
  EXPECT_EQ(cpu_share(5.0, 10.0), "<1");
  EXPECT_EQ(cpu_share(10.0, 10.0), ">=1");
  EXPECT_EQ(wall_safety_net(2.0), 15.0);
  GradingCase gc;
  gc.calls.assign(1, "[]");
  SandboxLimits limits;
  limits.cpu_seconds = 2.0;
  limits.wall_seconds = wall_safety_net(2.0);
  ChildRun run;
  run.exit_code = 0;
  run.report = "V0:i1;\nD\n";
  run.timeout = true;
  run.cpu_seconds = 2.01;
  CandidateReport cpu = candidate_report(gc, Result<ChildRun>(run), limits);
  ASSERT_TRUE(cpu.error);
  EXPECT_EQ(cpu.error->message, "the candidate used its CPU budget of 2.0 s (user + system time)");
  EXPECT_EQ(cpu.cpu_seconds, 2.01);
  run.wall_timeout = true;
  run.cpu_seconds = 0.01;
  CandidateReport wall = candidate_report(gc, Result<ChildRun>(run), limits);
  ASSERT_TRUE(wall.error);
  EXPECT_EQ(wall.error->kind, "timeout");
  EXPECT_NE(wall.error->message.find("wall-clock safety net of 15.0 s"), std::string::npos) << wall.error->message;
}

// The calibrated budget (schema/GRADING.md "Limits"): max(1 s, F x T)
// rounded up to a power of two seconds, at most 3600; the values below are
// worked by hand from that rule.
TEST(Grade, CalibratedBudgetIsTheNextPowerOfTwoAboveTheFloor) {
  EXPECT_EQ(calibrated_budget(0.0, 10.0), 1.0);       // nothing measured: the floor
  EXPECT_EQ(calibrated_budget(0.004, 10.0), 1.0);     // 0.04 s -> the 1 s floor
  EXPECT_EQ(calibrated_budget(0.1, 10.0), 1.0);       // exactly the floor, a power of two itself
  EXPECT_EQ(calibrated_budget(0.1001, 10.0), 2.0);    // 1.001 s -> 2
  EXPECT_EQ(calibrated_budget(0.3, 10.0), 4.0);       // 3 s -> 4
  EXPECT_EQ(calibrated_budget(0.4, 10.0), 4.0);       // 4 s is on the grid: kept
  EXPECT_EQ(calibrated_budget(0.41, 10.0), 8.0);      // 4.1 s -> 8
  EXPECT_EQ(calibrated_budget(1.5, 2.0), 4.0);        // F = 2: 3 s -> 4
  EXPECT_EQ(calibrated_budget(200.0, 10.0), 2048.0);  // 2000 s -> 2048
  EXPECT_EQ(calibrated_budget(300.0, 10.0), 3600.0);  // 3000 s -> 4096, capped at 3600
  EXPECT_EQ(calibrated_budget(1e9, 10.0), 3600.0);
  // A floor below 1 s reaches the grid's fractions: 0.3 s -> 0.5 s.
  EXPECT_EQ(calibrated_budget(0.03, 10.0, 0.25), 0.5);
  EXPECT_EQ(calibrated_budget(0.0, 10.0, 0.25), 0.25);
  // Noise within a grid cell gives one budget: T from 0.21 s to 0.39 s is 4 s at F = 10.
  for (double t = 0.21; t < 0.39; t += 0.01) EXPECT_EQ(calibrated_budget(t, 10.0), 4.0) << t;
}

// A case with a calibrated budget: its candidates' limits and their timeout
// message are the case's, whatever the grading's own budget.
TEST(Grade, ACasesBudgetReplacesTheGradingsInItsTimeouts) {
  GradingCase gc;
  gc.calls.assign(1, "[]");
  SandboxLimits limits = candidate_limits(3600.0, 1024);
  EXPECT_EQ(case_limits(gc, limits).cpu_seconds, 3600.0);
  gc.cpu_budget = 1.0;
  SandboxLimits own = case_limits(gc, limits);
  EXPECT_EQ(own.cpu_seconds, 1.0);
  EXPECT_EQ(own.wall_seconds, 10.0);  // 5 x 1 + 5
  EXPECT_EQ(own.memory_bytes, limits.memory_bytes);
  ChildRun run;
  run.exit_code = 0;
  run.report = "V0:i1;\nD\n";
  run.timeout = true;
  run.cpu_seconds = 1.02;
  CandidateReport r = candidate_report(gc, Result<ChildRun>(run), limits);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "the candidate used its CPU budget of 1.0 s (user + system time)");
}

// A module outside the standard library, imported by the source's body, is
// an error of its own kind; the value limits are the documented ones.
TEST(Grade, ReportLimitsAndTheImportRecord) {
  CandidateReport r = read_report("Is41:ModuleNotFoundError: No module named 'np'\n", 3);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, "import");
  EXPECT_EQ(r.error->message, "ModuleNotFoundError: No module named 'np'");
  std::string max = "V0:l999999:" + std::string(999999, 'n') + "\nD\n";
  CandidateReport ok = read_report(max, 1);
  EXPECT_FALSE(ok.error) << ok.error->message;
  std::string over = "V0:l1000000:" + std::string(1000000, 'n') + "\nD\n";
  CandidateReport bad = read_report(over, 1);
  ASSERT_TRUE(bad.error);
  EXPECT_NE(bad.error->message.find("more than 1000000"), std::string::npos) << bad.error->message;
}

// A report's returned values stay as its bytes: compared with the expected
// value as Python compares (1 == 1.0 == True, dicts in any order), and
// written as json.dumps writes them, without being built first.
TEST(Grade, ReturnedValuesAreComparedAndWrittenFromTheReportsBytes) {
  CandidateReport r = read_report("V0:i1;\nV1:l3:i1;i2;d3.0;\nV2:m2:s1:xts1:yd2.0;\nX3:s9:E: failed\nD\n", 4);
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_TRUE(r.calls[1].encoded);
  EXPECT_EQ(r.calls[1].encoded->elements, 4u);  // the list and its three ints
  EXPECT_EQ(r.calls[2].encoded->elements, 5u);  // the dict, two keys, two values
  EXPECT_TRUE(r.returned_equals(0, Value::floating(1.0)));
  EXPECT_TRUE(r.returned_equals(0, Value::boolean(true)));
  EXPECT_FALSE(r.returned_equals(0, Value::integer(2)));
  auto ints = [](std::initializer_list<std::int64_t> xs) {
    Value::List l;
    for (std::int64_t x : xs) l.push_back(Value::integer(x));
    return Value::list(std::move(l));
  };
  EXPECT_TRUE(r.returned_equals(1, ints({1, 2, 3})));
  EXPECT_FALSE(r.returned_equals(1, ints({1, 2})));
  EXPECT_FALSE(r.returned_equals(1, ints({1, 2, 4})));
  EXPECT_TRUE(r.returned_equals(2, Value::dict({{"y", Value::integer(2)}, {"x", Value::integer(1)}})));
  EXPECT_FALSE(r.returned_equals(2, Value::dict({{"x", Value::integer(1)}, {"z", Value::integer(2)}})));
  EXPECT_FALSE(r.returned_equals(3, Value::none()));  // it raised
  const char* json[] = {"1", "[1, 2, 3.0]", "{\"x\": true, \"y\": 2.0}"};
  for (std::size_t i = 0; i < 3; ++i) {
    std::string out = "<";
    r.append_returned_json(out, i);
    EXPECT_EQ(out, std::string("<") + json[i]);
    EXPECT_EQ(python_json(r.returned(i)), json[i]);
  }
  EXPECT_EQ(value_elements(ints({})), 1u);
  EXPECT_EQ(value_elements(Value::dict({{"a", ints({1, 2})}})), 5u);
}

// The observation document of a value of 999,999 ints, written from the
// report's bytes, is the one written from the value built whole.
TEST(Grade, AMillionElementValueIsJudgedFromTheReportsBytes) {
  GradingCase gc;
  gc.c.fixtures.push_back(Fixture{"long", {}, Value::integer(0)});
  gc.c.fixtures.push_back(Fixture{"short", {}, Value::integer(7)});
  gc.calls.assign(2, "[]");
  std::string report = "V0:l999999:";
  Value::List built;
  for (std::int64_t i = 0; i < 999'999; ++i) {
    report += "i" + std::to_string(i) + ";";
    built.push_back(Value::integer(i));
  }
  report += "\nV1:i7;\nD\n";
  GradeResult r = judge_report(gc, read_report(report, 2));
  RunOutcome outcome;
  outcome.actuals = {Value::list(std::move(built)), Value::integer(7)};
  outcome.passed = {0, 1};
  outcome.all_passed = false;
  EXPECT_EQ(r.observation, observation_document(gc.c, outcome));
  EXPECT_EQ(r.observation.substr(0, 50), "{\"observations\": [{\"check\": \"long\", \"actual\": [0, ");
  EXPECT_EQ(r.verdict, "partial");  // no broken run given: both checks are fail-to-pass, and one passes
}

// A dict may hold hundreds of thousands of keys; each is checked against
// the others for a repeat in one pass over them.
TEST(Grade, ADictOfHundredsOfThousandsOfKeysIsRead) {
  std::string keys;
  for (int i = 0; i < 300'000; ++i)
    keys += "s" + std::to_string(std::to_string(i).size()) + ":" + std::to_string(i) + "n";
  CandidateReport ok = read_report("V0:m300000:" + keys + "\nD\n", 1);
  EXPECT_FALSE(ok.error) << ok.error->message;
  EXPECT_EQ(ok.calls[0].encoded->elements, 600'001u);
  CandidateReport repeated = read_report("V0:m300001:" + keys + "s6:299999n\nD\n", 1);
  ASSERT_TRUE(repeated.error);
  EXPECT_NE(repeated.error->message.find("a dict with a repeated key"), std::string::npos) << repeated.error->message;
}
