// Case: one published instance of a mechanism (docs/glossary.md): id,
// variant number, title, prose, parameter binding, concrete fixtures, tier,
// evaluation_group tags, recording provenance and the digests published with
// it. Pure data; reading and writing it lives in src/io/case_file.h.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expr.h"
#include "core/mechanism.h"
#include "core/result.h"
#include "core/value.h"

namespace failmap {

/// Access tier (docs/glossary.md "tier"): `open` shows the failure and the unsuccessful
/// fix; `member` shows everything, the repair included.
enum class Tier { Open, Member };
std::string_view tier_name(Tier tier);
/// "open" | "member"; an Error otherwise.
Result<Tier> parse_tier(std::string_view name);

/// A concrete check: label, positional arguments of solve(), expected value.
struct Fixture {
  std::string label;
  std::vector<Value> args;
  Value expected;
};

/// The prose of a case as published (the mechanism's prose by default).
struct CaseProse {
  std::string summary;
  std::string root_cause;
  std::string failure;
  std::string unsuccessful_approach;
  std::string contract;
  std::string why_it_matters;
  std::string scope;
};

/// A digest printed on a published page for one implementation section:
/// kept verbatim (the page's scheme is undisclosed), never
/// recomputed, never overwritten by failmap's own digests.
struct PublishedRun {
  StrategyKind strategy;
  int exit_status;     ///< the page's `Exit N`
  std::string digest;  ///< the page's `SHA-256 / …` value, verbatim
};

/// What was published about the case (absent for cases failmap generated).
struct Published {
  std::vector<PublishedRun> runs;
  std::string case_digest;  ///< `Case digest / …`, verbatim; empty if none
};

/// A case record. `fixtures` always equals the mechanism's templates
/// evaluated at `params` (checked by validate_case).
struct Case {
  std::string id;         ///< e.g. "FA-98921"; safe as a file name
  std::string mechanism;  ///< mechanism id
  int variant = 1;        ///< "case NN" on the page, 1..99
  std::string title;
  Tier tier = Tier::Open;
  CaseProse prose;
  Bindings params;                            ///< e.g. {{"N", 1}}
  std::vector<Fixture> fixtures;              ///< seven, in template order
  std::vector<std::string> evaluation_group;  ///< mechanism tags plus the case's own, sorted, unique
  std::string recorded_runtime;               ///< e.g. "Python 3.12.14"; may be empty
  std::string recorded_at;                    ///< ISO 8601 as published; may be empty
  Published published;
};

/// True when `id` may name a case: 1..64 bytes of [A-Za-z0-9._-], not
/// starting with '.', (no '/', "..", NUL: ids become file names on export).
bool valid_case_id(std::string_view id);

/// Evaluates the mechanism's fixture templates at `params`. Errors name the
/// check label and the expression that failed (overflow, unknown name, ...).
/// The templates are parsed once per thread and mechanism
/// (CompiledExpression); the result is evaluate_arguments and
/// evaluate_expression of their texts.
Result<std::vector<Fixture>> instantiate_fixtures(const Mechanism& mechanism, const Bindings& params);

/// Builds a case of `mechanism` at `params` with the mechanism's prose and
/// tags (the `instantiate` command and the default binding).
Result<Case> make_case(const Mechanism& mechanism, std::string id, int variant, const Bindings& params);

/// The fields of `c` a published page shows as one line each, with their
/// case-file names: title, the seven prose fields, recorded.runtime and
/// recorded.at (see src/io/page.cc render_page). Pointers into `c`.
std::array<std::pair<const char*, const std::string*>, 10> one_line_fields(const Case& c);

/// The first character of UTF-8 `text` that a page file must not carry raw:
/// a C0 control but tab, line feed and carriage return (line breaks are
/// refused apart), DEL, a C1 control (U+0080-U+009F), or a bidirectional
/// embedding, override or isolate (U+202A-U+202E, U+2066-U+2069), which
/// reorders what a reader sees ("Trojan Source", CVE-2021-42574). Its code
/// point (U+0000 included), or nullopt when there is none.
std::optional<char32_t> first_unshowable(std::string_view text);

/// A code point of the Basic Multilingual Plane as Unicode writes it:
/// "U+001B", "U+202E" (4 upper-case hex digits).
std::string code_point_text(char32_t c);

/// A binding that breaks the rule binding_problem checks: the field
/// ("params" or "params.NAME") and what is wrong with it.
struct BindingProblem {
  std::string field;
  std::string what;
};

/// The rule every binding obeys, applied alike to a case file, page or
/// bundle record on import (validate_case) and to a case row read back from
/// the archive: `params` binds exactly the mechanism's parameters, in its
/// order, each to an integer (the fixture templates use them as sizes and
/// counts: a float such as 1.0, or a text like 1.0000000000000000001 that a
/// double would round, is refused, never rounded) at or above the
/// parameter's declared minimum. nullopt when the binding obeys it.
std::optional<BindingProblem> binding_problem(const Mechanism& mechanism, const Bindings& params);

/// Checks a case against the compiled registry: known mechanism, valid id,
/// variant range, binding names equal the mechanism's parameters and each
/// value at least its declared minimum, prose fields (title, summary, ...,
/// recorded runtime and time) free of line breaks (each is one line of the
/// published page), fixtures identical (type and value) to the templates at
/// the binding, tags include the mechanism's. Appends one message per problem to `errors`, each
/// prefixed by `where` (e.g. "cases/FA-1.json: "). Returns errors->empty().
bool validate_case(const Case& c, const std::string& where, std::vector<std::string>* errors);

}  // namespace failmap
