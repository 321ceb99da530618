#include "io/case_file.h"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/embedded.h"
#include "io/sha256.h"
#include "io/pyjson.h"

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

// valijson context entries look like "<root>", "[fixtures]", "[0]": join them
// into the field path users see ("fixtures[0].label").
std::string field_path(const std::vector<std::string>& context) {
  std::string out;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    std::string inner = part.size() >= 2 && part.front() == '[' && part.back() == ']' ? part.substr(1, part.size() - 2) : part;
    bool index = !inner.empty() && std::all_of(inner.begin(), inner.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (index) out += "[" + inner + "]";
    else out += (out.empty() ? "" : ".") + inner;
  }
  return out.empty() ? "(top level)" : out;
}

// valijson's descriptions, made to say what was expected: a "pattern" failure
// names the rule of schema/case.schema.json in words, and bounds lose
// valijson's "%f" digits ("1.000000" -> "1"; the schema's bounds are integers).
std::string readable_schema_error(const std::string& path, std::string text) {
  if (text.rfind("Failed to match regex specified by 'pattern' constraint", 0) == 0) {
    auto ends_with = [&](std::string_view tail) {
      return path.size() >= tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (path == "id")
      return "expected 1 to 64 characters of A-Z a-z 0-9 . _ -, not starting with '.' (a case id becomes a file "
             "name on export: no '/', '..' or NUL)";
    if (path == "mechanism" || path.rfind("evaluation_group", 0) == 0)
      return "expected lower-case words of a-z 0-9 joined by single '-', e.g. gradient-accumulation-weighting";
    if (ends_with("digest") || ends_with("salt") || ends_with("commitment"))
      return "expected 64 lower-case hexadecimal digits (a SHA-256 value)";
    return text;
  }
  for (std::size_t at; (at = text.find(".000000")) != std::string::npos;) text.erase(at, 7);
  return text;
}

bool schema_valid(const Json& j, const std::string& where, std::vector<std::string>* errors) {
  if (surely_matches_case_schema(j)) return true;  // valijson below names every problem
  nlohmann::json plain = nlohmann::json::parse(j.dump());
  // One validator per thread: it caches the std::regex of every "pattern"
  // constraint, which a fresh validator would compile again on every call.
  thread_local valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(plain);
  if (validator.validate(case_schema(), adapter, &results)) return true;
  std::vector<std::string> seen;
  valijson::ValidationResults::Error e;
  while (results.popError(e)) {
    if (e.description.rfind("Failed to validate against", 0) == 0) continue;  // wrapper of a leaf error
    std::string path = field_path(e.context);
    std::string msg = where + "field '" + path + "': " + readable_schema_error(path, e.description);
    if (std::find(seen.begin(), seen.end(), msg) == seen.end()) seen.push_back(msg);
  }
  if (seen.empty()) seen.push_back(where + "does not match schema/case.schema.json");
  errors->insert(errors->end(), seen.begin(), seen.end());
  return false;
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
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
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

bool surely_matches_case_schema(const Json& j) {
  const std::initializer_list<std::string_view> k_required = {
      "format", "format_version", "id", "mechanism", "variant", "title", "tier", "summary", "root_cause",
      "failure", "unsuccessful_approach", "contract", "why_it_matters", "scope", "params", "fixtures",
      "evaluation_group"};
  if (!has_members(j,
                   {"record", "case_digest", "repair_salt", "repair_commitment", "format", "format_version", "id",
                    "mechanism", "variant", "title", "tier", "summary", "root_cause", "failure",
                    "unsuccessful_approach", "contract", "why_it_matters", "scope", "params", "fixtures",
                    "evaluation_group", "recorded", "published"},
                   k_required.size(), k_required))
    return false;
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    if (k == "record") ok = v.is_string() && v.get_ref<const std::string&>() == "case";
    else if (k == "case_digest" || k == "repair_salt" || k == "repair_commitment") ok = is_hex64(v);
    else if (k == "format") ok = v.is_string() && v.get_ref<const std::string&>() == "failmap-case";
    else if (k == "format_version") ok = is_int_within(v, 1, 1);
    else if (k == "id") ok = is_case_id(v);
    else if (k == "mechanism") ok = is_kebab(v);
    else if (k == "variant") ok = is_int_within(v, 1, 99);
    else if (k == "title") ok = is_string_within(v, 1, 400);
    else if (k == "tier") ok = v.is_string() && (v.get_ref<const std::string&>() == "open" || v.get_ref<const std::string&>() == "member");
    else if (k == "scope") ok = is_string_within(v, 0, 8000);
    else if (k == "summary" || k == "root_cause" || k == "failure" || k == "unsuccessful_approach" || k == "contract" ||
             k == "why_it_matters")
      ok = is_string_within(v, 0, 4000);
    else if (k == "params") ok = v.is_object() && std::all_of(v.begin(), v.end(), [](const Json& x) { return x.is_number(); });
    else if (k == "fixtures") {
      ok = v.is_array() && v.size() <= 64 && std::all_of(v.begin(), v.end(), [](const Json& f) {
             return has_members(f, {"label", "args", "expected"}, 3, {"label", "args", "expected"}) &&
                    is_string_within(f["label"], 1, 200) && f["args"].is_array() && f["args"].size() <= 16;
           });
    } else if (k == "evaluation_group") {
      ok = v.is_array() && std::all_of(v.begin(), v.end(), is_kebab);
      for (std::size_t a = 0; ok && a < v.size(); ++a)
        for (std::size_t b = a + 1; ok && b < v.size(); ++b) ok = v[a] != v[b];
    } else if (k == "recorded") {
      ok = has_members(v, {"runtime", "at"}, 0, {}) && (!v.contains("runtime") || is_string_within(v["runtime"], 0, 200)) &&
           (!v.contains("at") || is_string_within(v["at"], 0, 64));
    } else if (k == "published") {
      ok = has_members(v, {"runs", "case_digest"}, 0, {});
      if (ok && v.contains("runs")) {
        const Json& runs = v["runs"];
        ok = runs.is_array() && std::all_of(runs.begin(), runs.end(), [](const Json& r) {
               if (!has_members(r, {"strategy", "exit_status", "digest"}, 3, {"strategy", "exit_status", "digest"})) return false;
               const Json& s = r["strategy"];
               return s.is_string() && parse_strategy(s.get_ref<const std::string&>()).ok() && is_int_within(r["exit_status"], 0, 255) &&
                      is_hex64(r["digest"]);
             });
      }
      if (ok && v.contains("case_digest")) {
        const Json& d = v["case_digest"];
        ok = d.is_string() && (d.get_ref<const std::string&>().empty() || is_hex64(d));
      }
    }
    if (!ok) return false;
  }
  return true;
}

bool case_from_json(const Json& j, const std::string& where_in, Case* out, std::vector<std::string>* errors) {
  std::string where = where_in.empty() ? "" : where_in + ": ";
  std::size_t before = errors->size();
  if (!j.is_object()) {
    errors->push_back(where + "expected a JSON object (a case record)");
    return false;
  }
  if (auto v = j.find("format_version"); v != j.end() && v->is_number_integer() && v->get<std::int64_t>() > k_case_format_version) {
    errors->push_back(where + "field 'format_version': " + std::to_string(v->get<std::int64_t>()) +
                      " is newer than this failmap reads (" + std::to_string(k_case_format_version) + "); upgrade failmap");
    return false;
  }
  if (!schema_valid(j, where, errors)) return false;

  Case c;
  c.id = j["id"].get<std::string>();
  c.mechanism = j["mechanism"].get<std::string>();
  c.variant = j["variant"].get<int>();
  c.title = j["title"].get<std::string>();
  c.tier = *parse_tier(j["tier"].get<std::string>());
  c.prose = CaseProse{str_field(j, "summary"),  str_field(j, "root_cause"),    str_field(j, "failure"),
                      str_field(j, "unsuccessful_approach"), str_field(j, "contract"), str_field(j, "why_it_matters"),
                      str_field(j, "scope")};
  for (const auto& [name, value] : j["params"].items()) {
    auto v = value_from_json(value, "params." + name);
    if (!v) errors->push_back(where + "field '" + v.error().message);
    else c.params.emplace_back(name, std::move(*v));
  }
  std::size_t i = 0;
  for (const Json& fj : j["fixtures"]) {
    Fixture f;
    std::string at = "fixtures[" + std::to_string(i++) + "]";
    f.label = fj["label"].get<std::string>();
    std::size_t a = 0;
    for (const Json& arg : fj["args"]) {
      auto v = value_from_json(arg, at + ".args[" + std::to_string(a++) + "]");
      if (!v) errors->push_back(where + "field '" + v.error().message);
      else f.args.push_back(std::move(*v));
    }
    auto e = value_from_json(fj["expected"], at + ".expected");
    if (!e) errors->push_back(where + "field '" + e.error().message);
    else f.expected = std::move(*e);
    c.fixtures.push_back(std::move(f));
  }
  for (const Json& t : j["evaluation_group"]) c.evaluation_group.push_back(t.get<std::string>());
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
  if (errors->size() != before) return false;
  if (!validate_case(c, where, errors)) return false;
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
      runs.push_back(Json{{"strategy", std::string(strategy_name(r.strategy))}, {"exit_status", r.exit_status}, {"digest", r.digest}});
    j["published"] = Json{{"runs", runs}, {"case_digest", c.published.case_digest}};
  }
  return j;
}

