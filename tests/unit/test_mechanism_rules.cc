// The registry rules every mechanism must keep, checked over the
// whole compiled-in registry, and each mechanism's worked value from the
// report it cites, computed by calling the strategies' solve() directly.
//
// Rules, for every N of the mechanism's declared domain
// from its minimum to 1,000 or its declared maximum: the broken and the
// unsuccessful strategy each fail at least two of the seven checks, the
// unsuccessful one passes at least one check the broken one fails and fails
// at least one check the broken one passes or fails with another value, and
// the repair passes all of them.
#include <gtest/gtest.h>

#include "support.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/args.h"
#include "core/case.h"
#include "core/evaluate.h"
#include "core/expr.h"
#include "core/mechanism.h"
#include "encoding/pyjson.h"

using namespace failmap;

#ifndef FAILMAP_SANITIZE_BUILD  // tests/CMakeLists.txt defines it; a build of this file alone checks every N
#define FAILMAP_SANITIZE_BUILD 0
#endif

namespace {

/// Every mechanism's domain starts here (EveryMechanismIsWellFormed checks).
constexpr std::int64_t k_rule_minimum = 1;
/// The rules are checked at every N from the minimum to this or the declared maximum.
constexpr std::int64_t k_rule_last = 1000;

/// The last N the rules are checked at for `m`.
std::int64_t rule_last(const Mechanism& m) {
  return m.parameter_maximum.empty() ? k_rule_last : std::min(k_rule_last, m.parameter_maximum[0]);
}

/// The N after `n` the rules are checked at: every one, except in the
/// sanitizer build (FAILMAP_SANITIZE_BUILD), where every 10th and the last:
/// that pass looks for memory errors and undefined behaviour, which the
/// same code paths show on a sample, while the first pass checks every N.
std::int64_t next_rule_n(const Mechanism& m, std::int64_t n) {
  if (!FAILMAP_SANITIZE_BUILD || n == rule_last(m)) return n + 1;
  return std::min(n + 10, rule_last(m));
}

Bindings bind_n(std::int64_t n) { return {{"N", Value::integer(n)}}; }

/// json.dumps of what strategy `kind` of mechanism `id` returns for the
/// Python argument list `args_text` (e.g. "[2.0,4.0,6.0],2"), or "error: ...".
std::string solve_json(std::string_view id, StrategyKind kind, std::string_view args_text) {
  const Mechanism* m = find_mechanism(id);
  if (m == nullptr) return "error: no mechanism " + std::string(id);
  auto args = evaluate_arguments(args_text, {});
  if (!args) return "error: " + args.error().message;
  if (!m->strategy(kind).solve) return "error: no " + std::string(strategy_name(kind)) + " strategy in this build";
  auto r = m->strategy(kind).call(*args);
  if (!r) return "error: " + r.error().message;
  return python_json(*r);
}

constexpr StrategyKind B = StrategyKind::Broken;
constexpr StrategyKind U = StrategyKind::Unsuccessful;
constexpr StrategyKind R = StrategyKind::Repaired;

/// The bytes of `relative` under the source tree, or "" when it cannot be read.
std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(FAILMAP_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// The headings "### `tag`: mechanism-a, mechanism-b" of a GROUPS.md text:
/// tag -> the mechanism ids named under it (a tag may have several headings).
/// A "### " line of any other form is kept under the tag "" as the whole line.
std::map<std::string, std::set<std::string>> groups_file_headings(std::string_view text) {
  std::map<std::string, std::set<std::string>> out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.rfind("### ", 0) != 0) continue;
    const std::size_t close = line.find("`: ", 5);
    const bool well_formed =
        line.size() > 5 && line[4] == '`' && close != std::string_view::npos && close > 5 &&
        line.substr(5, close - 5).find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string_view::npos;
    if (!well_formed) {
      out[""].insert(std::string(line));
      continue;
    }
    std::set<std::string>& names = out[std::string(line.substr(5, close - 5))];
    std::string_view rest = line.substr(close + 3);
    while (!rest.empty()) {
      std::size_t comma = rest.find(", ");
      names.insert(std::string(rest.substr(0, comma)));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 2);
    }
  }
  return out;
}

}  // namespace

TEST(MechanismRules, GroupsFileNamesEveryMechanismUnderEachOfItsTags) {
  // cases/GROUPS.md gives the reason of every evaluation group under a heading
  // "### `tag`: mechanism-a, mechanism-b". Every tag of every compiled-in
  // mechanism has such a heading naming the mechanism, and every mechanism a
  // heading names exists and carries that tag: the file and the registry
  // cannot drift apart, whoever adds a mechanism.
  const std::string text = read_source_file("cases/GROUPS.md");
  ASSERT_FALSE(text.empty());
  const std::map<std::string, std::set<std::string>> named = groups_file_headings(text);
  ASSERT_FALSE(named.empty());
  for (const std::string& line : named.count("") ? named.at("") : std::set<std::string>{})
    ADD_FAILURE() << "cases/GROUPS.md: a group heading has the form \"### `tag`: mechanism-a, mechanism-b\", not: "
                  << line;
  for (const Mechanism* m : all_mechanisms()) {
    for (std::string_view tag : m->evaluation_group) {
      auto at = named.find(std::string(tag));
      ASSERT_NE(at, named.end()) << m->id << ": no heading \"### `" << tag << "`: ...\" in cases/GROUPS.md";
      EXPECT_EQ(at->second.count(std::string(m->id)), 1u)
          << m->id << " carries tag " << tag << " but its heading in cases/GROUPS.md does not name it";
    }
  }
  for (const auto& [tag, mechanisms] : named) {
    if (tag.empty()) continue;
    for (const std::string& id : mechanisms) {
      const Mechanism* m = find_mechanism(id);
      ASSERT_NE(m, nullptr) << "cases/GROUPS.md names " << id << " under `" << tag << "`: no such mechanism";
      EXPECT_NE(std::find(m->evaluation_group.begin(), m->evaluation_group.end(), tag), m->evaluation_group.end())
          << "cases/GROUPS.md names " << id << " under `" << tag << "`, which it does not carry";
    }
  }
}

