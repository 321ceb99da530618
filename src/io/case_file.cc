#include "io/case_file.h"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/evaluate.h"
#include "encoding/embedded.h"
#include "encoding/file.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "encoding/text.h"

namespace failmap {
namespace {

const valijson::Schema& case_schema() {
  static const valijson::Schema* k_schema = [] {
    auto* schema = new valijson::Schema;
    nlohmann::json doc = nlohmann::json::parse(embedded_file("case.schema.json"));
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(doc);
    parser.populateSchema(adapter, *schema);
    return schema;
  }();
  return *k_schema;
}

// valijson context entries look like "<root>", "[fixtures]", "[0]": their
// inner names, in order ("fixtures", "0").
std::vector<std::string> context_parts(const std::vector<std::string>& context) {
  std::vector<std::string> parts;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    parts.push_back(part.size() >= 2 && part.front() == '[' && part.back() == ']' ? part.substr(1, part.size() - 2)
                                                                                  : part);
  }
  return parts;
}

bool is_index(const std::string& part) {
  return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The field path users see ("fixtures[0].label"), empty for the top level.
std::string field_path(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (is_index(part)) out += "[" + part + "]";
    else out += (out.empty() ? "" : ".") + part;
  }
  return out;
}

// The node of schema/case.schema.json that constrains the value at `parts`
// (through "properties", "additionalProperties" and "items"), or null.
const nlohmann::json* schema_node(const std::vector<std::string>& parts) {
  static const nlohmann::json k_doc = nlohmann::json::parse(embedded_file("case.schema.json"));
  const nlohmann::json* node = &k_doc;
  for (const std::string& part : parts) {
    const nlohmann::json* next = nullptr;
    if (is_index(part) && node->contains("items")) next = &(*node)["items"];
    else if (node->contains("properties") && (*node)["properties"].contains(part)) next = &(*node)["properties"][part];
    else if (node->contains("additionalProperties") && (*node)["additionalProperties"].is_object())
      next = &(*node)["additionalProperties"];
    if (!next) return nullptr;
    node = next;
  }
  return node;
}

// The value of the document at `parts`, or null.
const nlohmann::json* value_at(const nlohmann::json& doc, const std::vector<std::string>& parts) {
  const nlohmann::json* node = &doc;
  for (const std::string& part : parts) {
    if (node->is_array() && is_index(part) && std::stoull(part) < node->size()) node = &(*node)[std::stoull(part)];
    else if (node->is_object() && node->contains(part)) node = &(*node)[part];
    else return nullptr;
  }
  return node;
}

std::string type_words(const std::string& type) {
  if (type == "integer") return "an integer";
  if (type == "number") return "a number";
  if (type == "string") return "a string";
  if (type == "object") return "an object";
  if (type == "array") return "an array";
  if (type == "boolean") return "true or false";
  return type;
}

// One valijson error, made to say what was expected and what was found:
// "pattern" failures name the rule of schema/case.schema.json in words,
// "type", "const" and "enum" failures name the expected and the found value,
// and bounds lose valijson's "%f" digits ("1.000000" -> "1"; the schema's
// bounds are integers). Returns the field path and the text.
std::pair<std::string, std::string> readable_schema_error(const std::vector<std::string>& parts,
                                                          const nlohmann::json& doc, std::string text) {
  std::string path = field_path(parts);
  const nlohmann::json* rule = schema_node(parts);
  const nlohmann::json* found = value_at(doc, parts);
  std::string got = found ? ", got " + describe_json_value(*found) : "";
  auto quoted_tail = [&](std::string_view lead) -> std::string {
    // "... constraints: 'foo'." / "Missing required property 'title'."
    std::size_t open = text.find('\'', lead.size() - 1);
    std::size_t close = text.rfind('\'');
    return open != std::string::npos && close > open ? text.substr(open + 1, close - open - 1) : std::string();
  };
  if (text.rfind("Missing required property", 0) == 0) {
    std::string name = quoted_tail("Missing required property");
    return {path.empty() ? name : path + "." + name, "missing: a required field of a failmap case"};
  }
  if (text.rfind("Object contains a property that could not be validated", 0) == 0) {
    std::string name = quoted_tail(
        "Object contains a property that could not be validated using 'properties' or 'additionalProperties' "
        "constraints:");
    return {path.empty() ? name : path + "." + name,
            "not a field of a failmap case (schema/case.schema.json lists them)"};
  }
  if (text.rfind("Value type not permitted", 0) == 0 && rule && rule->contains("type") && (*rule)["type"].is_string())
    return {path, "expected " + type_words((*rule)["type"].get<std::string>()) + got};
  if (text.rfind("Failed to match expected value set by 'const'", 0) == 0 && rule && rule->contains("const"))
    return {path, "expected " + (*rule)["const"].dump() + got};
  if (text.rfind("Failed to match against any enum values", 0) == 0 && rule && rule->contains("enum")) {
    std::string options;
    for (const auto& option : (*rule)["enum"]) options += (options.empty() ? "" : " or ") + option.dump();
    return {path, "expected " + options + got};
  }
  if (text.rfind("Failed to match regex specified by 'pattern' constraint", 0) == 0) {
    auto ends_with = [&](std::string_view tail) {
      return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (path == "id")
      return {path,
              "expected 1 to 64 characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-' (a case id "
              "becomes a file name on export and a command-line argument: no '/', '..' or NUL)" +
                  got};
    if (path == "mechanism" || path.rfind("evaluation_group", 0) == 0)
      return {path,
              "expected lower-case words of a-z 0-9 joined by single '-', e.g. gradient-accumulation-weighting" + got};
    if (ends_with("digest") || ends_with("salt") || ends_with("commitment"))
      return {path, "expected 64 lower-case hexadecimal digits (a SHA-256 value)" + got};
    return {path, text};
  }
  for (std::size_t at; (at = text.find(".000000")) != std::string::npos;) text.erase(at, 7);
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z') text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return {path, found && found->is_primitive() ? text + got : text};
}

bool schema_valid(const Json& j, const std::string& where, ProblemSink& problems) {
  if (surely_matches_case_schema(j)) return true;  // valijson below names every problem
  nlohmann::json plain = nlohmann::json::parse(j.dump());
  // One validator per thread: it caches the std::regex of every "pattern"
  // constraint, which a fresh validator would compile again on every call.
  thread_local valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(plain);
  if (validator.validate(case_schema(), adapter, &results)) return true;
  std::vector<InputProblem> seen;  // each described text once
  valijson::ValidationResults::Error e;
  while (results.popError(e)) {
    // Wrappers of a leaf error reported on its own.
    if (e.description.rfind("Failed to validate against", 0) == 0) continue;
    if (e.description.rfind("Failed to validate item #", 0) == 0) continue;
    auto [path, text] = readable_schema_error(context_parts(e.context), plain, e.description);
    InputProblem p = input_problem(where, 0, path.empty() ? "(top level)" : path, text);
    const std::string said = describe(p);
    if (std::none_of(seen.begin(), seen.end(), [&](const InputProblem& q) { return describe(q) == said; }))
      seen.push_back(std::move(p));
  }
  if (seen.empty()) seen.push_back(input_problem(where, 0, "", "does not match schema/case.schema.json"));
  for (InputProblem& p : seen) problems.add(std::move(p));
  return false;
}

// A problem at `where` from a message that names its field first, "field
// 'F': what" (validate_case's, without a place): about field F, saying
// what. Another message is kept whole, about no one field.
InputProblem field_problem(const std::string& where, std::string message) {
  constexpr std::string_view k_open = "field '";
  if (message.starts_with(k_open))
    if (std::size_t close = message.find("': ", k_open.size()); close != std::string::npos)
      return input_problem(where, 0, message.substr(k_open.size(), close - k_open.size()), message.substr(close + 3));
  return input_problem(where, 0, "", std::move(message));
}

std::string str_field(const Json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? std::string() : it->get<std::string>();
}

}  // namespace

namespace {

bool is_string_within(const Json& j, std::size_t min_bytes, std::size_t max_bytes) {
  // Byte counts bound the schema's code-point counts from above, so within
  // the byte bounds is within the schema's.
  if (!j.is_string()) return false;
  std::size_t n = j.get_ref<const std::string&>().size();
  return n >= min_bytes && n <= max_bytes;
}

bool is_hex64(const Json& j) { return j.is_string() && is_sha256_hex(j.get_ref<const std::string&>()); }

bool is_int_within(const Json& j, std::int64_t lo, std::int64_t hi) {
  if (!j.is_number_integer()) return false;
  if (j.is_number_unsigned()) {  // nlohmann reads non-negative integers as unsigned
    auto v = j.get<std::uint64_t>();
    return hi >= 0 && v <= static_cast<std::uint64_t>(hi) && static_cast<std::int64_t>(v) >= lo;
  }
  auto v = j.get<std::int64_t>();
  return v >= lo && v <= hi;
}

// ^[a-z0-9]+(-[a-z0-9]+)*$
bool is_kebab(const Json& j) {
  if (!j.is_string()) return false;
  const std::string& s = j.get_ref<const std::string&>();
  if (s.empty() || s.front() == '-' || s.back() == '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && !(c == '-' && s[i - 1] != '-')) return false;
  }
  return true;
}

// ^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$
bool is_case_id(const Json& j) {
  if (!j.is_string()) return false;
  const std::string& s = j.get_ref<const std::string&>();
  if (s.empty() || s.size() > 64 || s[0] == '.') return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
          c == '.'))
      return false;
  return true;
}

