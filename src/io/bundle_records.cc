#include "io/bundle.h"

#include <algorithm>
#include <array>

#include "core/evaluate.h"
#include "encoding/input_problem.h"
#include "encoding/pyjson.h"
#include "io/case_file.h"
#include "io/observation.h"

namespace failmap {

bool tier_shows(Tier tier, StrategyKind kind) { return tier == Tier::Member || kind != StrategyKind::Repaired; }

Json mechanism_record(const Mechanism& m, Tier tier) {
  Json j = Json::object();
  j["record"] = "mechanism";
  j["id"] = std::string(m.id);
  j["title"] = std::string(m.title);
  j["source"] = std::string(m.source);
  Json tags = Json::array();
  for (auto t : m.evaluation_group) tags.push_back(std::string(t));
  j["evaluation_group"] = tags;
  Json params = Json::array();
  Json binding = Json::object();
  for (std::size_t i = 0; i < m.parameters.size(); ++i) {
    params.push_back(std::string(m.parameters[i]));
    binding[std::string(m.parameters[i])] = i < m.default_binding.size() ? std::string(m.default_binding[i]) : "";
  }
  j["parameters"] = params;
  j["default_binding"] = binding;
  j["prose"] = Json{{"case_title", m.prose.case_title},
                    {"summary", m.prose.summary},
                    {"root_cause", m.prose.root_cause},
                    {"failure", m.prose.failure},
                    {"unsuccessful_approach", m.prose.unsuccessful_approach},
                    {"contract", m.prose.contract},
                    {"why_it_matters", m.prose.why_it_matters},
                    {"scope", m.prose.scope}};
  Json fixtures = Json::array();
  for (const FixtureTemplate& t : m.fixtures)
    fixtures.push_back(Json{{"label", t.label}, {"args", t.args}, {"expected", t.expected}});
  j["fixtures"] = fixtures;
  Json sources = Json::object();
  for (StrategyKind k : k_all_strategies)
    if (tier_shows(tier, k)) sources[std::string(strategy_name(k))] = std::string(m.strategy(k).python);
  j["strategies"] = sources;
  return j;
}

Json case_record(const Case& c, Tier tier) {
  Case shown = c;
  std::erase_if(shown.published.runs, [tier](const PublishedRun& r) { return !tier_shows(tier, r.strategy); });
  Json body = case_to_json(shown);
  Json j = Json::object();
  j["record"] = "case";
  for (auto& [k, v] : body.items()) j[k] = std::move(v);
  return j;
}

Json run_record(const RunRecord& r) {
  Json j = Json::object();
  j["record"] = "run";
  j["case"] = r.case_id;
  j["strategy"] = std::string(strategy_name(r.strategy));
  j["exit_status"] = r.exit_status;
  j["digest"] = r.digest;
  j["observation"] = r.observation;
  j["failmap_version"] = r.failmap_version;
  j["recorded_at"] = r.recorded_at;
  return j;
}

namespace {

// `j` with the member `from` named `to`, every member in its place.
Json renamed_member(Json j, std::string_view from, const char* to) {
  Json out = Json::object();
  for (auto it = j.begin(); it != j.end(); ++it)
    out[it.key() == from ? std::string(to) : it.key()] = std::move(it.value());
  return out;
}

}  // namespace

Json bundle_case_record(const Case& c, Tier tier) {
  return renamed_member(case_record(c, tier), "tier", k_case_tier_member);
}

void append_case_record_open(std::string& out, const Case& c, Tier tier) {
  out += "{\"record\":\"case\",";
  append_case_members(
      out, c, true, [tier](const PublishedRun& r) { return tier_shows(tier, r.strategy); }, k_case_tier_member);
}

bool case_record_to_case_json(Json& j, int version, const std::string& where, ProblemSink problems) {
  if (!j.is_object()) return true;  // case_from_json names it
  if (version < 3) {
    if (!j.contains(k_case_tier_member)) return true;
    problems.add(input_problem(where, 0, k_case_tier_member,
                               "not in a bundle of format_version " + std::to_string(version) +
                                   ", whose case records name the case's access tier 'tier'"));
    return false;
  }
  if (j.contains("tier")) {
    problems.add(input_problem(where, 0, "tier",
                               "a case record of bundle format_version " + std::to_string(version) +
                                   " names the case's access tier '" + k_case_tier_member + "'"));
    return false;
  }
  if (j.contains(k_case_tier_member)) j = renamed_member(std::move(j), k_case_tier_member, "tier");
  return true;  // without either, case_from_json names the missing "tier"
}

void append_run_record(std::string& out, const RunRecord& r) {
  auto str = [&](const char* key, std::string_view value) { append_compact_member(out, key, value); };
  out += "{\"record\":\"run\"";
  str("case", r.case_id);
  str("strategy", strategy_name(r.strategy));
  out += ",\"exit_status\":";
  out += std::to_string(r.exit_status);
  str("digest", r.digest);
  str("observation", r.observation);
  str("failmap_version", r.failmap_version);
  str("recorded_at", r.recorded_at);
  out += '}';
}

namespace {

// What an observation document's checks say, for a run whose exit status
// contradicts its "passed": "false: 2 of 7 checks failed"; just the value of
// "passed" when its "observations" are not an array of objects.
std::string observation_outcome(const Json& doc, bool passed) {
  std::string out = passed ? "true" : "false";
  auto obs = doc.find("observations");
  if (obs == doc.end() || !obs->is_array()) return out;
  std::size_t failed = 0;
  for (const Json& o : *obs) {
    auto p = o.is_object() ? o.find("passed") : o.end();
    if (p == o.end() || !p->is_boolean()) return out;
    failed += p->get<bool>() ? 0 : 1;
  }
  return out + ": " + std::to_string(failed) + " of " + std::to_string(obs->size()) + " checks failed";
}

}  // namespace

bool run_from_record(const Json& j, const std::string& file, std::uint64_t line, RunRecord* out, ProblemSink problems,
                     RunDigestCheck check) {
  std::size_t before = problems.count();
  auto error = [&](std::string field, std::string message, std::string expected = {}, std::string found = {}) {
    InputProblem p = input_problem(file, line, std::move(field), std::move(message));
    p.expected = std::move(expected);
    p.found = std::move(found);
    problems.add(std::move(p));
  };
  if (!j.is_object()) {
    error("", "expected a JSON object (a run record)");
    return false;
  }
  static const std::array<const char*, 8> k_keys = {"record", "case",        "strategy",        "exit_status",
                                                    "digest", "observation", "failmap_version", "recorded_at"};
  for (const auto& [k, v] : j.items()) {
    if (std::find_if(k_keys.begin(), k_keys.end(), [&key = k](const char* x) { return key == x; }) == k_keys.end())
      error(k, "not a run record field");
  }
  auto text = [&](const char* key) -> std::string {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) {
      error(key,
            "expected a string, got " + (it == j.end() ? std::string("nothing (missing)") : describe_json_value(*it)));
      return {};
    }
    return it->get<std::string>();
  };
  RunRecord r;
  r.case_id = text("case");
  std::string strategy = text("strategy");
  r.digest = text("digest");
  r.observation = text("observation");
  r.failmap_version = text("failmap_version");
  r.recorded_at = text("recorded_at");
  if (problems.count() != before) return false;
  if (!valid_case_id(r.case_id)) error("case", "'" + r.case_id + "' is not a valid case id");
  auto s = parse_strategy(strategy);
  if (!s) error("strategy", s.error().message);
  else r.strategy = *s;
  auto ex = j.find("exit_status");
  const bool exit_ok =
      ex != j.end() && ex->is_number_integer() && (ex->get<std::int64_t>() == 0 || ex->get<std::int64_t>() == 1);
  if (!exit_ok) {
    std::string found = ex == j.end() ? "nothing" : ex->dump();
    if (found.size() > 40) found = found.substr(0, 37) + "...";
    error("exit_status", "expected 0 or 1, got " + found);
  } else {
    r.exit_status = ex->get<int>();
  }
  if (check == RunDigestCheck::Check && sha256_hex(r.observation) != r.digest)
    error("digest", "is not the SHA-256 of the observation document");
  JsonParseError syntax;
  auto doc = parse_json_strict(r.observation, "", &syntax);
  if (!doc) {
    error("observation",
          "not JSON" +
              (syntax.line ? " (line " + std::to_string(syntax.line) + ", column " + std::to_string(syntax.column) + ")"
                           : std::string()) +
              ": " + syntax.what);
  } else {
    auto passed = doc->find("passed");
    if (!doc->is_object() || passed == doc->end() || !passed->is_boolean())
      error("observation", "not an observation document (no boolean \"passed\")");
    else if (exit_ok && passed->get<bool>() != (r.exit_status == 0))  // (an invalid one is named above)
      error("exit_status",
            "disagrees with the observation's \"passed\" (" + observation_outcome(*doc, passed->get<bool>()) + ")",
            passed->get<bool>() ? "0" : "1", std::to_string(r.exit_status));
  }
  if (problems.count() != before) return false;
  *out = std::move(r);
  return true;
}