TEST(MechanismRules, GroupsFileHeadingsAreRead) {
  // The heading form the test above reads, on a small text.
  const auto named = groups_file_headings(
      "# Evaluation groups\n## Optimizers\n### `adam-update`: adamw-decoupled-decay, adam-epsilon-placement\n"
      "text `not-a-heading`: x\n### `ema`: ema-bias-correction\n### `ema`: other-ema\n");
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named.at("adam-update"), (std::set<std::string>{"adam-epsilon-placement", "adamw-decoupled-decay"}));
  EXPECT_EQ(named.at("ema"), (std::set<std::string>{"ema-bias-correction", "other-ema"}));
  // A heading of another form is kept apart, for the test above to report.
  EXPECT_EQ(groups_file_headings("### `a` and `b`\n").at(""), std::set<std::string>{"### `a` and `b`"});
  EXPECT_EQ(groups_file_headings("### `Bad Tag`: x\n").count(""), 1u);
}

TEST(MechanismRules, EverySourceIsCitedInTheMechanismFile) {
  // The report or fix a mechanism is grounded in is the closing "// Source:"
  // line of its prose header in src/mechanisms/ID.cc.
  for (const Mechanism* m : all_mechanisms()) {
    const std::string text = read_source_file("src/mechanisms/" + std::string(m->id) + ".cc");
    ASSERT_FALSE(text.empty()) << m->id;
    EXPECT_NE(text.find("// Source: " + std::string(m->source) + "\n"), std::string::npos)
        << m->id << ": src/mechanisms/" << m->id << ".cc has no line \"// Source: " << m->source << "\"";
  }
}

TEST(MechanismRules, EveryMechanismIsWellFormed) {
  FAILMAP_NEEDS_REPAIRS();
  for (const Mechanism* m : all_mechanisms()) {
    SCOPED_TRACE(std::string(m->id));
    EXPECT_EQ(m->fixtures.size(), 7u);
    EXPECT_EQ(m->parameters, std::vector<std::string_view>{"N"});
    // The rules below are checked from the declared minimum on.
    EXPECT_EQ(m->parameter_minimum, std::vector<std::int64_t>{k_rule_minimum});
    // No maximum, or one at or above the minimum.
    EXPECT_LE(m->parameter_maximum.size(), 1u);
    if (!m->parameter_maximum.empty()) {
      EXPECT_GE(m->parameter_maximum[0], k_rule_minimum);
    }
    // Grounded in a public report or fix: an https URL of it.
    EXPECT_EQ(m->source.rfind("https://", 0), 0u) << "source: " << m->source;
    EXPECT_EQ(m->source.find_first_of(" \t\n\""), std::string_view::npos) << "source: " << m->source;
    EXPECT_FALSE(m->title.empty());
    EXPECT_FALSE(m->evaluation_group.empty());
    const MechanismProse& p = m->prose;
    EXPECT_FALSE(p.case_title.empty());
    EXPECT_NE(p.case_title.back(), '.');
    ASSERT_FALSE(p.summary.empty());
    EXPECT_EQ(p.summary.back(), '.');
    for (std::string_view text :
         {p.root_cause, p.failure, p.unsuccessful_approach, p.contract, p.why_it_matters, p.scope})
      EXPECT_FALSE(text.empty());
    // A published page drops indentation: the three sources must still differ line by line.
    const auto stripped = [](std::string_view python) {
      std::vector<std::string_view> lines;
      for (std::size_t at = 0; at < python.size();) {
        std::size_t end = python.find('\n', at);
        if (end == std::string_view::npos) end = python.size();
        std::string_view line = python.substr(at, end - at);
        line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
        lines.push_back(line);
        at = end + 1;
      }
      return lines;
    };
    EXPECT_NE(stripped(m->strategy(B).python), stripped(m->strategy(U).python));
    EXPECT_NE(stripped(m->strategy(B).python), stripped(m->strategy(R).python));
    EXPECT_NE(stripped(m->strategy(U).python), stripped(m->strategy(R).python));
    for (StrategyKind kind : k_all_strategies) {
      const Strategy& s = m->strategy(kind);
      EXPECT_EQ(s.kind, kind);
      EXPECT_NE(s.solve, nullptr);
      EXPECT_NE(s.python.find("def solve("), std::string_view::npos);
      ASSERT_FALSE(s.python.empty());
      EXPECT_EQ(s.python.back(), '\n');
      EXPECT_EQ(s.python.find('\t'), std::string_view::npos) << "indent with spaces";
      EXPECT_EQ(s.python.find("\n\n"), std::string_view::npos) << "no blank lines: the page drops them";
    }
  }
}