// Every member of `j` is one of `allowed`, and every one of `required` is present.
bool has_members(const Json& j, std::initializer_list<std::string_view> allowed, std::size_t required_count,
                 std::initializer_list<std::string_view> required) {
  if (!j.is_object()) return false;
  std::size_t found = 0;
  for (const auto& [k, v] : j.items()) {
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) return false;
    if (std::find(required.begin(), required.end(), k) != required.end()) ++found;
  }
  return found == required_count;
}

}  // namespace

namespace {

// The members a case record may have: those of schema/case.schema.json and a
// bundle's "record", "case_digest" and repair seal. Each key is classified
// once, not compared with every name in turn.
enum class CaseMember : std::uint8_t {
  Record,
  CaseDigest,
  RepairSalt,
  RepairCommitment,
  Format,
  FormatVersion,
  Id,
  Mechanism,
  Variant,
  Title,
  Tier,
  Summary,
  RootCause,
  Failure,
  UnsuccessfulApproach,
  Contract,
  WhyItMatters,
  Scope,
  Params,
  Fixtures,
  EvaluationGroup,
  Recorded,
  Published,
  Unknown
};
constexpr std::size_t k_case_members = static_cast<std::size_t>(CaseMember::Unknown);
constexpr std::array<std::string_view, k_case_members> k_case_member_names = {"record",
                                                                              "case_digest",
                                                                              "repair_salt",
                                                                              "repair_commitment",
                                                                              "format",
                                                                              "format_version",
                                                                              "id",
                                                                              "mechanism",
                                                                              "variant",
                                                                              "title",
                                                                              "tier",
                                                                              "summary",
                                                                              "root_cause",
                                                                              "failure",
                                                                              "unsuccessful_approach",
                                                                              "contract",
                                                                              "why_it_matters",
                                                                              "scope",
                                                                              "params",
                                                                              "fixtures",
                                                                              "evaluation_group",
                                                                              "recorded",
                                                                              "published"};

CaseMember case_member(std::string_view key) {
  for (std::size_t i = 0; i < k_case_members; ++i)
    if (k_case_member_names[i] == key) return static_cast<CaseMember>(i);
  return CaseMember::Unknown;
}

constexpr std::uint32_t member_bit(CaseMember m) { return std::uint32_t{1} << static_cast<unsigned>(m); }

// The members the schema requires.
constexpr std::uint32_t k_required_members = [] {
  std::uint32_t bits = 0;
  for (CaseMember m :
       {CaseMember::Format, CaseMember::FormatVersion, CaseMember::Id, CaseMember::Mechanism, CaseMember::Variant,
        CaseMember::Title, CaseMember::Tier, CaseMember::Summary, CaseMember::RootCause, CaseMember::Failure,
        CaseMember::UnsuccessfulApproach, CaseMember::Contract, CaseMember::WhyItMatters, CaseMember::Scope,
        CaseMember::Params, CaseMember::Fixtures, CaseMember::EvaluationGroup})
    bits |= member_bit(m);
  return bits;
}();

bool is_string_equal(const Json& j, std::string_view s) {
  return j.is_string() && j.get_ref<const std::string&>() == s;
}

}  // namespace

