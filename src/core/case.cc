#include "core/case.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

namespace failmap {

std::string_view tier_name(Tier tier) { return tier == Tier::Open ? "open" : "member"; }

Result<Tier> parse_tier(std::string_view name) {
  if (name == "open") return Tier::Open;
  if (name == "member") return Tier::Member;
  return input_error("unknown tier '" + std::string(name) + "' (expected open or member)");
}

bool valid_case_id(std::string_view id) {
  // Not '.' first (hidden files, '..'), not '-' first: ids are file names on
  // export and arguments on the command line, where '-x' reads as an option.
  if (id.empty() || id.size() > 64 || id.front() == '.' || id.front() == '-') return false;
  if (id.find("..") != std::string_view::npos) return false;
  for (char c : id) {
    bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

namespace {

// A mechanism's fixture templates parsed once (CompiledExpression), for
// evaluation at every case's binding.
struct CompiledTemplates {
  const Mechanism* mechanism = nullptr;
  std::vector<CompiledExpression> args, expected;  // one per template, in order

  explicit CompiledTemplates(const Mechanism& m) : mechanism(&m) {
    for (const FixtureTemplate& t : m.fixtures) {
      args.emplace_back(t.args, CompiledExpression::Shape::Arguments);
      expected.emplace_back(t.expected, CompiledExpression::Shape::Expression);
    }
  }
  // Made from exactly these texts (compared, not trusted to the address:
  // a Mechanism outside the registry may reuse another's).
  bool made_from(const Mechanism& m) const {
    if (mechanism != &m || args.size() != m.fixtures.size()) return false;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i].text() != m.fixtures[i].args || expected[i].text() != m.fixtures[i].expected) return false;
    return true;
  }
};

// The compiled templates of `m`, from this thread's cache (no locks; each
// thread compiles a mechanism once).
const CompiledTemplates& compiled_templates(const Mechanism& m) {
  thread_local std::vector<CompiledTemplates> t_cache;
  for (CompiledTemplates& c : t_cache) {
    if (c.mechanism != &m) continue;
    if (!c.made_from(m)) c = CompiledTemplates(m);
    return c;
  }
  if (t_cache.size() >= 64) t_cache.clear();  // mechanisms made on the fly (tests): keep the cache small
  return t_cache.emplace_back(m);
}

}  // namespace

Result<std::vector<Fixture>> instantiate_fixtures(const Mechanism& mechanism, const Bindings& params) {
  const CompiledTemplates& compiled = compiled_templates(mechanism);
  std::vector<Fixture> out;
  out.reserve(mechanism.fixtures.size());
  for (std::size_t i = 0; i < mechanism.fixtures.size(); ++i) {
    const FixtureTemplate& t = mechanism.fixtures[i];
    Fixture f;
    f.label = std::string(t.label);
    auto args = compiled.args[i].evaluate_arguments(params);
    if (!args)
      return input_error("check '" + f.label + "': arguments '" + std::string(t.args) + "': " + args.error().message);
    auto expected = compiled.expected[i].evaluate(params);
    if (!expected)
      return input_error("check '" + f.label + "': expected '" + std::string(t.expected) +
                         "': " + expected.error().message);
    f.args = std::move(*args);
    f.expected = std::move(*expected);
    out.push_back(std::move(f));
  }
  return out;
}

Result<Case> make_case(const Mechanism& mechanism, std::string id, int variant, const Bindings& params) {
  Case c;
  c.id = std::move(id);
  c.mechanism = std::string(mechanism.id);
  c.variant = variant;
  c.title = std::string(mechanism.prose.case_title);
  c.tier = Tier::Open;
  c.prose = CaseProse{std::string(mechanism.prose.summary),  std::string(mechanism.prose.root_cause),
                      std::string(mechanism.prose.failure),  std::string(mechanism.prose.unsuccessful_approach),
                      std::string(mechanism.prose.contract), std::string(mechanism.prose.why_it_matters),
                      std::string(mechanism.prose.scope)};
  c.params = params;
  FAILMAP_TRY_ASSIGN(auto fixtures, instantiate_fixtures(mechanism, params));
  c.fixtures = std::move(fixtures);
  for (auto tag : mechanism.evaluation_group) c.evaluation_group.emplace_back(tag);
  std::sort(c.evaluation_group.begin(), c.evaluation_group.end());
  return c;
}

std::optional<char32_t> first_unshowable(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return c;
    auto next = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
    if (c == 0xc2 && next(1) >= 0x80 && next(1) <= 0x9f) return next(1);
    if (c == 0xe2 && ((next(1) == 0x80 && next(2) >= 0xaa && next(2) <= 0xae) ||
                      (next(1) == 0x81 && next(2) >= 0xa6 && next(2) <= 0xa9)))
      return static_cast<char32_t>(0x2000 | ((next(1) & 0x3f) << 6) | (next(2) & 0x3f));
  }
  return std::nullopt;
}

std::string code_point_text(char32_t c) {
  constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out = "U+";
  for (int shift = 12; shift >= 0; shift -= 4) out += k_hex[(c >> shift) & 15];
  return out;
}