TEST(MechanismRules, StrategiesSeparateOnEveryVariant) {
  FAILMAP_NEEDS_REPAIRS();
  for (const Mechanism* m : all_mechanisms()) {
    for (std::int64_t n = k_rule_minimum; n <= rule_last(*m); n = next_rule_n(*m, n)) {
      SCOPED_TRACE(std::string(m->id) + " N=" + std::to_string(n));
      auto c = make_case(*m, "FA-RULES", 1, bind_n(n));
      ASSERT_TRUE(c) << c.error().message;
      auto broken = run_strategy(*c, B);
      auto unsuccessful = run_strategy(*c, U);
      auto repaired = run_strategy(*c, R);
      ASSERT_TRUE(broken) << broken.error().message;
      ASSERT_TRUE(unsuccessful) << unsuccessful.error().message;
      ASSERT_TRUE(repaired) << repaired.error().message;
      const auto failures = [](const RunOutcome& o) { return std::count(o.passed.begin(), o.passed.end(), 0); };
      bool unsuccessful_fixes_one = false;
      bool unsuccessful_differs = false;
      for (std::size_t i = 0; i < c->fixtures.size(); ++i) {
        unsuccessful_fixes_one = unsuccessful_fixes_one || (unsuccessful->passed[i] && !broken->passed[i]);
        unsuccessful_differs = unsuccessful_differs ||
                               (!unsuccessful->passed[i] &&
                                (broken->passed[i] || !python_equal(broken->actuals[i], unsuccessful->actuals[i])));
      }
      const bool holds = failures(*broken) >= 2 && failures(*unsuccessful) >= 2 && repaired->all_passed &&
                         unsuccessful_fixes_one && unsuccessful_differs;
      EXPECT_GE(failures(*broken), 2);
      EXPECT_GE(failures(*unsuccessful), 2);
      EXPECT_TRUE(repaired->all_passed);
      EXPECT_EQ(repaired->exit_status(), 0);
      EXPECT_TRUE(unsuccessful_fixes_one) << "the unsuccessful fix must pass a check the broken path fails";
      EXPECT_TRUE(unsuccessful_differs)
          << "the unsuccessful fix must fail a check the broken path passes or fails with another value";
      if (!holds) break;  // one report per mechanism, not one per N
    }
  }
}

TEST(MechanismRules, LargestParameterInstantiatesAndRepairHolds) {
  FAILMAP_NEEDS_REPAIRS();
  // Fixture lists stay within the expression evaluator's 1,000,000-element cap
  // and integer arithmetic within int64 up to the declared maximum, or up to
  // N = 1,000,000 where none is declared.
  for (const Mechanism* m : all_mechanisms()) {
    SCOPED_TRACE(std::string(m->id));
    const std::int64_t largest = m->parameter_maximum.empty() ? 1'000'000 : m->parameter_maximum[0];
    auto c = make_case(*m, "FA-LARGE", 1, bind_n(largest));
    ASSERT_TRUE(c) << c.error().message;
    auto repaired = run_strategy(*c, R);
    ASSERT_TRUE(repaired) << repaired.error().message;
    EXPECT_TRUE(repaired->all_passed);
  }
}

namespace {

/// The case of `m` at every N of its rule domain, in order of N (index N - 1).
std::vector<Case> domain_cases(const Mechanism& m) {
  std::vector<Case> out;
  for (std::int64_t n = k_rule_minimum; n <= rule_last(m); n = next_rule_n(m, n)) {
    auto c = make_case(m, "FA-RULES", 1, bind_n(n));
    EXPECT_TRUE(c) << m.id << " N=" << n << ": " << c.error().message;
    if (!c) return {};
    out.push_back(std::move(*c));
  }
  return out;
}

/// The parameters of strategy `kind`'s `def solve(...)` line.
std::vector<std::string_view> solve_parameter_names(const Mechanism& m) {
  return args::solve_parameters(m.strategy(B).python);
}

/// Whether the repair, called with argument `p` of every check replaced by
/// `constant`, fails at least one check of `c` (a wrong value or an error).
bool constant_argument_fails_a_check(const Mechanism& m, const Case& c, std::size_t p, const Value& constant) {
  for (const Fixture& f : c.fixtures) {
    std::vector<Value> args = f.args;
    args[p] = constant;
    auto r = m.strategy(R).call(args);
    if (!r || !python_equal(*r, f.expected)) return true;
  }
  return false;
}

/// Distractors: parameters of solve that the contract does not use, so that a
/// correct fix ignores them (the broken or the unsuccessful strategy misuses
/// them). The rule "no argument is ignorable" does not apply to them; instead
/// the test checks that each one can be ignored: at some N the repair with it
/// replaced by one of its values passes every check, which is what the rule
/// refuses for every other parameter.
struct Distractor {
  std::string_view mechanism;
  std::string_view parameter;
  std::string_view why;  ///< the contract's reason, for the reader
};
const std::vector<Distractor> k_distractors = {
    {"gradient-accumulation-weighting", "target",
     "the sum of every batch size; target stays because the published seed case FA-98921 shows it"},
    {"distributed-sampler-padding", "world_size", "accuracy over the real samples, whatever the padding"},
    {"eval-drop-last", "batch_size", "every sample scored once, whatever the batch size"},
    {"macro-average-absent-classes", "num_classes", "the labels that occur, not the declared class count"},
    {"pad-eos-label-mask", "labels", "the attention mask alone chooses the positions"},
    {"pad-eos-label-mask", "pad_id", "real tokens are kept whatever their id"},
    {"scheduler-resume-position", "steps_per_epoch", "the schedule counts optimizer steps, not epochs"},
    {"skipped-step-scheduler", "growth_interval", "the scaler's growth and backoff do not matter"},
    {"weight-decay-norm-bias", "is_bias", "the number of dimensions alone decides"},
};

bool is_distractor(std::string_view mechanism, std::string_view parameter) {
  return std::any_of(k_distractors.begin(), k_distractors.end(),
                     [&](const Distractor& d) { return d.mechanism == mechanism && d.parameter == parameter; });
}

/// The first N of `cases` at which a candidate ignoring parameter `p` of `m`
/// passes every check, and the constant it uses; nullopt when there is none.
std::optional<std::pair<std::int64_t, std::string>> ignorable_at(const Mechanism& m, const std::vector<Case>& cases,
                                                                 std::size_t p) {
  for (const Case& c : cases) {
    std::vector<Value> tried;
    for (const Fixture& f : c.fixtures) {
      if (std::any_of(tried.begin(), tried.end(), [&](const Value& v) { return python_equal(v, f.args[p]); })) continue;
      tried.push_back(f.args[p]);
      if (!constant_argument_fails_a_check(m, c, p, f.args[p]))
        return std::pair{c.params.front().second.as_int(), python_json(f.args[p])};
    }
  }
  return std::nullopt;
}

}  // namespace