bool surely_matches_case_schema(const Json& j) {
  if (!j.is_object()) return false;
  std::uint32_t seen = 0;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Json& v = it.value();
    CaseMember m = case_member(it.key());
    bool ok = false;
    switch (m) {
      case CaseMember::Unknown:
        return false;
      case CaseMember::Record:
        ok = is_string_equal(v, "case");
        break;
      case CaseMember::CaseDigest:
      case CaseMember::RepairSalt:
      case CaseMember::RepairCommitment:
        ok = is_hex64(v);
        break;
      case CaseMember::Format:
        ok = is_string_equal(v, "failmap-case");
        break;
      case CaseMember::FormatVersion:
        ok = is_int_within(v, 1, 1);
        break;
      case CaseMember::Id:
        ok = is_case_id(v);
        break;
      case CaseMember::Mechanism:
        ok = is_kebab(v);
        break;
      case CaseMember::Variant:
        ok = is_int_within(v, 1, 99);
        break;
      case CaseMember::Title:
        ok = is_string_within(v, 1, 400);
        break;
      case CaseMember::Tier:
        ok = is_string_equal(v, "open") || is_string_equal(v, "member");
        break;
      case CaseMember::Scope:
        ok = is_string_within(v, 0, 8000);
        break;
      case CaseMember::Summary:
      case CaseMember::RootCause:
      case CaseMember::Failure:
      case CaseMember::UnsuccessfulApproach:
      case CaseMember::Contract:
      case CaseMember::WhyItMatters:
        ok = is_string_within(v, 0, 4000);
        break;
      case CaseMember::Params:
        ok = v.is_object() && std::all_of(v.begin(), v.end(), [](const Json& x) { return x.is_number(); });
        break;
      case CaseMember::Fixtures:
        ok = v.is_array() && v.size() <= 64 && std::all_of(v.begin(), v.end(), [](const Json& f) {
               return has_members(f, {"label", "args", "expected"}, 3, {"label", "args", "expected"}) &&
                      is_string_within(f["label"], 1, 200) && f["args"].is_array() && f["args"].size() <= 16;
             });
        break;
      case CaseMember::EvaluationGroup:
        ok = v.is_array() && std::all_of(v.begin(), v.end(), is_kebab);
        for (std::size_t a = 0; ok && a < v.size(); ++a)
          for (std::size_t b = a + 1; ok && b < v.size(); ++b) ok = v[a] != v[b];
        break;
      case CaseMember::Recorded:
        ok = has_members(v, {"runtime", "at"}, 0, {}) &&
             (!v.contains("runtime") || is_string_within(v["runtime"], 0, 200)) &&
             (!v.contains("at") || is_string_within(v["at"], 0, 64));
        break;
      case CaseMember::Published: {
        ok = has_members(v, {"runs", "case_digest"}, 0, {});
        if (ok && v.contains("runs")) {
          const Json& runs = v["runs"];
          ok = runs.is_array() && std::all_of(runs.begin(), runs.end(), [](const Json& r) {
                 if (!has_members(r, {"strategy", "exit_status", "digest"}, 3, {"strategy", "exit_status", "digest"}))
                   return false;
                 const Json& s = r["strategy"];
                 return s.is_string() && parse_strategy(s.get_ref<const std::string&>()).ok() &&
                        is_int_within(r["exit_status"], 0, 255) && is_hex64(r["digest"]);
               });
        }
        if (ok && v.contains("case_digest")) {
          const Json& d = v["case_digest"];
          ok = d.is_string() && (d.get_ref<const std::string&>().empty() || is_hex64(d));
        }
        break;
      }
    }
    if (!ok) return false;
    seen |= member_bit(m);
  }
  return (seen & k_required_members) == k_required_members;
}

