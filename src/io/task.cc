#include "io/task.h"

#include "core/evaluate.h"
#include "encoding/file.h"
#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "encoding/text.h"

namespace failmap {

const std::string_view k_default_prompt_template =
    "Fix the Python function below. {{title}}.\n"
    "\n"
    "Contract: {{contract}}\n"
    "\n"
    "What goes wrong: {{failure}}\n"
    "\n"
    "Scope: {{scope}}\n"
    "\n"
    "The current implementation:\n"
    "\n"
    "{{broken_source}}\n"
    "It is checked with these bindings and checks (check(label, actual, expected) passes when actual == expected):\n"
    "\n"
    "{{params}}{{checks}}\n"
    "It fails these checks:\n"
    "\n"
    "{{failing_checks}}\n"
    "Reply with the complete corrected Python source, standard library only, defining\n"
    "{{signature}}\n";

Result<PromptTemplate> parse_prompt_template(std::string_view text, const std::string& where) {
  if (!valid_utf8(text)) return input_error(where + ": invalid UTF-8 (a prompt template is UTF-8 text)");
  PromptTemplate t;
  t.literals.emplace_back();
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "{{") != 0) {
      if (text[i] == '\n') ++line;
      t.literals.back() += text[i++];
      continue;
    }
    std::size_t close = text.find("}}", i + 2);
    std::size_t newline = text.find('\n', i + 2);
    if (close == std::string_view::npos || newline < close)
      return input_error(where + ":" + std::to_string(line) + ": '{{' without its '}}' on the same line");
    std::string_view name = text.substr(i + 2, close - i - 2);
    std::size_t index = std::size(k_prompt_placeholders);
    for (std::size_t k = 0; k < std::size(k_prompt_placeholders); ++k)
      if (k_prompt_placeholders[k] == name) index = k;
    if (index == std::size(k_prompt_placeholders)) {
      std::string names;
      for (std::string_view n : k_prompt_placeholders) names += (names.empty() ? "" : ", ") + std::string(n);
      std::string shown = name.size() > 40 ? std::string(name.substr(0, 40)) + "..." : std::string(name);
      return input_error(where + ":" + std::to_string(line) + ": unknown placeholder '{{" + shown +
                         "}}' (expected one of " + names + ")");
    }
    t.fields.push_back(index);
    t.literals.emplace_back();
    i = close + 2;
  }
  return t;
}

Result<PromptTemplate> read_prompt_template(const std::string& path) {
  FAILMAP_TRY_ASSIGN(auto text, read_file(path, k_max_prompt_template_bytes));
  return parse_prompt_template(text, path);
}

namespace {

// The `def solve(...):` line of a strategy's source.
std::string signature_line(std::string_view python) {
  std::size_t at = python.find("def solve(");
  if (at == std::string_view::npos) return {};
  return std::string(python.substr(at, python.find('\n', at) - at));
}

struct FailedCheck {
  const Fixture* fixture;
  Value actual;
};

Result<std::vector<FailedCheck>> failed_checks(const Case& c, const Mechanism& m, StrategyKind k) {
  RunOutcome out;
  FAILMAP_TRY(run_strategy(c, m, k, &out));
  std::vector<FailedCheck> failed;
  for (std::size_t i = 0; i < c.fixtures.size(); ++i)
    if (!out.passed[i]) failed.push_back(FailedCheck{&c.fixtures[i], std::move(out.actuals[i])});
  return failed;
}

Json failed_json(const std::vector<FailedCheck>& failed) {
  Json a = Json::array();
  for (const FailedCheck& f : failed)
    a.push_back(Json{{"label", f.fixture->label},
                     {"actual", value_to_json(f.actual)},
                     {"expected", value_to_json(f.fixture->expected)}});
  return a;
}

}  // namespace

Result<std::string> task_line(const Case& c, const Mechanism& m, const std::string& unit, Tier tier,
                              const PromptTemplate& prompt) {
  if (tier == Tier::Member && !k_build_has_repairs) return no_repairs_error("case " + c.id + ", a member-tier task");
  FAILMAP_TRY_ASSIGN(auto broken, failed_checks(c, m, StrategyKind::Broken));
  FAILMAP_TRY_ASSIGN(auto unsuccessful, failed_checks(c, m, StrategyKind::Unsuccessful));
  const std::string_view broken_source = m.strategy(StrategyKind::Broken).python;
  const std::string signature = signature_line(broken_source);

  Json params = Json::object();
  std::string params_text;
  for (const auto& [name, value] : c.params) {
    params[name] = value_to_json(value);
    params_text += name + " = " + python_repr(value) + "\n";
  }
  Json fixtures = Json::array();
  std::string checks_text;
  for (std::size_t i = 0; i < c.fixtures.size(); ++i) {
    const Fixture& f = c.fixtures[i];
    std::string_view args = i < m.fixtures.size() ? m.fixtures[i].args : std::string_view{};
    fixtures.push_back(Json{{"label", f.label}, {"args", std::string(args)}, {"expected", value_to_json(f.expected)}});
    checks_text +=
        "check(" + python_str_repr(f.label) + ", solve(" + std::string(args) + "), " + python_repr(f.expected) + ")\n";
  }
  std::string failing_text;
  for (const FailedCheck& f : broken)
    failing_text += "- " + f.fixture->label + ": returned " + python_repr(f.actual) + ", expected " +
                    python_repr(f.fixture->expected) + "\n";

  const std::string* texts[] = {
      &c.id,   &c.title,     &c.prose.contract, &c.prose.failure, &c.prose.why_it_matters, &c.prose.scope, &signature,
      nullptr, &params_text, &checks_text,      &failing_text};
  std::string rendered = prompt.literals[0];
  for (std::size_t k = 0; k < prompt.fields.size(); ++k) {
    std::size_t field = prompt.fields[k];
    if (texts[field]) rendered += *texts[field];
    else rendered += broken_source;
    rendered += prompt.literals[k + 1];
  }

  Json j;
  j["task_id"] = c.id;
  j["case_tier"] = std::string(tier_name(c.tier));
  j["mechanism"] = std::string(m.id);
  j["evaluation_group"] = c.evaluation_group;
  j["unit"] = unit;
  j["variant"] = c.variant;
  j["params"] = std::move(params);
  j["title"] = c.title;
  j["contract"] = c.prose.contract;
  j["failure"] = c.prose.failure;
  j["why_it_matters"] = c.prose.why_it_matters;
  j["scope"] = c.prose.scope;
  j["signature"] = signature;
  j["broken_source"] = std::string(broken_source);
  j["fixtures"] = std::move(fixtures);
  j["failing_checks"] = failed_json(broken);
  j["unsuccessful_source"] = std::string(m.strategy(StrategyKind::Unsuccessful).python);
  j["unsuccessful_failing_checks"] = failed_json(unsuccessful);
  j["prompt"] = std::move(rendered);
  if (tier == Tier::Member) j["repaired_source"] = std::string(m.strategy(StrategyKind::Repaired).python);
  std::string line = dump_compact(j);
  line += '\n';
  return line;
}

}  // namespace failmap