// The rules of CONTRIBUTING.md section 3 that make a check able to fail a
// wrong candidate, over every compiled-in mechanism and every N of its rule
// domain (k_rule_minimum .. rule_last).

TEST(MechanismRules, ExpectedValuesChangeWithN) {
  // At least four of the seven checks have an expected value that is not the
  // same at every N, as many as the seed case FA-98921 has: two cases of one
  // mechanism show different values, and held-out bindings test new ones.
  for (const Mechanism* m : all_mechanisms()) {
    const std::vector<Case> cases = domain_cases(*m);
    ASSERT_FALSE(cases.empty()) << m->id;
    std::vector<std::string> varying;
    for (std::size_t k = 0; k < cases.front().fixtures.size(); ++k) {
      const Value& first = cases.front().fixtures[k].expected;
      if (std::any_of(cases.begin(), cases.end(),
                      [&](const Case& c) { return !python_equal(c.fixtures[k].expected, first); }))
        varying.push_back(cases.front().fixtures[k].label);
    }
    EXPECT_GE(varying.size(), 4u) << m->id << ": only " << varying.size()
                                  << " of the seven expected values change with N";
  }
}

TEST(MechanismRules, AConstantCandidateFailsAtEveryBinding) {
  // For every check k and every N, a candidate that returns check k's expected
  // value from every call fails at least one other check.
  for (const Mechanism* m : all_mechanisms()) {
    for (const Case& c : domain_cases(*m)) {
      bool holds = true;
      for (const Fixture& k : c.fixtures) {
        const bool fails_another = std::any_of(c.fixtures.begin(), c.fixtures.end(), [&](const Fixture& other) {
          return !python_equal(other.expected, k.expected);
        });
        if (!fails_another) {
          ADD_FAILURE() << m->id << " N=" << c.params.front().second.as_int() << ": returning "
                        << python_json(k.expected) << " (the expected value of '" << k.label
                        << "') passes all seven checks";
          holds = false;
          break;
        }
      }
      if (!holds) break;  // one report per mechanism
    }
  }
}

TEST(MechanismRules, NoArgumentOfSolveIsIgnorable) {
  FAILMAP_NEEDS_REPAIRS();
  // For every parameter of solve and every N: the repair with that argument
  // replaced, in every check, by any value it takes in one of the checks fails
  // at least one check. A candidate that ignores the parameter (a constant in
  // its place) is thus told apart from the repair, which uses it.
  for (const Mechanism* m : all_mechanisms()) {
    const std::vector<Case> cases = domain_cases(*m);
    const std::vector<std::string_view> names = solve_parameter_names(*m);
    ASSERT_FALSE(cases.empty()) << m->id;
    ASSERT_EQ(names.size(), cases.front().fixtures.front().args.size()) << m->id;
    for (std::size_t p = 0; p < names.size(); ++p) {
      if (is_distractor(m->id, names[p])) {
        // Unused by the contract: the list holds only parameters that a repair can ignore.
        EXPECT_TRUE(ignorable_at(*m, cases, p))
            << m->id << ": " << names[p] << " is listed as a distractor but no candidate ignoring it resolves";
        continue;
      }
      if (auto at = ignorable_at(*m, cases, p))
        ADD_FAILURE() << m->id << " N=" << at->first << ": the repair with " << names[p] << " = " << at->second
                      << " in every check passes all seven (a candidate ignoring " << names[p] << " resolves)";
    }
  }
}

TEST(MechanismRules, DistractorsNameRealParameters) {
  FAILMAP_NEEDS_REPAIRS();
  for (const Distractor& d : k_distractors) {
    const Mechanism* m = find_mechanism(d.mechanism);
    ASSERT_NE(m, nullptr) << d.mechanism;
    const auto names = solve_parameter_names(*m);
    EXPECT_NE(std::find(names.begin(), names.end(), d.parameter), names.end()) << d.mechanism << " " << d.parameter;
    EXPECT_FALSE(d.why.empty());
  }
  // The seed case's repair: the value does not depend on target.
  EXPECT_EQ(solve_json("gradient-accumulation-weighting", R, "[3,1],2"), "4");
  EXPECT_EQ(solve_json("gradient-accumulation-weighting", R, "[3,1],7"), "4");
}

