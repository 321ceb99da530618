// Mechanism: a failure family compiled into failmap (docs/glossary.md).
//
// Each mechanism lives in one file, src/mechanisms/<id>.cc, which opens with
// prose on the failure and defines one function
//
//     const failmap::Mechanism& failmap_mechanism_<id with '-' as '_'>();
//
// CMake globs that folder and generates the registry table from the file
// names (cmake/GenerateRegistry.cmake), so adding a mechanism edits no list.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/args.h"
#include "core/result.h"
#include "core/value.h"

namespace failmap {

/// The three implementations every mechanism shows: the failure, a known
/// wrong fix, and the repair (member-only).
enum class StrategyKind { Broken = 0, Unsuccessful = 1, Repaired = 2 };

/// "broken" | "unsuccessful" | "repaired".
std::string_view strategy_name(StrategyKind kind);
/// Inverse of strategy_name; an Error names the accepted spellings.
Result<StrategyKind> parse_strategy(std::string_view name);
inline constexpr std::array<StrategyKind, 3> k_all_strategies = {StrategyKind::Broken, StrategyKind::Unsuccessful,
                                                                 StrategyKind::Repaired};

/// A strategy's checked entry: args::call_typed instantiated for the
/// parameter types of its body. `body` is the strategy's C++ function (type
/// erased), `python` its Python source, whose `def solve(...)` line names the
/// parameters in argument errors, `args` the fixture's positional arguments.
/// Returns the Python return value; a wrong argument count or type, and
/// arithmetic overflow, are Errors (the Python reference would raise; failmap
/// refuses to guess).
using SolveFn = Result<Value> (*)(args::ErasedFn body, std::string_view python, const std::vector<Value>& args);

/// One strategy: the C++ function and the Python source it mirrors. The C++
/// function is a plain typed function, one parameter per parameter of the
/// Python `def solve(...)`, in order (core/args.h lists the types and the
/// Python values each accepts), e.g.
///
///     Result<Value> broken(double base, std::int64_t warmup, std::int64_t steps);
///     ... {StrategyKind::Broken, broken, "def solve(base, warmup, steps):\n" ...}
///
/// The entry checks a fixture's arguments against those types before the
/// body runs (call), so the body holds only its algorithm.
struct Strategy {
  StrategyKind kind = StrategyKind::Broken;
  /// The checked entry of `body`; nullptr in the open build's repaired entry.
  SolveFn solve = nullptr;
  /// The Python definitions exactly as the reference script shows them, with
  /// 4-space indentation and a final newline: `def solve(...):` plus any
  /// helpers it calls. Python standard library only.
  std::string_view python;
  /// The C++ function, type-erased (solve casts it back).
  args::ErasedFn body = nullptr;

  Strategy() = default;
  /// The strategy of C++ function `fn` and Python source `source`.
  template <class... P>
  Strategy(StrategyKind k, Result<Value> (*fn)(P...), std::string_view source)
      : kind(k), solve(&args::call_typed<P...>), python(source), body(reinterpret_cast<args::ErasedFn>(fn)) {}
  /// A strategy without a function (the open build's repaired entry).
  Strategy(StrategyKind k, std::nullptr_t, std::string_view source) : kind(k), python(source) {}