namespace {

// `text` from a little before byte `at` to a little after it, cut at UTF-8
// character starts and quoted as a JSON string (so a newline or a control
// character shows as an escape, and an error line stays valid UTF-8).
std::string excerpt_at(std::string_view text, std::size_t at) {
  auto char_start = [&](std::size_t i) {
    while (i > 0 && i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
    return i;
  };
  std::size_t from = char_start(at > 24 ? at - 24 : 0);
  std::size_t to = std::min(text.size(), at + 24);
  if (to < text.size()) to = char_start(to);
  std::string cut(text.substr(from, to - from));
  return (from > 0 ? "..." : "") + dump_compact(Json(cut)) + (to < text.size() ? "..." : "");
}

struct Difference {
  std::string field, replayed, given;
};

// The differences between a record's observation document and the replayed
// one, field by field (values compared as their JSON text, which tells 3
// from 3.0 and 0 from -0.0); one `observation` difference when the values
// agree but the bytes do not.
std::vector<Difference> observation_differences(const std::string& given, const std::string& replayed) {
  std::vector<Difference> out;
  auto g = parse_json_strict(given, "");
  auto r = parse_json_strict(replayed, "");
  auto text = [](const Json* j) { return j ? dump_compact(*j) : std::string("nothing"); };
  auto member = [](const Json& j, const char* key) -> const Json* {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  };
  if (g && r) {
    const Json* go = member(*g, "observations");
    const Json* ro = member(*r, "observations");
    if (!go || !go->is_array() || go->size() != ro->size()) {
      out.push_back({"observation.observations", text(ro), text(go)});
    } else {
      for (std::size_t i = 0; i < ro->size(); ++i)
        for (const char* key : {"check", "actual", "expected", "passed"}) {
          const Json* gv = member((*go)[i], key);
          const Json* rv = member((*ro)[i], key);
          if (!gv || text(gv) != text(rv))
            out.push_back({"observation.observations[" + std::to_string(i) + "]." + key, text(rv), text(gv)});
        }
    }
    const Json* gp = member(*g, "passed");
    const Json* rp = member(*r, "passed");
    if (!gp || text(gp) != text(rp)) out.push_back({"observation.passed", text(rp), text(gp)});
  }
  if (out.empty()) {
    std::size_t at = 0;
    while (at < given.size() && at < replayed.size() && given[at] == replayed[at]) ++at;
    out.push_back({"observation", excerpt_at(replayed, at),
                   excerpt_at(given, at) + " (first difference at byte " + std::to_string(at + 1) + ")"});
  }
  return out;
}

}  // namespace

std::optional<InputProblem> replay_run_record(const Case& c, const RunRecord& r, const std::string& file,
                                              std::uint64_t line) {
  auto outcome = run_strategy(c, r.strategy);
  if (!outcome) return input_problem(file, line, "", outcome.error().message);
  std::string replayed = observation_document(c, *outcome);
  std::vector<Difference> diffs;
  if (replayed != r.observation) diffs = observation_differences(r.observation, replayed);
  if (r.exit_status != outcome->exit_status())
    diffs.push_back({"exit_status", std::to_string(outcome->exit_status()), std::to_string(r.exit_status)});
  if (diffs.empty()) return std::nullopt;
  std::string message = "case " + c.id + ", " + std::string(strategy_name(r.strategy)) +
                        " run: not the run the compiled strategy gives over the case's fixtures";
  constexpr std::size_t k_listed = 4;
  std::string also;
  for (std::size_t i = 1; i < diffs.size() && i < k_listed; ++i)
    also +=
        (also.empty() ? "" : "; ") + diffs[i].field + ": expected " + diffs[i].replayed + ", found " + diffs[i].given;
  if (diffs.size() > k_listed) also += "; and " + std::to_string(diffs.size() - k_listed) + " more";
  if (!also.empty()) message += " (also " + also + ")";
  InputProblem p{
      InputProblem::Kind::Mismatch, file, line, diffs[0].field, std::move(message), diffs[0].replayed, diffs[0].given};
  return p;
}

bool check_mechanism_record(const Json& j, Tier tier, const std::string& file, std::uint64_t line,
                            ProblemSink problems) {
  auto error = [&](std::string field, std::string message) {
    problems.add(InputProblem{InputProblem::Kind::Mismatch, file, line, std::move(field), std::move(message), {}, {}});
  };
  auto id = j.find("id");
  if (!j.is_object() || id == j.end() || !id->is_string()) {
    error("id", "expected the mechanism id as a string");
    return false;
  }
  const Mechanism* m = find_mechanism(id->get<std::string>());
  if (!m) {
    error("id", "mechanism '" + id->get<std::string>() + "' is not compiled into this failmap");
    return false;
  }
  Json want = mechanism_record(*m, tier);
  if (j == want) return true;
  std::size_t before = problems.count();
  for (const auto& [k, v] : want.items()) {
    auto got = j.find(k);
    if (got == j.end()) error(k, "missing");
    else if (*got != v) error(k, "differs from the compiled mechanism " + std::string(m->id));
  }
  for (const auto& [k, v] : j.items())
    if (!want.contains(k)) error(k, "not a mechanism record field");
  if (problems.count() == before) error("", "differs from the compiled mechanism " + std::string(m->id));
  return false;
}

}  // namespace failmap