TEST(MechanismWorkedValues, TokenWeightedAccumulationLoss) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "token-weighted-accumulation-loss";
  EXPECT_EQ(solve_json(id, R, "[[1.0],[3.0,3.0,3.0]]"), "2.5");
  EXPECT_EQ(solve_json(id, B, "[[1.0],[3.0,3.0,3.0]]"), "2.0");
  EXPECT_EQ(solve_json(id, U, "[[1.0],[3.0,3.0,3.0]]"), "5.0");
  EXPECT_EQ(solve_json(id, R, "[[1.0],[]]").rfind("error: ", 0), std::string::npos);  // empty micro-batch is fine
  EXPECT_EQ(solve_json(id, B, "[[1.0],[]]").rfind("error: ", 0), 0u);                 // Python: ZeroDivisionError
  EXPECT_EQ(solve_json(id, R, "[1.0]").rfind("error: ", 0), 0u);                      // not a list of lists
}

TEST(MechanismWorkedValues, PartialAccumulationFlush) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "partial-accumulation-flush";
  EXPECT_EQ(solve_json(id, R, "[2.0,4.0,6.0],2"), "[3.0, 6.0]");
  EXPECT_EQ(solve_json(id, B, "[2.0,4.0,6.0],2"), "[3.0]");
  EXPECT_EQ(solve_json(id, U, "[2.0,4.0,6.0],2"), "[3.0, 3.0]");
  EXPECT_EQ(solve_json(id, R, "[2.0,4.0,6.0],-1"), "[]");  // range(0, 3, -1) is empty
  EXPECT_EQ(solve_json(id, R, "[2.0],0").rfind("error: ", 0), 0u);
}

TEST(MechanismWorkedValues, PaddedTokenLossMean) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "padded-token-loss-mean";
  constexpr auto args = "[[1.0,1.0,0.0,0.0],[3.0,3.0,3.0,3.0]],[[1,1,0,0],[1,1,1,1]]";
  EXPECT_EQ(solve_json(id, R, args), "2.3333333333333335");
  EXPECT_EQ(solve_json(id, B, args), "1.75");
  EXPECT_EQ(solve_json(id, U, args), "2.0");
  EXPECT_EQ(solve_json(id, R, "[[1.0,2.0,5.0]],[[1,1]]"), "1.5");  // zip truncates to the mask
}

TEST(MechanismWorkedValues, DistributedSamplerPadding) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "distributed-sampler-padding";
  constexpr auto args = "[1,1,0,0,0,0,0,0,0,0],3";
  EXPECT_EQ(solve_json(id, R, args), "0.2");
  EXPECT_EQ(solve_json(id, B, args), "0.3333333333333333");
  EXPECT_EQ(solve_json(id, U, args), "0.4");
  EXPECT_EQ(solve_json(id, B, "[1,0],5"), "0.6");                // cyclic padding: [1,0,1,0,1]
  EXPECT_EQ(solve_json(id, R, "[],3").rfind("error: ", 0), 0u);  // Python: ZeroDivisionError
}

TEST(MechanismWorkedValues, WarmupOffByOne) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warmup-off-by-one";
  EXPECT_EQ(solve_json(id, R, "1.0,4,6"), "[0.25, 0.5, 0.75, 1.0, 1.0, 1.0]");
  EXPECT_EQ(solve_json(id, B, "1.0,4,6"), "[0.0, 0.25, 0.5, 0.75, 1.0, 1.0]");
  EXPECT_EQ(solve_json(id, U, "1.0,4,6"), "[0.5, 0.75, 1.0, 1.0, 1.0, 1.0]");
  EXPECT_EQ(solve_json(id, R, "1.0,0,1").rfind("error: ", 0), 0u);
}

TEST(MechanismWorkedValues, LinearDecayFinalStep) {
  FAILMAP_NEEDS_REPAIRS();
  // The documented contract: floor + (base - floor) * (T - 1 - t) / (T - 1).
  constexpr auto id = "linear-decay-final-step";
  EXPECT_EQ(solve_json(id, R, "4.0,2.0,3"), "[4.0, 3.0, 2.0]");
  EXPECT_EQ(solve_json(id, B, "4.0,2.0,3"), "[4.0, 3.333333333333333, 2.6666666666666665]");
  EXPECT_EQ(solve_json(id, U, "4.0,2.0,3"), "[4.0, 2.0, 0.0]");
  EXPECT_EQ(solve_json(id, R, "4.0,2.0,1"), "[2.0]");
  EXPECT_EQ(solve_json(id, R, "4.0,2.0,0"), "[]");
}

TEST(MechanismWorkedValues, GlobalNormClipping) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "global-norm-clipping";
  EXPECT_EQ(solve_json(id, R, "[[3.0,4.0],[12.0]],1.0"),
            "[[0.23076923076923078, 0.3076923076923077], [0.9230769230769231]]");
  EXPECT_EQ(solve_json(id, B, "[[3.0,4.0],[12.0]],1.0"), "[[0.6000000000000001, 0.8], [1.0]]");
  EXPECT_EQ(solve_json(id, U, "[[3.0,4.0]],10.0"), "[[6.0, 8.0]]");
  EXPECT_EQ(solve_json(id, R, "[[3.0,4.0]],10.0"), "[[3.0, 4.0]]");
  EXPECT_EQ(solve_json(id, R, "[[0.0],[]],1.0"), "[[0.0], []]");
}

