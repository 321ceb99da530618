// The typed signatures of the strategies: every strategy is
// a C++ function of typed parameters, and its entry (args::call_typed) checks
// a fixture's arguments against them before the body runs. Checked here over
// the whole registry: the C++ arity is the Python def's, the errors name the
// parameters of the def line, the three strategies of a mechanism accept the
// same Python types; and, message by message, that the errors are the ones
// the strategies gave when each body read its own arguments.
#include <gtest/gtest.h>

#include "support.h"

#include <string>
#include <string_view>
#include <vector>

#include "core/args.h"
#include "core/case.h"
#include "core/mechanism.h"

using namespace failmap;

namespace {

std::string message_of(const Result<Value>& r) { return r ? std::string("ok") : r.error().message; }

/// The error of strategy `kind` of mechanism `id` on `args`, or "ok".
std::string refusal(std::string_view id, StrategyKind kind, const std::vector<Value>& args) {
  const Mechanism* m = find_mechanism(id);
  if (m == nullptr) return "no mechanism " + std::string(id);
  return message_of(m->strategy(kind).call(args));
}

Value floats(std::initializer_list<double> xs) {
  Value::List out;
  for (double x : xs) out.push_back(Value::floating(x));
  return Value::list(std::move(out));
}

Value ints(std::initializer_list<std::int64_t> xs) {
  Value::List out;
  for (std::int64_t x : xs) out.push_back(Value::integer(x));
  return Value::list(std::move(out));
}

}  // namespace

TEST(StrategySignature, ParsesTheParametersOfTheSolveLine) {
  using Names = std::vector<std::string_view>;
  EXPECT_EQ(args::solve_parameters("def solve(base, warmup, steps):\n    return []\n"),
            (Names{"base", "warmup", "steps"}));
  // A helper before solve, a default value, no spaces.
  EXPECT_EQ(args::solve_parameters("def helper(a):\n    return a\ndef solve(xs,k=2):\n    return helper(xs)\n"),
            (Names{"xs", "k"}));
  EXPECT_EQ(args::solve_parameters("def solve():\n    return 0\n"), Names{});
  EXPECT_EQ(args::solve_parameters(""), Names{});  // the open build's repaired entry
  EXPECT_EQ(args::solve_parameters("def solved(x):\n"), Names{});
  EXPECT_EQ(args::solve_parameters("# def solve(x)\n"), Names{});
}

// For every compiled strategy: the Python def's parameters are its C++
// parameters (a call with none or one too many names the def's count), the
// three defs of a mechanism agree, and an argument of a type no parameter
// accepts (a str) is refused naming that parameter of the def line, with the
// same expected type in all three strategies.
TEST(StrategySignature, EveryStrategyTakesItsPythonParametersInOrder) {
  for (const Mechanism* m : all_mechanisms()) {
    SCOPED_TRACE(std::string(m->id));
    const std::vector<std::string_view> names = args::solve_parameters(m->strategy(StrategyKind::Broken).python);
    ASSERT_FALSE(names.empty());
    auto c = make_case(*m, "FA-SIGNATURE", 1, {{"N", Value::integer(1)}});
    ASSERT_TRUE(c) << c.error().message;
    const std::vector<Value>& good = c->fixtures.at(0).args;
    ASSERT_EQ(good.size(), names.size()) << "the fixtures pass one argument per parameter";
    std::vector<std::string> refusals(names.size());
    for (StrategyKind kind : k_all_strategies) {
      const Strategy& s = m->strategy(kind);
      if (!s.solve) continue;  // the open build's repair
      SCOPED_TRACE(std::string(strategy_name(kind)));
      EXPECT_EQ(args::solve_parameters(s.python), names);
      const std::string n = std::to_string(names.size());
      EXPECT_EQ(message_of(s.call({})), "solve() takes " + n + " arguments but 0 were given");
      std::vector<Value> more = good;
      more.push_back(Value::none());
      EXPECT_EQ(message_of(s.call(more)),
                "solve() takes " + n + " arguments but " + std::to_string(names.size() + 1) + " were given");
      EXPECT_EQ(message_of(s.call(good)), "ok");
      for (std::size_t i = 0; i < names.size(); ++i) {
        std::vector<Value> bad = good;
        bad[i] = Value::str("x");
        const std::string got = message_of(s.call(bad));
        const std::string prefix = "argument " + std::to_string(i + 1) + " (" + std::string(names[i]) + "): expected ";
        EXPECT_EQ(got.rfind(prefix, 0), 0u) << got;
        EXPECT_TRUE(got.ends_with(", got str")) << got;
        if (refusals[i].empty()) refusals[i] = got;
        EXPECT_EQ(got, refusals[i]) << "the strategies accept different types for " << names[i];
      }
    }
  }
}

