#include "io/bundle.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <set>

#include "core/evaluate.h"
#include "encoding/file.h"
#include "encoding/input_problem.h"
#include "encoding/jsonl.h"
#include "encoding/limits.h"
#include "encoding/pyjson.h"
#include "encoding/signature.h"
#include "encoding/text.h"
#include "io/case_file.h"
#include "io/observation.h"
#include "io/split_folder.h"

namespace fs = std::filesystem;

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

bool case_record_to_case_json(Json& j, int version, const std::string& where, std::vector<std::string>* errors) {
  if (!j.is_object()) return true;  // case_from_json names it
  const std::string at = where.empty() ? "" : where + ": ";
  if (version < 3) {
    if (!j.contains(k_case_tier_member)) return true;
    errors->push_back(at + "field '" + k_case_tier_member + "': not in a bundle of format_version " +
                      std::to_string(version) + ", whose case records name the case's access tier 'tier'");
    return false;
  }
  if (j.contains("tier")) {
    errors->push_back(at + "field 'tier': a case record of bundle format_version " + std::to_string(version) +
                      " names the case's access tier '" + k_case_tier_member + "'");
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

bool run_from_record(const Json& j, const std::string& where, RunRecord* out, std::vector<std::string>* errors,
                     RunDigestCheck check) {
  std::vector<InputProblem> problems;
  bool ok = run_from_record(j, where, 0, out, &problems, check);
  append_described(problems, errors);
  return ok;
}

bool run_from_record(const Json& j, const std::string& file, std::uint64_t line, RunRecord* out,
                     std::vector<InputProblem>* problems, RunDigestCheck check) {
  std::size_t before = problems->size();
  auto error = [&](std::string field, std::string message, std::string expected = {}, std::string found = {}) {
    InputProblem p = input_problem(file, line, std::move(field), std::move(message));
    p.expected = std::move(expected);
    p.found = std::move(found);
    problems->push_back(std::move(p));
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
  if (problems->size() != before) return false;
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
  if (problems->size() != before) return false;
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

bool check_mechanism_record(const Json& j, Tier tier, const std::string& where, std::vector<std::string>* errors) {
  std::vector<InputProblem> problems;
  bool ok = check_mechanism_record(j, tier, where, 0, &problems);
  append_described(problems, errors);
  return ok;
}

bool check_mechanism_record(const Json& j, Tier tier, const std::string& file, std::uint64_t line,
                            std::vector<InputProblem>* problems) {
  auto error = [&](std::string field, std::string message) {
    problems->push_back(
        InputProblem{InputProblem::Kind::Mismatch, file, line, std::move(field), std::move(message), {}, {}});
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
  std::size_t before = problems->size();
  for (const auto& [k, v] : want.items()) {
    auto got = j.find(k);
    if (got == j.end()) error(k, "missing");
    else if (*got != v) error(k, "differs from the compiled mechanism " + std::string(m->id));
  }
  for (const auto& [k, v] : j.items())
    if (!want.contains(k)) error(k, "not a mechanism record field");
  if (problems->size() == before) error("", "differs from the compiled mechanism " + std::string(m->id));
  return false;
}

// ---------------------------------------------------------------------------
// Writing

BundleWriter::BundleWriter(fs::path dir, Tier tier, std::string format)
    : m_dir(std::move(dir)), m_tier(tier), m_format(std::move(format)) {}

BundleWriter::~BundleWriter() = default;

Result<std::unique_ptr<BundleWriter>> BundleWriter::create(const fs::path& dir, Tier tier, std::string format) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) return input_error(dir.string() + ": exists and is not a folder");
    if (!fs::is_empty(dir, ec))
      return input_error(dir.string() + ": folder is not empty (export writes into a new or empty folder)");
  } else if (!fs::create_directories(dir, ec) || ec) {
    return input_error(dir.string() + ": cannot create folder: " + ec.message());
  }
  return std::unique_ptr<BundleWriter>(new BundleWriter(dir, tier, std::move(format)));
}

Result<BundleWriter::File*> BundleWriter::open(const std::string& file) {
  auto it = m_files.find(file);
  if (it != m_files.end()) return it->second.get();
  if (file.empty() || file.find('/') != std::string::npos || file == k_manifest_file || file == k_sums_file ||
      file == k_signature_file || file[0] == '.')
    return input_error("bundle file name '" + file + "' is not allowed");
  auto f = std::make_unique<File>();
  f->out.open(m_dir / file, std::ios::binary | std::ios::trunc);
  if (!f->out) return input_error((m_dir / file).string() + ": cannot write: " + std::strerror(errno));
  File* raw = f.get();
  m_files.emplace(file, std::move(f));
  return raw;
}

Status BundleWriter::write_record(const std::string& file, const Json& record) {
  m_line = dump_compact(record);
  m_line.push_back('\n');
  auto kind = record.find("record");
  return write_line(file, m_line,
                    kind != record.end() && kind->is_string() ? kind->get_ref<const std::string&>() : "other");
}

Status BundleWriter::write_line(const std::string& file, std::string_view line, std::string_view kind) {
  FAILMAP_TRY_ASSIGN(auto f, open(file));
  // Lines gather in a 1 MiB buffer, hashed and written as one block: a
  // write(2) per 2 KB line cost more than rendering it.
  File& out = *f;
  out.pending.append(line);
  ++out.lines;
  if (out.pending.size() >= k_write_block) flush(out);
  auto count = m_counts.find(kind);
  if (count == m_counts.end()) count = m_counts.emplace(std::string(kind), 0).first;
  ++count->second;
  if (!out.out) return input_error((m_dir / file).string() + ": write error");
  return ok_status();
}

void BundleWriter::flush(File& f) {
  f.hash.update(f.pending);
  f.out.write(f.pending.data(), static_cast<std::streamsize>(f.pending.size()));
  f.pending.clear();
}

Status BundleWriter::write_file(const std::string& file, std::string_view content, const std::string& count_as) {
  // Whole files are written and hashed at once; only their digest is kept, so
  // a million pages cost a million map entries, not a million open streams.
  if (m_files.count(file) || m_written.count(file)) return input_error("bundle file '" + file + "' written twice");
  if (file.empty() || file.find('/') != std::string::npos || file == k_manifest_file || file == k_sums_file ||
      file[0] == '.')
    return input_error("bundle file name '" + file + "' is not allowed");
  std::ofstream out(m_dir / file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) return input_error((m_dir / file).string() + ": cannot write: " + std::strerror(errno));
  m_written.emplace(file, sha256_hex(content));
  ++m_counts[count_as];
  return ok_status();
}

Status BundleWriter::finish(const std::vector<std::string>& ensure) {
  for (const std::string& name : ensure) FAILMAP_TRY(open(name));
  // Every file's digest in one map, in byte order of name: the page digests
  // move out of m_written, so the manifest text and SHA256SUMS are written
  // from this single copy (about 0.3 KiB per page at the peak, not ~2 KiB
  // through JSON trees).
  std::map<std::string, std::string> hashes = std::move(m_written);
  m_written.clear();
  for (auto& [name, f] : m_files) {
    flush(*f);
    if (f->out.is_open()) f->out.close();
    if (!f->out) return input_error((m_dir / name).string() + ": write error");
    hashes[name] = f->hash.hex();
  }
  ManifestHeader header{m_format, k_bundle_format_version, m_tier, {}};
  for (const auto& [k, n] : m_counts) header.counts[k] = n;
  std::string text = manifest_text(header, hashes);
  return seal_folder(m_dir, text, std::move(hashes), m_sign_key);
}

const FolderKind* find_folder_kind(std::string_view format) {
  static const FolderKind kinds[] = {
      {"failmap-bundle", "bundle", k_bundle_format_version, true},
      {"failmap-pages", "page export", k_bundle_format_version, true},
      {"failmap-tasks", "task export", k_bundle_format_version, true},
      {"failmap-site", "site", k_bundle_format_version, true},
      {"failmap-split", "split folder", k_split_format_version, false},
      {"failmap-grading", "grading", k_grading_manifest_version, false},
  };
  for (const FolderKind& k : kinds)
    if (k.format == format) return &k;
  return nullptr;
}

std::string manifest_text(const ManifestHeader& header, const std::map<std::string, std::string>& hashes) {
  Json counts = Json::object();
  for (const auto& [k, n] : header.counts) counts[k] = n;
  // One compact JSON object (schema/BUNDLE.md), its members in this order;
  // names are written by the same dump_compact as the values.
  std::string text = "{\"format\":" + dump_compact(Json(header.format)) +
                     ",\"format_version\":" + std::to_string(header.format_version) +
                     ",\"failmap_version\":" + dump_compact(Json(FAILMAP_VERSION));
  if (header.tier)
    text +=
        ",\"" + std::string(k_export_tier_member) + "\":" + dump_compact(Json(std::string(tier_name(*header.tier))));
  text += ",\"counts\":" + dump_compact(counts) + ",\"files\":[";
  bool first = true;
  for (const auto& [name, hex] : hashes) {
    if (!first) text += ',';
    first = false;
    text += dump_compact(Json(name));
  }
  text += "],\"sha256\":{";
  first = true;
  for (const auto& [name, hex] : hashes) {
    if (!first) text += ',';
    first = false;
    text += dump_compact(Json(name));
    text += ":\"";
    text += hex;
    text += '"';
  }
  text += "}}\n";
  return text;
}

Status seal_folder(const fs::path& dir, std::string_view manifest, std::map<std::string, std::string> hashes,
                   const std::optional<fs::path>& sign_key) {
  {
    std::ofstream out(dir / k_manifest_file, std::ios::binary | std::ios::trunc);
    out.write(manifest.data(), static_cast<std::streamsize>(manifest.size()));
    out.close();
    if (!out) return input_error((dir / k_manifest_file).string() + ": write error");
  }
  // SHA256SUMS in byte order of file name, manifest.json (and its signature) included.
  hashes[k_manifest_file] = sha256_hex(manifest);
  if (sign_key) {
    FAILMAP_TRY_ASSIGN(auto sig, ed25519_sign(*sign_key, manifest));
    std::ofstream out(dir / k_signature_file, std::ios::binary | std::ios::trunc);
    out << sig;
    out.close();
    if (!out) return input_error((dir / k_signature_file).string() + ": write error");
    hashes[k_signature_file] = sha256_hex(sig);
  }
  std::ofstream out(dir / k_sums_file, std::ios::binary | std::ios::trunc);
  for (const auto& [name, hex] : hashes) out << hex << "  " << name << "\n";
  out.close();
  if (!out) return input_error((dir / k_sums_file).string() + ": write error");
  return ok_status();
}

// ---------------------------------------------------------------------------
// Reading

namespace {

bool plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

}  // namespace

std::optional<BundleManifest> check_bundle_files(const fs::path& dir, std::vector<InputProblem>* problems,
                                                 bool hash_files, bool any_kind) {
  using Kind = InputProblem::Kind;
  auto add = [&](Kind kind, std::string file, std::uint64_t line, std::string field, std::string message,
                 std::string expected = {}, std::string found = {}) {
    problems->push_back(InputProblem{kind, std::move(file), line, std::move(field), std::move(message),
                                     std::move(expected), std::move(found)});
  };
  std::string d = dir.string();
  std::string manifest_path = (dir / k_manifest_file).string();
  std::string sums_path = (dir / k_sums_file).string();
  BundleManifest m;
  // Set by a problem that leaves nothing to check (the manifest's format,
  // version or tier unknown, manifest.json or SHA256SUMS unreadable).
  bool unusable = false;
  auto add_unusable = [&](std::string file, std::uint64_t line, std::string field, std::string message) {
    unusable = true;
    add(Kind::Input, std::move(file), line, std::move(field), std::move(message));
  };
  // The folder's files.
  std::set<std::string> present;
  std::vector<std::string> not_plain, links;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    add(Kind::Input, d, 0, "",
        fs::exists(dir, ec) ? "not a bundle folder (a file)" : "not a bundle folder (no such folder)");
    return std::nullopt;
  }
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    // A link is refused too, also one to a plain file: verify-bundle and
    // import would read, and quote, whatever it points to outside the folder.
    std::error_code type_ec;
    const bool link = it->is_symlink(type_ec);
    if (link) links.push_back(name);
    if (link || !it->is_regular_file(type_ec)) not_plain.push_back(std::move(name));
    else present.insert(name);
  }
  if (ec) {
    add(Kind::Input, d, 0, "", ec.message());
    return std::nullopt;
  }
  // A folder without manifest.json is not a bundle: one problem, not one
  // for each of its sub-folders (`verify-bundle /etc`) and SHA256SUMS.
  if (!present.count(k_manifest_file)) {
    bool a_folder = std::find(not_plain.begin(), not_plain.end(), k_manifest_file) != not_plain.end();
    add(Kind::Input, manifest_path, 0, "", a_folder ? "not a plain file (not a bundle)" : "missing (not a bundle)");
    return std::nullopt;
  }
  std::sort(not_plain.begin(), not_plain.end());
  for (const std::string& name : not_plain)
    add(Kind::Mismatch, d + "/" + name, 0, "",
        std::find(links.begin(), links.end(), name) != links.end()
            ? "a bundle holds only plain files, not symbolic links"
            : "a bundle holds only plain files");

  // Hashes of the folder's files, each computed once.
  std::map<std::string, std::string> hashes;
  auto hash_of = [&](const std::string& name) -> const std::string* {
    if (!hash_files) return nullptr;
    auto it = hashes.find(name);
    if (it == hashes.end()) {
      auto hex = hash_file(dir / name);
      if (!hex) {
        add(Kind::Input, (dir / name).string(), 0, "", hex.error().message);
        return nullptr;
      }
      it = hashes.emplace(name, *hex).first;
    }
    return &it->second;
  };

  auto manifest_text = read_file(dir / k_manifest_file);
  JsonParseError syntax;
  if (!manifest_text) {
    add_unusable(manifest_path, 0, "", manifest_text.error().message);
  } else if (auto j = parse_json_file(*manifest_text, manifest_path, &syntax); !j) {
    add_unusable(manifest_path, syntax.line, "", syntax.what);
    problems->back().column = syntax.column;
  } else if (!j->is_object()) {
    add_unusable(manifest_path, 0, "", "expected a JSON object");
  } else {
    // What a member holds, for "expected X, got FOUND".
    auto found = [&](const char* key) {
      auto it = j->find(key);
      return it == j->end() ? std::string("nothing (missing)") : describe_json_value(*it);
    };
    auto str = [&](const char* key, bool needed) -> std::optional<std::string> {
      auto it = j->find(key);
      if (it == j->end() || !it->is_string()) {
        add(Kind::Input, manifest_path, 0, key, "expected a string, got " + found(key));
        unusable = unusable || needed;
        return std::nullopt;
      }
      return it->get<std::string>();
    };
    m.format = str("format", true).value_or("");
    // Another kind of folder: one error, not the follow-on ones of reading
    // it as a bundle.
    const FolderKind* kind = find_folder_kind(m.format);
    const bool importable = m.format == "failmap-bundle" || m.format == "failmap-pages";
    if (!m.format.empty() && (!kind || (!any_kind && !importable))) {
      add_unusable(manifest_path, 0, "format",
                   "'" + m.format + "' is not a failmap bundle" +
                       (kind ? " (a " + std::string(kind->noun) + ": `failmap verify-bundle " + d + "` checks it" +
                                   (m.format == "failmap-split" ? ", `failmap split check` audits it" : "") + ")"
                             : std::string()));
      return std::nullopt;
    }
    const int newest = kind ? kind->newest_version : k_bundle_format_version;
    auto v = j->find("format_version");
    if (v == j->end() || !v->is_number_integer() || v->get<std::int64_t>() < 1) {
      add_unusable(manifest_path, 0, "format_version", "expected a positive integer, got " + found("format_version"));
    } else if (v->get<std::int64_t>() > newest) {
      add_unusable(manifest_path, 0, "format_version",
                   std::to_string(v->get<std::int64_t>()) + " is newer than this failmap reads (" +
                       std::to_string(newest) + "); upgrade failmap");
    } else {
      m.format_version = v->get<int>();
    }
    m.tiered = !kind || kind->tiered;
    // A split folder's manifest names no failmap_version (its bytes depend
    // on the input and the options only).
    if (m.format != "failmap-split") m.failmap_version = str("failmap_version", false).value_or("");
    const char* tier_member = m.format_version == 1 ? k_export_tier_member_v1 : k_export_tier_member;
    if (!m.tiered) {
      // No one tier: a split names one per split ("splits"[].export_tier).
    } else if (auto text = str(tier_member, true)) {  // a missing tier is one problem, not also an unknown one
      auto tier = parse_tier(*text);
      if (!tier) add_unusable(manifest_path, 0, tier_member, tier.error().message);
      else m.tier = *tier;
    }
    // A split folder's manifest: its files as an object of name → SHA-256
    // (read below as "files" and "sha256"), its splits' sizes, no counts.
    const bool split = m.format == "failmap-split";
    Json split_files;
    if (split) {
      if (auto splits = j->find("splits"); splits != j->end() && splits->is_array())
        for (const Json& sp : *splits)
          if (sp.is_object() && sp.contains("name") && sp["name"].is_string() && sp.contains("items") &&
              sp["items"].is_number_unsigned())
            m.split_items.emplace_back(sp["name"].get<std::string>(), sp["items"].get<std::uint64_t>());
      auto f = j->find("files");
      if (f != j->end() && f->is_object()) {
        split_files = Json::array();
        for (const auto& [name, hex] : f->items()) split_files.push_back(name);
        (*j)["sha256"] = *f;
        (*j)["files"] = split_files;
      }  // else: "files" is reported below as not a list of files
    }
    auto counts = j->find("counts");
    if (split && counts == j->end()) {
      // none: a split folder counts its items per split
    } else if (counts == j->end() || !counts->is_object()) {
      add(Kind::Input, manifest_path, 0, "counts", "expected an object, got " + found("counts"));
    } else {
      for (const auto& [k, n] : counts->items()) {
        if (!n.is_number_unsigned()) add(Kind::Input, manifest_path, 0, "counts." + k, "expected a count");
        else m.counts[k] = n.get<std::uint64_t>();
      }
    }
    std::set<std::string> data(present);
    data.erase(k_manifest_file);
    data.erase(k_sums_file);
    data.erase(k_signature_file);
    // A grading's record.json (which lines came from the archive's record)
    // and cpu.jsonl (the CPU time each candidate took) differ between runs
    // that write the same results, so the manifest (and the signature over
    // it) leaves them out (schema/GRADING.md "Recording", "cpu.jsonl").
    std::erase_if(data, [&](const std::string& name) { return unlisted_note(m.format, name); });
    auto files = j->find("files");
    const bool files_read = files != j->end() && files->is_array();
    if (!files_read) {
      add(Kind::Input, manifest_path, 0, "files", "expected an array of file names, got " + found("files"));
    } else {
      for (const Json& f : *files) {
        if (!f.is_string() || !plain_name(f.get<std::string>()))
          add(Kind::Input, manifest_path, 0, "files", "expected plain file names");
        else m.files.push_back(f.get<std::string>());
      }
      std::sort(m.files.begin(), m.files.end());
      for (const std::string& f : m.files)
        if (!data.count(f))
          add(Kind::Mismatch, manifest_path, 0, "files", "lists '" + f + "', which is not in the folder");
      for (const std::string& f : data)
        if (!std::binary_search(m.files.begin(), m.files.end(), f))
          add(Kind::Mismatch, d + "/" + f, 0, "", "not listed in manifest.json");
    }
    // "sha256": the data files' digests, so the signature over the manifest covers their bytes.
    auto sha = j->find("sha256");
    if (sha == j->end() || !sha->is_object()) {
      add(Kind::Input, manifest_path, 0, "sha256",
          "expected an object of file name: SHA-256 hex, got " + found("sha256"));
    } else {
      for (const auto& [name, hex] : sha->items()) {
        std::string field = "sha256." + name;
        if (!hex.is_string() || !is_sha256_hex(hex.get_ref<const std::string&>())) {
          add(Kind::Input, manifest_path, 0, field, "expected 64 lower-case hex characters");
        } else if (!std::binary_search(m.files.begin(), m.files.end(), name)) {
          if (!files_read) continue;  // already the problem of "files"
          add(Kind::Mismatch, manifest_path, 0, field, "names a file the manifest does not list");
        } else if (data.count(name)) {
          if (const std::string* got = hash_of(name); got && *got != hex.get<std::string>())
            add(Kind::Mismatch, manifest_path, 0, field,
                "SHA-256 of '" + name + "' does not match (file changed or corrupt)", hex.get<std::string>(), *got);
        }
      }
      for (const std::string& f : m.files)
        if (!sha->contains(f)) add(Kind::Mismatch, manifest_path, 0, "sha256", "no digest of '" + f + "'");
    }
  }

  // Read only when it is a plain file: a FIFO would block the open forever
  // (it is already a problem above, as is a link or a folder).
  const bool sums_plain = present.count(k_sums_file) != 0;
  const bool sums_other = std::find(not_plain.begin(), not_plain.end(), k_sums_file) != not_plain.end();
  auto sums = sums_plain ? read_file(dir / k_sums_file) : Result<std::string>(input_error(""));
  if (!sums) {
    unusable = true;
    if (!sums_other) add(Kind::Input, sums_path, 0, "", sums_plain ? sums.error().message : "missing (not a bundle)");
  } else {
    std::set<std::string> listed;
    std::size_t line_no = 0, pos = 0;
    if (auto body = skip_file_bom(*sums, sums_path); !body) {
      add(Kind::Input, sums_path, 1, "", std::string(k_second_bom));
      pos = 2 * k_utf8_bom.size();  // the lines are read on, past both
    } else {
      pos = sums->size() - body->size();
    }
    while (pos < sums->size()) {
      std::size_t nl = sums->find('\n', pos);
      std::string line = sums->substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? sums->size() : nl + 1;
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.starts_with(k_utf8_bom)) {  // refused; the line is read on without it (no follow-on problems)
        add(Kind::Input, sums_path, line_no, "", std::string(k_bom_refused));
        line.erase(0, k_utf8_bom.size());
      }
      // coreutils: "<64 hex>  <name>" (text mode) or "<64 hex> *<name>" (binary mode).
      if (line.size() < 67 || !is_sha256_hex(line.substr(0, 64)) || line[64] != ' ' ||
          (line[65] != ' ' && line[65] != '*')) {
        add(Kind::Input, sums_path, line_no, "", "expected '<sha256 hex>  <file name>'");
        continue;
      }
      std::string name = line.substr(66);
      if (!plain_name(name) || name == k_sums_file) {
        add(Kind::Mismatch, sums_path, line_no, "", "'" + name + "' is not a file of this bundle");
        continue;
      }
      if (!listed.insert(name).second) add(Kind::Mismatch, sums_path, line_no, "", "'" + name + "' is listed twice");
      if (!present.count(name)) {
        add(Kind::Mismatch, sums_path, line_no, "", "'" + name + "' is missing from the folder");
        continue;
      }
      if (const std::string* got = hash_of(name); got && *got != line.substr(0, 64))
        add(Kind::Mismatch, sums_path, line_no, "", "'" + name + "': SHA-256 does not match (file changed or corrupt)",
            line.substr(0, 64), *got);
    }
    for (const std::string& name : present)
      if (name != k_sums_file && !listed.count(name) && !unlisted_note(m.format, name))
        add(Kind::Mismatch, d + "/" + name, 0, "", "not listed in SHA256SUMS");
  }
  if (unusable || m.format_version == 0) return std::nullopt;
  return m;
}

bool unlisted_note(std::string_view format, std::string_view name) {
  return format == "failmap-grading" && (name == "record.json" || name == "cpu.jsonl");
}

Result<BundleManifest> check_bundle(const fs::path& dir, std::vector<std::string>* errors, bool hash_files) {
  std::vector<InputProblem> problems;
  auto m = check_bundle_files(dir, &problems, hash_files);
  for (const InputProblem& p : problems) errors->push_back(describe(p));
  if (!m || !problems.empty()) return input_error(dir.string() + ": not a valid bundle");
  return *m;
}

}  // namespace failmap