std::array<std::pair<const char*, const std::string*>, 10> one_line_fields(const Case& c) {
  return {{{"title", &c.title},
           {"summary", &c.prose.summary},
           {"root_cause", &c.prose.root_cause},
           {"failure", &c.prose.failure},
           {"unsuccessful_approach", &c.prose.unsuccessful_approach},
           {"contract", &c.prose.contract},
           {"why_it_matters", &c.prose.why_it_matters},
           {"scope", &c.prose.scope},
           {"recorded.runtime", &c.recorded_runtime},
           {"recorded.at", &c.recorded_at}}};
}

std::optional<BindingProblem> binding_problem(const Mechanism& m, const Bindings& params) {
  if (params.size() != m.parameters.size()) {
    auto names = [](auto&& list, auto&& name_of) {
      std::string out;
      for (const auto& x : list) out += (out.empty() ? "" : ", ") + std::string(name_of(x));
      return out.empty() ? std::string("none") : out;
    };
    return BindingProblem{"params", "mechanism " + std::string(m.id) + " binds " + std::to_string(m.parameters.size()) +
                                        " parameter(s) (" + names(m.parameters, [](std::string_view n) { return n; }) +
                                        "), got " + std::to_string(params.size()) + " (" +
                                        names(params, [](const auto& p) -> const std::string& { return p.first; }) +
                                        ")"};
  }
  for (std::size_t i = 0; i < params.size(); ++i)
    if (params[i].first != m.parameters[i])
      return BindingProblem{"params",
                            "expected parameter '" + std::string(m.parameters[i]) + "', got '" + params[i].first + "'"};
  // Bound to a non-integer or below a parameter's minimum, the templates
  // may still evaluate, and every fixture would be reported as differing
  // from them: name the cause once.
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& [name, v] = params[i];
    if (!v.is_int())
      return BindingProblem{"params." + name, "expected an integer (the fixture templates of " + std::string(m.id) +
                                                  " use " + name + " as a size or count), got a value of Python type " +
                                                  v.type_name()};
    if (i < m.parameter_minimum.size() && v.as_int() < m.parameter_minimum[i])
      return BindingProblem{"params." + name, std::to_string(v.as_int()) + " is outside the domain of " +
                                                  std::string(m.id) + ": " + name +
                                                  " must be an integer >= " + std::to_string(m.parameter_minimum[i])};
  }
  return std::nullopt;
}

bool validate_case(const Case& c, const std::string& where, std::vector<std::string>* errors) {
  std::size_t before = errors->size();
  auto err = [&](const std::string& msg) { errors->push_back(where + msg); };
  if (!valid_case_id(c.id))
    err("field 'id': '" + c.id +
        "' is not a valid case id (1-64 of A-Z a-z 0-9 . _ -, no '..', not starting with '.' or '-')");
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) {
    err("field 'mechanism': unknown mechanism '" + c.mechanism + "'");
    return false;
  }
  if (c.variant < 1 || c.variant > 99) err("field 'variant': expected 1..99, got " + std::to_string(c.variant));
  if (auto problem = binding_problem(*m, c.params)) {
    err("field '" + problem->field + "': " + problem->what);
    return false;
  }
  // Every prose field is one line of the published page (render_page).
  for (const auto& [field, text] : one_line_fields(c))
    if (text->find_first_of("\r\n") != std::string::npos)
      err(std::string("field '") + field +
          "': holds a line break (\\n or \\r); every prose field is one line of the "
          "published page");
  for (auto tag : m->evaluation_group) {
    if (std::find(c.evaluation_group.begin(), c.evaluation_group.end(), tag) == c.evaluation_group.end())
      err("field 'evaluation_group': missing the mechanism's tag '" + std::string(tag) + "'");
  }
  auto expected = instantiate_fixtures(*m, c.params);
  if (!expected) {
    err("field 'params': " + expected.error().message);
    return false;
  }
  if (c.fixtures.size() != expected->size()) {
    err("field 'fixtures': expected " + std::to_string(expected->size()) + " fixtures, got " +
        std::to_string(c.fixtures.size()));
    return errors->size() == before;
  }
  // The binding the templates were evaluated at, for the messages: its
  // values are ints (binding_problem above).
  std::string binding;
  for (const auto& [name, v] : c.params)
    binding += (binding.empty() ? "" : ", ") + name + " = " + std::to_string(v.as_int());
  for (std::size_t i = 0; i < c.fixtures.size(); ++i) {
    const Fixture& got = c.fixtures[i];
    const Fixture& want = (*expected)[i];
    auto at = [i](const char* rest) { return "field 'fixtures[" + std::to_string(i) + "]" + rest; };  // for errors only
    if (got.label != want.label) err(at(".label': expected '") + want.label + "', got '" + got.label + "'");
    bool args_same = got.args.size() == want.args.size();
    for (std::size_t a = 0; args_same && a < got.args.size(); ++a) args_same = got.args[a].identical(want.args[a]);
    if (!args_same)
      err(at(".args': does not match the mechanism's template '") + want.label + "' at the case's binding (" + binding +
          ")");
    if (!got.expected.identical(want.expected))
      err(at(".expected': does not match the mechanism's template '") + want.label + "' at the case's binding (" +
          binding + ")");
  }
  return errors->size() == before;
}

}  // namespace failmap