TEST(MechanismWorkedValues, EmaBiasCorrection) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "ema-bias-correction";
  EXPECT_EQ(solve_json(id, R, "0.9,[10.0,10.0,10.0]"), "[10.0, 10.0, 10.0]");
  EXPECT_EQ(solve_json(id, B, "0.5,[4.0,4.0]"), "[2.0, 3.0]");
  EXPECT_EQ(solve_json(id, U, "0.5,[4.0,4.0]"), "[2.6666666666666665, 3.4285714285714284]");
  EXPECT_EQ(solve_json(id, R, "1.0,[4.0]").rfind("error: ", 0), 0u);  // 1 - 1.0 == 0: ZeroDivisionError
}

TEST(MechanismWorkedValues, StepsPerEpochWithAccumulation) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "steps-per-epoch-with-accumulation";
  EXPECT_EQ(solve_json(id, R, "5,2"), "3");
  EXPECT_EQ(solve_json(id, R, "4,2"), "2");
  EXPECT_EQ(solve_json(id, B, "5,2"), "2");
  EXPECT_EQ(solve_json(id, U, "4,2"), "3");
  EXPECT_EQ(solve_json(id, R, "9223372036854775807,2").rfind("error: ", 0), 0u);  // overflow, never a wrap
}

TEST(MechanismWorkedValues, ResumeBatchSkip) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "resume-batch-skip";
  EXPECT_EQ(solve_json(id, R, "5,2,4"), "[1, 2]");
  EXPECT_EQ(solve_json(id, B, "5,2,4"), "[0, 4]");
  EXPECT_EQ(solve_json(id, U, "5,2,4"), "[1, 3]");
  EXPECT_EQ(solve_json(id, U, "5,4611686018427387904,4").rfind("error: ", 0), 0u);  // S * K overflows
}

// The mechanisms of the data loading, reduction, resume, metric and
// tokenization groups: each strategy's value as python3 prints it (json.dumps
// of the reference source's return value on the same arguments).

TEST(MechanismWorkedValues, UnscaleBeforeClipping) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "unscale-before-clipping";
  constexpr auto at_initial_scale = "[3.0*65536.0,4.0*65536.0],65536.0,1.0";
  EXPECT_EQ(solve_json(id, R, at_initial_scale), "[0.6000000000000001, 0.8]");
  EXPECT_EQ(solve_json(id, B, at_initial_scale), "[9.155273437500001e-06, 1.220703125e-05]");
  EXPECT_EQ(solve_json(id, U, at_initial_scale), "[0.6000000000000001, 0.8]");
  EXPECT_EQ(solve_json(id, U, "[3.0*1024.0,4.0*1024.0],1024.0,1.0"), "[3.0, 4.0]");  // after a backoff: unclipped
  EXPECT_EQ(solve_json(id, R, "[1.0],0.0,1.0").rfind("error: ", 0), 0u);             // 1.0 / 0.0: ZeroDivisionError
}

TEST(MechanismWorkedValues, SkippedStepScheduler) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "skipped-step-scheduler";
  EXPECT_EQ(solve_json(id, R, "[0,0,1,0],2"), "3");
  EXPECT_EQ(solve_json(id, B, "[0,0,1,0],2"), "4");
  EXPECT_EQ(solve_json(id, U, "[0,0,1,0],2"), "2");  // the growth on iteration 2 counted as a skip
}

TEST(MechanismWorkedValues, Fp16SumAccumulation) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "fp16-sum-accumulation";
  EXPECT_EQ(solve_json(id, R, "[1.0]+[0.00048828125]*7"), "1.00390625");
  EXPECT_EQ(solve_json(id, B, "[1.0]+[0.00048828125]*7"), "1.0");
  EXPECT_EQ(solve_json(id, U, "[1.0]+[0.00048828125]*7"), "1.0029296875");
  EXPECT_EQ(solve_json(id, B, "[1.0]*4096"), "2048.0");
  EXPECT_EQ(solve_json(id, U, "[0.1,0.2]"), "0.2998046875");  // struct 'e' rounds 0.1 and 0.2 first
  EXPECT_EQ(solve_json(id, R, "[0.1,0.2]"), "0.300048828125");
  EXPECT_EQ(solve_json(id, R, "[65504.0,32.0]").rfind("error: ", 0), 0u);  // OverflowError at 65520
  EXPECT_EQ(solve_json(id, R, "[65504.0,8.0]"), "65504.0");                // rounds down, no overflow
}

TEST(MechanismWorkedValues, LabelSmoothingIgnoreIndex) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "label-smoothing-ignore-index";
  constexpr auto args = "[2.0,4.0,1.0],[4.0,8.0,2.0],[1,-100,3],0.1";
  EXPECT_EQ(solve_json(id, R, args), "1.6500000000000001");
  EXPECT_EQ(solve_json(id, B, args), "2.566666666666667");
  EXPECT_EQ(solve_json(id, U, args), "2.0500000000000003");
  EXPECT_EQ(solve_json(id, R, "[1.0],[1.0],[-100],0.1").rfind("error: ", 0), 0u);  // nothing kept: / 0
}