void append_case_members(std::string& out, const Case& c, bool include_published,
                         const std::function<bool(const PublishedRun&)>& keep_published) {
  // Member order and spelling of case_to_json; keys are ASCII and need no escape.
  auto str = [&](const char* key, std::string_view value) { append_compact_member(out, key, value); };
  out += "\"format\":\"failmap-case\",\"format_version\":";
  out += std::to_string(k_case_format_version);
  str("id", c.id);
  str("mechanism", c.mechanism);
  out += ",\"variant\":";
  out += std::to_string(c.variant);
  str("title", c.title);
  str("tier", tier_name(c.tier));
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

Result<std::string> read_file(const std::filesystem::path& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return input_error(path.string() + ": cannot open: " + std::strerror(errno));
  auto too_large = [&] {
    return input_error(path.string() + ": larger than the " + byte_cap_text(max_bytes) +
                       " limit for a file read whole (src/io/limits.h)");
  };
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);  // fails for pipes: the loop below still caps
  if (!ec && size > max_bytes) return too_large();
  std::string text;
  if (!ec) text.reserve(static_cast<std::size_t>(size));
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    auto got = static_cast<std::size_t>(in.gcount());
    if (got > max_bytes - text.size()) return too_large();
    text.append(buf, got);
  }
  if (in.bad()) return input_error(path.string() + ": read error");
  return text;
}

bool read_case_file(const std::filesystem::path& path, Case* out, std::vector<std::string>* errors) {
  auto text = read_file(path);
  if (!text) {
    errors->push_back(text.error().message);
    return false;
  }
  auto j = parse_json_strict(*text, path.string());
  if (!j) {
    errors->push_back(j.error().message);
    return false;
  }
  return case_from_json(*j, path.string(), out, errors);
}

}  // namespace failmap
