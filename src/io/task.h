// Task records (schema/TASKS.md): what a model is given for one case, one
// self-contained JSON line each in `tasks.jsonl` of `failmap export --format
// tasks` and of `failmap split --format tasks`. Every member is a JSON value
// of its own (no JSON text inside a string), written by dump_compact
// (src/encoding/json.h: Python float repr, insertion-ordered keys), so the same
// case gives the same bytes on every machine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/case.h"
#include "core/mechanism.h"
#include "core/result.h"

namespace failmap {

/// Newest task record format this failmap writes (the manifest's
/// `format_version` of a "failmap-tasks" export).
inline constexpr int k_task_format_version = 1;
/// The file of task records.
inline constexpr const char* k_tasks_file = "tasks.jsonl";

/// A prompt template (schema/TASKS.md "Prompt"): literal text with
/// placeholders `{{name}}`, name one of k_prompt_placeholders. Anything else
/// between `{{` and `}}` is refused when the template is parsed.
struct PromptTemplate {
  /// Alternating pieces: literal text, then a placeholder index (into
  /// k_prompt_placeholders), ...; `literals.size() == fields.size() + 1`.
  std::vector<std::string> literals;
  std::vector<std::size_t> fields;
};

/// The placeholder names a template may use, in schema/TASKS.md order.
inline constexpr std::string_view k_prompt_placeholders[] = {
    "task_id",   "title",         "contract", "failure", "why_it_matters", "scope",
    "signature", "broken_source", "params",   "checks",  "failing_checks"};

/// The default template (schema/TASKS.md shows it verbatim).
extern const std::string_view k_default_prompt_template;

/// Parses a template's text; `where` names it in errors ("FILE:LINE: ..."):
/// invalid UTF-8, a `{{` without its `}}`, or an unknown placeholder (the
/// names accepted are listed). An Input error.
Result<PromptTemplate> parse_prompt_template(std::string_view text, const std::string& where);

/// A template's largest file (a prompt template is a page of text, not data).
inline constexpr std::size_t k_max_prompt_template_bytes = std::size_t{1} << 20;

/// Reads the file `path` (`--prompt-template FILE`, at most
/// k_max_prompt_template_bytes) and parses it as parse_prompt_template does,
/// naming the file in errors. An Input error when it cannot be read.
Result<PromptTemplate> read_prompt_template(const std::string& path);

/// The task record line of case `c` (valid, of mechanism `m`), followed by
/// '\n': members in schema/TASKS.md order. `unit` is the split unit key of
/// the case; `tier` the tier the record is written at: `repaired_source` only
/// at the member tier. The failing checks are those of the broken and
/// unsuccessful strategies run afresh over the case's fixtures (run_strategy).
/// Errors: a strategy that raises (run_strategy's Error), the member tier in
/// the open build (no_repairs_error).
Result<std::string> task_line(const Case& c, const Mechanism& m, const std::string& unit, Tier tier,
                              const PromptTemplate& prompt);

}  // namespace failmap