// The refusals of each parameter type, word for word as the strategies gave
// them when each body read its arguments with args::integer, args::floating,
// args::int_list, args::float_list, args::int_matrix, args::float_matrix and
// its own check (kl-div-batchmean): the Python type expected, and the type of
// the whole argument found.
TEST(StrategySignature, RefusalsNameTheParameterAndBothTypes) {
  constexpr StrategyKind B = StrategyKind::Broken;
  constexpr StrategyKind U = StrategyKind::Unsuccessful;
  // int: an int or a bool; a float is refused.
  EXPECT_EQ(refusal("warmup-off-by-one", B, {Value::floating(1.0), Value::boolean(true), Value::integer(1)}), "ok");
  EXPECT_EQ(refusal("warmup-off-by-one", B, {Value::floating(1.0), Value::floating(4.0), Value::integer(1)}),
            "argument 2 (warmup): expected int, got float");
  // float: an int is refused (it would change the reference's output type).
  EXPECT_EQ(refusal("warmup-off-by-one", U, {Value::integer(1), Value::integer(4), Value::integer(1)}),
            "argument 1 (base): expected float, got int");
  // The first mismatch in order is the one reported.
  EXPECT_EQ(refusal("warmup-off-by-one", B, {Value::integer(1), Value::str("4"), Value::none()}),
            "argument 1 (base): expected float, got int");
  // list of int, copied or viewed: no bool inside.
  EXPECT_EQ(refusal("macro-average-absent-classes", B, {ints({1}), ints({1}), Value::integer(2)}), "ok");
  EXPECT_EQ(refusal("macro-average-absent-classes", B,
                    {ints({1}), Value::list({Value::integer(1), Value::boolean(false)}), Value::integer(2)}),
            "argument 2 (target): expected list of int, got list");
  EXPECT_EQ(refusal("distributed-sampler-padding", U, {floats({1.0}), Value::integer(2)}),
            "argument 1 (flags): expected list of int, got list");
  // list of float: no int inside.
  EXPECT_EQ(refusal("fp16-sum-accumulation", B, {Value::list({Value::floating(1.0), Value::integer(2)})}),
            "argument 1 (values): expected list of float, got list");
  EXPECT_EQ(refusal("fp16-sum-accumulation", B, {Value::floating(1.0)}),
            "argument 1 (values): expected list of float, got float");
  // Lists of lists: every row a list of the item type.
  EXPECT_EQ(refusal("truncation-drops-eos", B, {Value::list({ints({3}), floats({1.0})}), Value::integer(4)}),
            "argument 1 (batch): expected list of lists of int, got list");
  EXPECT_EQ(refusal("truncation-drops-eos", B, {Value::list({ints({3}), Value::integer(1)}), Value::integer(4)}),
            "argument 1 (batch): expected list of lists of int, got list");
  EXPECT_EQ(refusal("global-norm-clipping", B, {Value::list({ints({3})}), Value::floating(1.0)}),
            "argument 1 (grads): expected list of lists of float, got list");
  EXPECT_EQ(refusal("global-norm-clipping", B, {Value::dict({}), Value::floating(1.0)}),
            "argument 1 (grads): expected list of lists of float, got dict");
  // Three levels.
  EXPECT_EQ(refusal("kl-div-batchmean", B, {Value::list({Value::list({floats({0.5, 0.25})})})}), "ok");
  EXPECT_EQ(refusal("kl-div-batchmean", B, {Value::list({Value::list({ints({1})})})}),
            "argument 1 (terms): expected list of lists of lists of float, got list");
  EXPECT_EQ(refusal("kl-div-batchmean", B, {Value::list({floats({0.5})})}),
            "argument 1 (terms): expected list of lists of lists of float, got list");
  EXPECT_EQ(refusal("kl-div-batchmean", B, {Value::none()}),
            "argument 1 (terms): expected list of lists of lists of float, got NoneType");
}