bool case_from_json(const Json& j, const std::string& where, Case* out, ProblemSink problems) {
  const std::size_t before = problems.count();
  if (!j.is_object()) {
    problems.add(input_problem(where, 0, "", "expected a JSON object (a case record)"));
    return false;
  }
  if (auto v = j.find("format_version");
      v != j.end() && v->is_number_integer() && v->get<std::int64_t>() > k_case_format_version) {
    problems.add(input_problem(where, 0, "format_version",
                               std::to_string(v->get<std::int64_t>()) + " is newer than this failmap reads (" +
                                   std::to_string(k_case_format_version) + "); upgrade failmap"));
    return false;
  }
  if (!schema_valid(j, where, problems)) return false;

  // The schema holds: every required member is there, each of its type.
  std::array<const Json*, k_case_members> member{};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (CaseMember m = case_member(it.key()); m != CaseMember::Unknown)
      member[static_cast<std::size_t>(m)] = &it.value();
  auto text = [&](CaseMember m) { return member[static_cast<std::size_t>(m)]->get<std::string>(); };
  auto at = [&](CaseMember m) -> const Json& { return *member[static_cast<std::size_t>(m)]; };
  // value_from_json naming field() in its error, which is built only then.
  // value_from_json's errors read "PATH: what": a problem about field PATH.
  auto field_error = [&](const Error& e) {
    const std::string& m = e.message;
    std::size_t colon = m.find(": ");
    problems.add(colon == std::string::npos ? input_problem(where, 0, "", "field '" + m + "'")
                                            : input_problem(where, 0, m.substr(0, colon), m.substr(colon + 2)));
  };
  auto value = [](const Json& v, auto&& field) {
    static const std::string k_unnamed;
    auto r = value_from_json(v, k_unnamed);
    if (r) return r;
    return value_from_json(v, field());
  };
  Case c;
  c.id = text(CaseMember::Id);
  c.mechanism = text(CaseMember::Mechanism);
  c.variant = at(CaseMember::Variant).get<int>();
  c.title = text(CaseMember::Title);
  c.tier = *parse_tier(at(CaseMember::Tier).get_ref<const std::string&>());
  c.prose = CaseProse{text(CaseMember::Summary),  text(CaseMember::RootCause),
                      text(CaseMember::Failure),  text(CaseMember::UnsuccessfulApproach),
                      text(CaseMember::Contract), text(CaseMember::WhyItMatters),
                      text(CaseMember::Scope)};
  const Json& params = at(CaseMember::Params);
  for (auto it = params.begin(); it != params.end(); ++it) {
    auto v = value(it.value(), [&] { return "params." + it.key(); });
    if (!v) field_error(v.error());
    else c.params.emplace_back(it.key(), std::move(*v));
  }
  const Json& fixtures = at(CaseMember::Fixtures);
  c.fixtures.reserve(fixtures.size());
  for (std::size_t i = 0; i < fixtures.size(); ++i) {
    const Json& fj = fixtures[i];
    auto field = [i](const std::string& rest) { return "fixtures[" + std::to_string(i) + "]" + rest; };
    Fixture f;
    f.label = fj["label"].get<std::string>();
    const Json& args = fj["args"];
    f.args.reserve(args.size());
    for (std::size_t a = 0; a < args.size(); ++a) {
      auto v = value(args[a], [&] { return field(".args[" + std::to_string(a) + "]"); });
      if (!v) field_error(v.error());
      else f.args.push_back(std::move(*v));
    }
    auto e = value(fj["expected"], [&] { return field(".expected"); });
    if (!e) field_error(e.error());
    else f.expected = std::move(*e);
    c.fixtures.push_back(std::move(f));
  }
  for (const Json& t : at(CaseMember::EvaluationGroup)) c.evaluation_group.push_back(t.get<std::string>());
  std::sort(c.evaluation_group.begin(), c.evaluation_group.end());
  if (auto r = j.find("recorded"); r != j.end()) {
    c.recorded_runtime = str_field(*r, "runtime");
    c.recorded_at = str_field(*r, "at");
  }
  if (auto p = j.find("published"); p != j.end()) {
    if (auto runs = p->find("runs"); runs != p->end()) {
      for (const Json& rj : *runs) {
        c.published.runs.push_back(PublishedRun{*parse_strategy(rj["strategy"].get<std::string>()),
                                                rj["exit_status"].get<int>(), rj["digest"].get<std::string>()});
      }
    }
    c.published.case_digest = str_field(*p, "case_digest");
  }
  if (problems.count() != before) return false;
  std::vector<std::string> invalid;  // validate_case's messages, without a place
  const bool valid = validate_case(c, "", &invalid);
  for (std::string& message : invalid) problems.add(field_problem(where, std::move(message)));
  if (!valid) return false;
  *out = std::move(c);
  return true;
}