  /// solve() on the fixture's arguments `args`: the count and types checked,
  /// then the body. Only for a strategy with a function (`solve` not null).
  Result<Value> call(const std::vector<Value>& args) const { return solve(body, python, args); }
};

/// A fixture check as expressions in the mechanism's parameters, in the
/// Python subset of src/core/expr.h. Rendered in the reference script as
/// `check('LABEL',solve(ARGS),EXPECTED)`.
struct FixtureTemplate {
  std::string_view label;     ///< check label, e.g. "short final batch"
  std::string_view args;      ///< comma-separated argument expressions, e.g. "[N,N,1],2*N"
  std::string_view expected;  ///< expected-value expression, e.g. "2*N+1"
};

/// Prose of a mechanism, in the published page's voice; cases copy it.
struct MechanismProse {
  std::string_view case_title;             ///< title line before "· case NN"
  std::string_view summary;                ///< the sentence under the title
  std::string_view root_cause;             ///< ROOT CAUSE
  std::string_view failure;                ///< THE FAILURE
  std::string_view unsuccessful_approach;  ///< after "Unsuccessful approach: "
  std::string_view contract;               ///< Case contract
  std::string_view why_it_matters;         ///< Why this case matters
  std::string_view scope;                  ///< Verification & scope paragraph
};

/// A compiled-in mechanism. All members are static data of its source file.
struct Mechanism {
  std::string_view id;     ///< kebab-case, e.g. "gradient-accumulation-weighting"
  std::string_view title;  ///< page header title, e.g. "Gradient accumulation weighting"
  /// The public bug report, pull request or fix this mechanism is grounded in
  /// (an https URL), exported with the mechanism; empty only for mechanisms
  /// taken from a published case page alone.
  std::string_view source;
  /// evaluation_group tags (docs/glossary.md "evaluation group"): mechanisms sharing a tag stay together
  /// on one side of every split.
  std::vector<std::string_view> evaluation_group;
  /// Parameter names bound by each case, in binding order, e.g. {"N"}.
  std::vector<std::string_view> parameters;
  /// Python values of the default binding, one expression per parameter.
  std::vector<std::string_view> default_binding;
  /// Smallest value each parameter may be bound to, one per parameter: the
  /// fixture templates use N as a size, count or divisor (batch sizes, world
  /// sizes, list lengths, `1/N`), and below this value their checks stop
  /// meaning what the prose says (a repair fails, a template divides by zero).
  /// Variant numbers follow N from 1 (`failmap instantiate`). Instantiate
  /// refuses smaller values; there is no upper bound beyond the checked
  /// arithmetic and the limits of src/encoding/limits.h.
  std::vector<std::int64_t> parameter_minimum;
  /// Largest value each parameter may be bound to, one per parameter, where
  /// floats or sizes need a bound (empty: no declared maximum beyond the
  /// checked arithmetic). The domain [minimum, maximum] is where the repaired
  /// strategy must pass every check (tests/unit/test_mechanism_rules.cc) and
  /// where `failmap grade --held-out` draws its bindings.
  std::vector<std::int64_t> parameter_maximum;
  MechanismProse prose;
  std::array<Strategy, 3> strategies;     ///< indexed by StrategyKind
  std::vector<FixtureTemplate> fixtures;  ///< the seven checks, in page order

  const Strategy& strategy(StrategyKind kind) const { return strategies[static_cast<int>(kind)]; }
};

/// 1 in a full build, 0 in the open build (`-DFAILMAP_REPAIRS=OFF`), which
/// holds no repaired strategy: neither its C++ function nor its Python source.
#ifndef FAILMAP_REPAIRS
#define FAILMAP_REPAIRS 1
#endif

/// The repaired entry of a mechanism's `strategies`. A mechanism file writes
/// its repaired function inside `#if FAILMAP_REPAIRS ... #endif` and the entry
/// as `FAILMAP_REPAIRED(repaired, "def solve(...):\n ...")`; in the open build
/// the entry has no function (`solve == nullptr`) and an empty source, and the
/// tokens of both arguments are dropped by the preprocessor. (A helper the
/// repaired function shares with the other two, such as one taking an enum,
/// stays compiled in; what is only the repair's belongs in the #if.)
#if FAILMAP_REPAIRS
#define FAILMAP_REPAIRED(fn, python) \
  ::failmap::Strategy { ::failmap::StrategyKind::Repaired, fn, python }
#else
#define FAILMAP_REPAIRED(fn, python)               \
  ::failmap::Strategy {                            \
    ::failmap::StrategyKind::Repaired, nullptr, {} \
  }
#endif

/// True in a full build, false in the open build (FAILMAP_REPAIRS above).
inline constexpr bool k_build_has_repairs = FAILMAP_REPAIRS != 0;

/// "full" or "open": which build this is (`failmap --version`).
std::string_view build_name();

/// The open build's refusal, one line for every command that needs a repair:
/// "WHAT: this build of failmap has no repairs (an open build, -DFAILMAP_REPAIRS=OFF); a full build ...".
/// An Input error (exit 2). `what` names what needed the repair, e.g. "--strategy repaired".
Error no_repairs_error(std::string_view what);

/// Every compiled-in mechanism, sorted by id. Generated at build time.
const std::vector<const Mechanism*>& all_mechanisms();
/// The mechanism with this id, or nullptr. Generated with all_mechanisms.
const Mechanism* find_mechanism(std::string_view id);
/// The mechanism whose page title equals `title`, or nullptr. Generated with all_mechanisms.
const Mechanism* find_mechanism_by_title(std::string_view title);

}  // namespace failmap