TEST(MechanismWorkedValues, ClassWeightedLossMean) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "class-weighted-loss-mean";
  EXPECT_EQ(solve_json(id, R, "[0.2,0.3,0.5],[2,1,0],[2.0,4.0,6.0]"), "0.2833333333333334");
  EXPECT_EQ(solve_json(id, B, "[0.2,0.3,0.5],[2,1,0],[2.0,4.0,6.0]"), "1.1333333333333335");
  EXPECT_EQ(solve_json(id, U, "[1.0],[-1],[1.0,3.0]"), "0.75");  // weight[-1], as Python indexes
  EXPECT_EQ(solve_json(id, R, "[1.0],[-1],[1.0,3.0]"), "1.0");
  EXPECT_EQ(solve_json(id, R, "[1.0],[2],[1.0,3.0]").rfind("error: ", 0), 0u);  // IndexError
}

TEST(MechanismWorkedValues, PadEosLabelMask) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "pad-eos-label-mask";
  constexpr auto args = "[[5,7,2,2]],[[1,1,1,0]],[[0.5,0.25,0.125,9.0]],2";
  EXPECT_EQ(solve_json(id, R, args), "0.2916666666666667");
  EXPECT_EQ(solve_json(id, B, args), "2.46875");
  EXPECT_EQ(solve_json(id, U, args), "0.375");
}

TEST(MechanismWorkedValues, WeightDecayNormBias) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "weight-decay-norm-bias";
  constexpr auto args = "[2,1,0],[0,1,0],[1.0,1.0,1.0],0.001,0.1";
  EXPECT_EQ(solve_json(id, R, args), "[0.9999, 1.0, 1.0]");
  EXPECT_EQ(solve_json(id, B, args), "[0.9999, 0.9999, 0.9999]");
  EXPECT_EQ(solve_json(id, U, args), "[0.9999, 1.0, 0.9999]");
}

TEST(MechanismWorkedValues, AdamwDecoupledDecay) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "adamw-decoupled-decay";
  EXPECT_EQ(solve_json(id, R, "[1.0],[0.0],0.001,0.01"), "[0.99999]");
  EXPECT_EQ(solve_json(id, B, "[1.0],[0.0],0.001,0.01"), "[0.999000000999999]");  // L2 normalised to a full step
  EXPECT_EQ(solve_json(id, U, "[1.0],[0.0],0.001,0.01"), "[0.99]");
  EXPECT_EQ(solve_json(id, R, "[1.0],[0.5],0.001,0.01"), "[0.99899000002]");
}

TEST(MechanismWorkedValues, AdamEpsilonPlacement) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "adam-epsilon-placement";
  constexpr auto args = "0.1,0.01,1,0.001,0.9,0.999,1e-8";
  EXPECT_EQ(solve_json(id, R, args), "0.00031622776501683816");
  EXPECT_EQ(solve_json(id, B, args), "0.00031622776585872424");
  EXPECT_EQ(solve_json(id, U, args), "0.0003162277343940647");
  EXPECT_EQ(solve_json(id, R, "0.1,0.01,1,0.001,1.0,0.999,1e-8").rfind("error: ", 0), 0u);  // 1 - 1.0 == 0
}

TEST(MechanismWorkedValues, WarmupRestartOnResume) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warmup-restart-on-resume";
  EXPECT_EQ(solve_json(id, R, "0.1,3,5,2"), "[0.10000000000000002, 0.1, 0.1]");
  EXPECT_EQ(solve_json(id, B, "0.1,3,5,2"), "[0.03333333333333333, 0.06666666666666667, 0.10000000000000002]");
  EXPECT_EQ(solve_json(id, U, "0.1,3,5,2"), "[0.06666666666666667, 0.10000000000000002, 0.1]");
}

TEST(MechanismWorkedValues, SchedulerIntervalMismatch) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "scheduler-interval-mismatch";
  constexpr auto args = "0.1,2,3,[0,1,2,3,4,5]";
  EXPECT_EQ(solve_json(id, R, args),
            "[0.10000000000000002, 0.08333333333333333, 0.06666666666666667, 0.05000000000000001, "
            "0.03333333333333333, 0.016666666666666666]");
  EXPECT_EQ(solve_json(id, U, args), "[0.1, 0.1, 0.1, 0.05, 0.05, 0.05]");
  EXPECT_EQ(solve_json(id, R, "0.1,2,0,[0]").rfind("error: ", 0), 0u);    // horizon 0: ZeroDivisionError
  EXPECT_EQ(solve_json(id, B, "0.1,2,3,[-1]"), "[0.11666666666666668]");  // -1 // 3 == -1: Python floors
}

TEST(MechanismWorkedValues, LossScaleUpdateOrder) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "loss-scale-update-order";
  EXPECT_EQ(solve_json(id, R, "[3.0,6.0,8.0],[0,0,1],1.0,2"), "[3.0, 6.0]");
  EXPECT_EQ(solve_json(id, B, "[3.0,6.0,8.0],[0,0,1],1.0,2"), "[3.0, 3.0]");  // the grown scale divides step 2
  EXPECT_EQ(solve_json(id, U, "[3.0,6.0,8.0],[0,0,1],1.0,2"), "[3.0, 6.0]");
}

TEST(MechanismWorkedValues, KlDivBatchmean) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "kl-div-batchmean";
  constexpr auto args = "[[[0.1,0.2],[0.3,0.4]],[[0.5,0.6],[0.7,0.8]]]";  // [batch 2][time 2][classes 2]
  EXPECT_EQ(solve_json(id, R, args), "0.8999999999999999");
  EXPECT_EQ(solve_json(id, B, args), "0.44999999999999996");        // reduction='mean': over 8 elements
  EXPECT_EQ(solve_json(id, U, args), "1.7999999999999998");         // 'batchmean': over the batch of 2
  EXPECT_EQ(solve_json(id, R, "[[1.0]]").rfind("error: ", 0), 0u);  // not a list of lists of lists
}