Json case_to_json(const Case& c, bool include_published) {
  Json j = Json::object();
  j["format"] = "failmap-case";
  j["format_version"] = k_case_format_version;
  j["id"] = c.id;
  j["mechanism"] = c.mechanism;
  j["variant"] = c.variant;
  j["title"] = c.title;
  j["tier"] = std::string(tier_name(c.tier));
  j["summary"] = c.prose.summary;
  j["root_cause"] = c.prose.root_cause;
  j["failure"] = c.prose.failure;
  j["unsuccessful_approach"] = c.prose.unsuccessful_approach;
  j["contract"] = c.prose.contract;
  j["why_it_matters"] = c.prose.why_it_matters;
  j["scope"] = c.prose.scope;
  Json params = Json::object();
  for (const auto& [name, value] : c.params) params[name] = value_to_json(value);
  j["params"] = params;
  Json fixtures = Json::array();
  for (const Fixture& f : c.fixtures) {
    Json fj = Json::object();
    fj["label"] = f.label;
    Json args = Json::array();
    for (const Value& a : f.args) args.push_back(value_to_json(a));
    fj["args"] = args;
    fj["expected"] = value_to_json(f.expected);
    fixtures.push_back(fj);
  }
  j["fixtures"] = fixtures;
  j["evaluation_group"] = c.evaluation_group;
  j["recorded"] = Json{{"runtime", c.recorded_runtime}, {"at", c.recorded_at}};
  if (include_published && (!c.published.runs.empty() || !c.published.case_digest.empty())) {
    Json runs = Json::array();
    for (const PublishedRun& r : c.published.runs)
      runs.push_back(Json{
          {"strategy", std::string(strategy_name(r.strategy))}, {"exit_status", r.exit_status}, {"digest", r.digest}});
    j["published"] = Json{{"runs", runs}, {"case_digest", c.published.case_digest}};
  }
  return j;
}

void append_case_members(std::string& out, const Case& c, bool include_published,
                         const std::function<bool(const PublishedRun&)>& keep_published, const char* tier_key) {
  // Member order and spelling of case_to_json; keys are ASCII and need no escape.
  auto str = [&](const char* key, std::string_view value) { append_compact_member(out, key, value); };
  out += "\"format\":\"failmap-case\",\"format_version\":";
  out += std::to_string(k_case_format_version);
  str("id", c.id);
  str("mechanism", c.mechanism);
  out += ",\"variant\":";
  out += std::to_string(c.variant);
  str("title", c.title);
  str(tier_key, tier_name(c.tier));
  str("summary", c.prose.summary);
  str("root_cause", c.prose.root_cause);
  str("failure", c.prose.failure);
  str("unsuccessful_approach", c.prose.unsuccessful_approach);
  str("contract", c.prose.contract);
  str("why_it_matters", c.prose.why_it_matters);
  str("scope", c.prose.scope);
  out += ",\"params\":{";
  for (std::size_t i = 0; i < c.params.size(); ++i) {
    if (i) out += ',';
    append_python_json_string(out, c.params[i].first);
    out += ':';
    append_python_json(out, c.params[i].second, JsonSeparators::Compact);
  }
  out += "},\"fixtures\":[";
  for (std::size_t i = 0; i < c.fixtures.size(); ++i) {
    const Fixture& f = c.fixtures[i];
    out += i ? ",{\"label\":" : "{\"label\":";
    append_python_json_string(out, f.label);
    out += ",\"args\":[";
    for (std::size_t a = 0; a < f.args.size(); ++a) {
      if (a) out += ',';
      append_python_json(out, f.args[a], JsonSeparators::Compact);
    }
    out += "],\"expected\":";
    append_python_json(out, f.expected, JsonSeparators::Compact);
    out += '}';
  }
  out += "],\"evaluation_group\":[";
  for (std::size_t i = 0; i < c.evaluation_group.size(); ++i) {
    if (i) out += ',';
    append_python_json_string(out, c.evaluation_group[i]);
  }
  out += "],\"recorded\":{\"runtime\":";
  append_python_json_string(out, c.recorded_runtime);
  out += ",\"at\":";
  append_python_json_string(out, c.recorded_at);
  out += '}';
  if (!include_published) return;
  std::vector<const PublishedRun*> runs;
  for (const PublishedRun& r : c.published.runs)
    if (!keep_published || keep_published(r)) runs.push_back(&r);
  if (runs.empty() && c.published.case_digest.empty()) return;
  out += ",\"published\":{\"runs\":[";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    out += i ? ",{\"strategy\":\"" : "{\"strategy\":\"";
    out += strategy_name(runs[i]->strategy);
    out += "\",\"exit_status\":";
    out += std::to_string(runs[i]->exit_status);
    out += ",\"digest\":";
    append_python_json_string(out, runs[i]->digest);
    out += '}';
  }
  out += "],\"case_digest\":";
  append_python_json_string(out, c.published.case_digest);
  out += '}';
}