TEST(MechanismWorkedValues, WarmupRatioSteps) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "warmup-ratio-steps";
  EXPECT_EQ(solve_json(id, R, "100,0.07"), "8");  // 100 * 0.07 == 7.000000000000001 in Python floats
  EXPECT_EQ(solve_json(id, B, "100,0.07"), "7");
  EXPECT_EQ(solve_json(id, R, "30,0.03"), "1");  // 0.8999999999999999
  EXPECT_EQ(solve_json(id, B, "30,0.03"), "0");
  EXPECT_EQ(solve_json(id, U, "30,0.0"), "1");
  EXPECT_EQ(solve_json(id, R, "30,1e300").rfind("error: ", 0), 0u);  // beyond int64: refused, not wrapped
}

TEST(MechanismWorkedValues, ParamGroupLrScale) {
  FAILMAP_NEEDS_REPAIRS();
  constexpr auto id = "param-group-lr-scale";
  constexpr auto args = "0.1,[1.0,0.3],[0.1,1.0]";
  EXPECT_EQ(solve_json(id, R, args), "[[0.010000000000000002, 0.003], [0.1, 0.03]]");
  EXPECT_EQ(solve_json(id, B, args), "[[0.010000000000000002, 0.010000000000000002], [0.1, 0.1]]");
  EXPECT_EQ(solve_json(id, U, args), "[[0.010000000000000002, 0.003], [0.010000000000000002, 0.003]]");
}

// The full build holds every repair; the open build (-DFAILMAP_REPAIRS=OFF)
// none: no function, no source, and running it is the one-line refusal.
TEST(MechanismRules, RepairsAreCompiledInExactlyInTheFullBuild) {
  for (const failmap::Mechanism* m : failmap::all_mechanisms()) {
    const failmap::Strategy& r = m->strategy(failmap::StrategyKind::Repaired);
    EXPECT_EQ(r.solve != nullptr, failmap::k_build_has_repairs) << m->id;
    EXPECT_EQ(!r.python.empty(), failmap::k_build_has_repairs) << m->id;
    auto c = failmap::make_case(*m, "X-1", 1, {{"N", failmap::Value::integer(1)}});
    ASSERT_TRUE(c.ok()) << m->id;
    auto run = failmap::run_strategy(*c, failmap::StrategyKind::Repaired);
    if (failmap::k_build_has_repairs) {
      ASSERT_TRUE(run.ok()) << run.error().message;
      EXPECT_TRUE(run->all_passed) << m->id;
    } else {
      ASSERT_FALSE(run.ok()) << m->id;
      EXPECT_EQ(run.error().message,
                "case X-1, strategy repaired: this build of failmap has no repairs (an open build, "
                "-DFAILMAP_REPAIRS=OFF); use a full build for anything that needs the repaired strategy");
    }
  }
}

namespace {

// The lines of `text`, without their line ends.
std::vector<std::string_view> source_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

// How many lines a repair changes: over a longest common subsequence of the
// two sources' lines, the larger of the lines only the broken source has and
// the lines only the repaired one has.
std::size_t changed_lines(std::string_view broken, std::string_view repaired) {
  const auto a = source_lines(broken), b = source_lines(repaired);
  std::vector<std::vector<std::size_t>> lcs(a.size() + 1, std::vector<std::size_t>(b.size() + 1, 0));
  for (std::size_t i = a.size(); i-- > 0;)
    for (std::size_t j = b.size(); j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  return std::max(a.size(), b.size()) - lcs[0][0];
}

}  // namespace

TEST(MechanismRules, ChangedLinesCountsALineDiff) {
  EXPECT_EQ(changed_lines("a\nb\nc\n", "a\nb\nc\n"), 0u);
  EXPECT_EQ(changed_lines("a\nb\nc\n", "a\nx\nc\n"), 1u);
  EXPECT_EQ(changed_lines("a\nb\n", "a\nb\nc\nd\ne\n"), 3u);
  EXPECT_EQ(changed_lines("a\nb\nc\nd\ne\nf\n", "a\nf\n"), 4u);
}

// Depth of the library: at least 12 repairs change five or more lines of the
// broken source (a reordered update, state carried across steps), not just
// one operator.
TEST(MechanismRules, RegistryHoldsTwelveRepairsOfFiveOrMoreLines) {
  FAILMAP_NEEDS_REPAIRS();
  std::vector<std::string> deep;
  for (const Mechanism* m : all_mechanisms())
    if (changed_lines(m->strategy(StrategyKind::Broken).python, m->strategy(StrategyKind::Repaired).python) >= 5)
      deep.push_back(std::string(m->id));
  EXPECT_GE(deep.size(), 12u) << ::testing::PrintToString(deep);
  // Two of them, from Python's difflib over their sources (17 and 12 lines
  // added): roc-auc-ties rewrites the rank loop for tied scores,
  // dedup-before-split moves the deduplication ahead of the split.
  EXPECT_NE(std::find(deep.begin(), deep.end(), "roc-auc-ties"), deep.end());
  EXPECT_NE(std::find(deep.begin(), deep.end(), "dedup-before-split"), deep.end());
}