namespace {

// A case file's published exit statuses against the computed runs (see
// read_case_file), its problems at file `where`; true when there were none.
bool check_published_exit_statuses(const Case& c, const std::string& where, ProblemSink& problems) {
  const std::size_t before = problems.count();
  auto error = [&](std::size_t i, const std::string& rest, std::string message) {
    problems.add(input_problem(where, 0, "published.runs[" + std::to_string(i) + "]" + rest, std::move(message)));
  };
  // A published exit status is the page's `Exit N`: page import compares it
  // with the computed run, and page export prints the computed one, so a
  // case file's must agree too (another would be dropped unseen).
  for (std::size_t i = 0; i < c.published.runs.size(); ++i) {
    const PublishedRun& p = c.published.runs[i];
    for (std::size_t k = 0; k < i; ++k)
      if (c.published.runs[k].strategy == p.strategy)
        error(i, ".strategy",
              "'" + std::string(strategy_name(p.strategy)) + "' is also published.runs[" + std::to_string(k) + "]");
    auto run = run_strategy(c, p.strategy);
    if (!run) {
      error(i, "", run.error().message);
      continue;
    }
    if (run->exit_status() != p.exit_status)
      error(i, ".exit_status",
            std::to_string(p.exit_status) + ", but the " + std::string(strategy_name(p.strategy)) + " strategy exits " +
                std::to_string(run->exit_status()) +
                " on these fixtures (a published exit status is the page's Exit line, as computed)");
  }
  return problems.count() == before;
}

}  // namespace

bool read_case_file(const std::filesystem::path& path, Case* out, ProblemSink problems) {
  // The reader's and the parser's messages name the path (and the line and column) themselves.
  auto text = read_file(path);
  if (!text) {
    problems.add(input_problem("", 0, "", text.error().message));
    return false;
  }
  auto j = parse_json_file(*text, path.string());
  if (!j) {
    problems.add(input_problem("", 0, "", j.error().message));
    return false;
  }
  if (!case_from_json(*j, path.string(), out, problems)) return false;
  return check_published_exit_statuses(*out, path.string(), problems);
}

}  // namespace failmap
