#include "io/digest.h"

#include <algorithm>
#include <array>

#include <openssl/rand.h>

#include "core/evaluate.h"
#include "encoding/jcs.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "encoding/text.h"
#include "io/case_file.h"
#include "io/observation.h"

namespace failmap {

Json case_digest_record(const Case& c) {
  Json j = case_to_json(c, /*include_published=*/false);
  j.erase("format");
  j.erase("format_version");
  Json params = Json::object();
  for (const auto& [name, value] : c.params) params[name] = python_json(value);
  j["params"] = std::move(params);
  Json fixtures = Json::array();
  for (const Fixture& f : c.fixtures)
    fixtures.push_back(
        Json{{"label", f.label}, {"args", python_json(Value::list(f.args))}, {"expected", python_json(f.expected)}});
  j["fixtures"] = std::move(fixtures);
  return j;
}

Json case_digest_document(const Case& c, const std::vector<RunDigestInput>& runs) {
  Json r = Json::object();
  for (const RunDigestInput& run : runs)
    r[std::string(strategy_name(run.strategy))] =
        Json{{"exit_status", run.exit_status}, {"observation", run.observation_digest}};
  return Json{{"scheme", "failmap-case-digest"},
              {"version", k_case_digest_version},
              {"case", case_digest_record(c)},
              {"runs", r}};
}

namespace {

// The last string a member slot of the digest text held and its canonical
// form (quotes and escapes). Every case of a mechanism carries the same
// prose, so each thread checks and escapes it once and then copies it after
// comparing the bytes; any other string is checked and escaped afresh.
struct CanonicalCache {
  std::string raw;
  std::string canonical;  ///< empty until the first string
};

// Appends the canonical form of `value`; false on invalid UTF-8.
bool append_cached_canonical(std::string& out, CanonicalCache* cache, std::string_view value) {
  if (!cache) {
    if (!valid_utf8(value)) return false;
    append_canonical_string(out, value);
    return true;
  }
  if (cache->canonical.empty() || cache->raw != value) {
    if (!valid_utf8(value)) return false;
    cache->raw.assign(value);
    cache->canonical.clear();
    append_canonical_string(cache->canonical, value);
  }
  out += cache->canonical;
  return true;
}

// Slots of the per-thread cache: the members whose strings repeat from case to case.
enum CachedMember {
  k_contract,
  k_failure,
  k_root_cause,
  k_scope,
  k_summary,
  k_title,
  k_unsuccessful,
  k_why,
  k_mechanism,
  k_recorded_at,
  k_runtime,
  k_cached_members
};

CanonicalCache* cache_slot(CachedMember m) {
  thread_local std::array<CanonicalCache, k_cached_members> t_cache;
  return &t_cache[m];
}

// Writes the RFC 8785 text of case_digest_document(c, runs) into `out` and,
// for every member of "case", the byte range of its value there: the value's
// own RFC 8785 form, which is what its field digest covers.
class DigestTextWriter {
 public:
  struct Span {
    std::string_view name;
    std::size_t begin, end;
  };
  DigestTextWriter(std::string& out, std::vector<Span>* spans) : m_out(out), m_spans(spans) {}

  // Starts member `name` of "case" after `sep` ("{" for the first).
  void open(const char* sep, std::string_view name) {
    m_out += sep;
    m_out += '"';
    m_out += name;
    m_out += "\":";
    m_name = name;
    m_begin = m_out.size();
  }
  void close() {
    if (m_spans) m_spans->push_back(Span{m_name, m_begin, m_out.size()});
  }
  // A whole string member; false on invalid UTF-8 (failed() names it).
  bool string_member(const char* sep, std::string_view name, std::string_view value, CanonicalCache* cache = nullptr) {
    open(sep, name);
    if (!append_cached_canonical(m_out, cache, value)) {
      m_failed = name;
      return false;
    }
    close();
    return true;
  }

 private:
  std::string& m_out;
  std::vector<Span>* m_spans;
  std::string_view m_name;
  std::size_t m_begin = 0;
  std::string_view m_failed;

 public:
  std::string_view failed() const { return m_failed; }
};

// Appends "name":"value" (canonical string) after `sep`; false on invalid UTF-8.
bool member(std::string& out, const char* sep, std::string_view name, std::string_view value,
            CanonicalCache* cache = nullptr) {
  out += sep;
  out += '"';
  out += name;
  out += "\":";
  return append_cached_canonical(out, cache, value);
}

Result<std::string> write_case_digest_text(const Case& c, const std::vector<RunDigestInput>& runs,
                                           std::vector<DigestTextWriter::Span>* spans) {
  std::string out;
  out.reserve(4096);
  DigestTextWriter w(out, spans);
  auto bad = [&](std::string_view field) {
    return input_error("case " + c.id + ", field " + std::string(w.failed().empty() ? field : w.failed()) +
                       ": invalid UTF-8");
  };
  const CaseProse& p = c.prose;
  // Members of "case" in UTF-16 order (all ASCII names).
  out += "{\"case\":";
  if (!w.string_member("{", "contract", p.contract, cache_slot(k_contract))) return bad("contract");
  w.open(",", "evaluation_group");
  out += '[';
  for (std::size_t i = 0; i < c.evaluation_group.size(); ++i) {
    if (!valid_utf8(c.evaluation_group[i])) return bad("evaluation_group");
    if (i) out += ',';
    append_canonical_string(out, c.evaluation_group[i]);
  }
  out += ']';
  w.close();
  if (!w.string_member(",", "failure", p.failure, cache_slot(k_failure))) return bad("failure");
  w.open(",", "fixtures");
  out += '[';
  std::string text;
  for (std::size_t i = 0; i < c.fixtures.size(); ++i) {
    const Fixture& f = c.fixtures[i];
    text.assign(1, '[');  // json.dumps of the argument list, without copying it into a Value
    for (std::size_t a = 0; a < f.args.size(); ++a) {
      if (a) text += ", ";
      append_python_json(text, f.args[a]);
    }
    text += ']';
    if (!member(out, i ? ",{" : "{", "args", text)) return bad("fixtures");
    text.clear();
    append_python_json(text, f.expected);
    if (!member(out, ",", "expected", text) || !member(out, ",", "label", f.label)) return bad("fixtures");
    out += '}';
  }
  out += ']';
  w.close();
  if (!w.string_member(",", "id", c.id) || !w.string_member(",", "mechanism", c.mechanism, cache_slot(k_mechanism)))
    return bad("id");
  w.open(",", "params");
  out += '{';
  std::vector<const std::pair<std::string, Value>*> params;
  for (const auto& b : c.params) {
    if (!valid_utf8(b.first)) return bad("params");
    params.push_back(&b);
  }
  std::sort(params.begin(), params.end(), [](auto* a, auto* b) { return utf16_less(a->first, b->first); });
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (i) out += ',';
    append_canonical_string(out, params[i]->first);
    out += ':';
    append_canonical_string(out, python_json(params[i]->second));
  }
  out += '}';
  w.close();
  w.open(",", "recorded");
  if (!member(out, "{", "at", c.recorded_at, cache_slot(k_recorded_at)) ||
      !member(out, ",", "runtime", c.recorded_runtime, cache_slot(k_runtime)))
    return bad("recorded");
  out += '}';
  w.close();
  if (!w.string_member(",", "root_cause", p.root_cause, cache_slot(k_root_cause)) ||
      !w.string_member(",", "scope", p.scope, cache_slot(k_scope)) ||
      !w.string_member(",", "summary", p.summary, cache_slot(k_summary)) ||
      !w.string_member(",", "tier", tier_name(c.tier)) ||
      !w.string_member(",", "title", c.title, cache_slot(k_title)) ||
      !w.string_member(",", "unsuccessful_approach", p.unsuccessful_approach, cache_slot(k_unsuccessful)))
    return bad("prose");
  w.open(",", "variant");
  out += std::to_string(c.variant);
  w.close();
  if (!w.string_member(",", "why_it_matters", p.why_it_matters, cache_slot(k_why))) return bad("why_it_matters");
  out += "},\"runs\":{";
  // Strategy names in byte order: broken, repaired, unsuccessful.
  std::vector<const RunDigestInput*> sorted;
  for (const RunDigestInput& r : runs) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(),
            [](auto* a, auto* b) { return strategy_name(a->strategy) < strategy_name(b->strategy); });
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i) out += ',';
    append_canonical_string(out, strategy_name(sorted[i]->strategy));
    out += ":{\"exit_status\":" + std::to_string(sorted[i]->exit_status);
    if (!member(out, ",", "observation", sorted[i]->observation_digest)) return bad("runs");
    out += '}';
  }
  out += "},\"scheme\":\"failmap-case-digest\",\"version\":" + std::to_string(k_case_digest_version) + "}";
  return out;
}

}  // namespace

Result<std::string> case_digest_text(const Case& c, const std::vector<RunDigestInput>& runs) {
  return write_case_digest_text(c, runs, nullptr);
}

Result<std::string> case_digest(const Case& c, const std::vector<RunDigestInput>& runs) {
  FAILMAP_TRY_ASSIGN(auto text, case_digest_text(c, runs));
  return sha256_hex(text);
}

namespace {

// The field digest of a "case" member from the RFC 8785 bytes of its value:
// the prose, title and tags of every case of a mechanism are the same, so
// each thread keeps, per member, the last bytes it hashed and their digest,
// and reuses the digest when the bytes are equal (compared in full; a
// digest is never looked up by a hash of the bytes).
struct FieldDigest {
  Sha256Bytes bytes;
  std::string hex;
};

// The digest of member `name`, the `position`-th of the case record, over
// `bytes`; `hex` only when `with_hex` (empty otherwise). Remembers the last
// one per position (the members come in the same order for every case, so
// no search by name): the prose and the mechanism's members repeat from
// case to case.
const FieldDigest& field_digest(std::size_t position, std::string_view name, std::string_view bytes, bool with_hex) {
  struct Last {
    std::string name, bytes;
    FieldDigest digest;
    bool valid = false;
  };
  thread_local std::vector<Last> t_last;  // one per member (16)
  if (t_last.size() <= position) t_last.resize(position + 1);
  Last* last = &t_last[position];
  if (last->name != name) {
    last->name.assign(name);
    last->valid = false;
  }
  if (!last->valid || last->bytes != bytes) {
    last->bytes.assign(bytes);
    last->digest.bytes = sha256_bytes(bytes);
    last->digest.hex.clear();
    last->valid = true;
  }
  if (with_hex && last->digest.hex.empty())
    last->digest.hex = to_hex(last->digest.bytes.data(), last->digest.bytes.size());
  return last->digest;
}

}  // namespace

Result<CaseDigests> compute_case_digests(const Case& c, const std::vector<RunDigestInput>& runs, FieldDigests forms) {
  // One text: the whole document's digest, and each "case" member's digest
  // over its value's bytes in it (the same RFC 8785 form on its own).
  thread_local std::vector<DigestTextWriter::Span> t_spans;
  t_spans.clear();
  FAILMAP_TRY_ASSIGN(auto whole, write_case_digest_text(c, runs, &t_spans));
  CaseDigests out;
  out.text_packed.reserve(32 * k_text_digest_fields.size());
  out.row_packed.reserve(32 * k_row_digest_fields.size());
  std::size_t text_next = 0, row_next = 0;
  // The spans come in member-name order, as both name arrays are sorted.
  for (std::size_t i = 0; i < t_spans.size(); ++i) {
    const DigestTextWriter::Span& s = t_spans[i];
    const FieldDigest& d = field_digest(i, s.name, std::string_view(whole).substr(s.begin, s.end - s.begin),
                                        forms == FieldDigests::MapAndPacked);
    if (forms == FieldDigests::MapAndPacked) out.fields.emplace_hint(out.fields.end(), std::string(s.name), d.hex);
    std::string* packed = nullptr;
    if (text_next < k_text_digest_fields.size() && s.name == k_text_digest_fields[text_next]) {
      packed = &out.text_packed;
      ++text_next;
    } else if (row_next < k_row_digest_fields.size() && s.name == k_row_digest_fields[row_next]) {
      packed = &out.row_packed;
      ++row_next;
    }
    if (packed) packed->append(reinterpret_cast<const char*>(d.bytes.data()), d.bytes.size());
  }
  if (text_next != k_text_digest_fields.size() || row_next != k_row_digest_fields.size())
    return input_error("field digests: the case digest text lacks a member of the archive's field digests");
  out.case_digest_bytes = sha256_bytes(whole);
  out.case_digest = to_hex(out.case_digest_bytes.data(), out.case_digest_bytes.size());
  return out;
}

std::string field_digests_text(const CaseDigests& d) { return field_digests_text(d.fields); }

std::string field_digests_text(const std::map<std::string, std::string>& fields) {
  // RFC 8785 of {name: digest}: member names are ASCII, so the map's byte
  // order is their UTF-16 order.
  std::string out = "{";
  for (const auto& [name, digest] : fields) {
    if (out.size() > 1) out += ',';
    append_canonical_string(out, name);
    out += ':';
    append_canonical_string(out, digest);
  }
  return out + "}";
}

Result<std::map<std::string, std::string>> parse_field_digests(std::string_view text, const std::string& where) {
  FAILMAP_TRY_ASSIGN(auto j, parse_json_strict(text, where));
  if (!j.is_object()) return input_error(where + ": expected a JSON object of field digests");
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : j.items()) {
    if (!value.is_string() || !is_sha256_hex(value.get_ref<const std::string&>()))
      return input_error(where + ": field '" + name + "' is not a SHA-256 hex digest (64 lower-case hex characters)");
    out[name] = value.get<std::string>();
  }
  return out;
}

Result<std::string> pack_field_digests(const std::map<std::string, std::string>& fields,
                                       const std::array<std::string_view, 8>& names) {
  std::string out;
  out.reserve(32 * names.size());
  auto it = fields.begin();
  for (std::string_view name : names) {
    // `names` is sorted like the map, so one forward walk finds them all.
    while (it != fields.end() && std::string_view(it->first) < name) ++it;
    Sha256Bytes bytes{};
    if (it == fields.end() || it->first != name || !parse_sha256_hex(it->second, &bytes))
      return input_error("field digests: no SHA-256 digest of member '" + std::string(name) + "'");
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  return out;
}

Status unpack_field_digests(std::string_view bytes, const std::array<std::string_view, 8>& names,
                            const std::string& where, std::map<std::string, std::string>* fields) {
  if (bytes.size() != 32 * names.size())
    return input_error(where + ": expected " + std::to_string(names.size()) + " SHA-256 digests (" +
                       std::to_string(32 * names.size()) + " bytes), got " + std::to_string(bytes.size()) + " bytes");
  for (std::size_t i = 0; i < names.size(); ++i)
    (*fields)[std::string(names[i])] = to_hex(reinterpret_cast<const unsigned char*>(bytes.data()) + 32 * i, 32);
  return ok_status();
}

Result<RepairSalt> make_repair_salt() {
  RepairSalt salt{};
  if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1)
    return input_error("OpenSSL RAND_bytes failed: no random salt for the repair commitment");
  return salt;
}

std::string salt_hex(const RepairSalt& salt) { return to_hex(salt.data(), salt.size()); }

Result<RepairSalt> parse_salt_hex(std::string_view hex, const std::string& where) {
  if (!is_sha256_hex(hex)) return input_error(where + ": expected 64 lower-case hex characters (32 salt bytes)");
  RepairSalt salt{};
  auto nibble = [](char ch) { return static_cast<unsigned char>(ch <= '9' ? ch - '0' : ch - 'a' + 10); };
  for (std::size_t i = 0; i < salt.size(); ++i)
    salt[i] = static_cast<unsigned char>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  return salt;
}

Result<RepairedRun> replay_repaired(const Case& c) {
  FAILMAP_TRY_ASSIGN(auto outcome, run_strategy(c, StrategyKind::Repaired));
  return RepairedRun{outcome.exit_status(), observation_digest(observation_document(c, outcome))};
}

Result<std::string> canonical_repaired_record(const Case& c, const RepairedRun& run) {
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return input_error("case " + c.id + ": mechanism '" + c.mechanism + "' is not compiled into this failmap");
  if (!k_build_has_repairs) return no_repairs_error("case " + c.id + ", repair commitment");
  std::string_view source = m->strategy(StrategyKind::Repaired).python;
  if (!valid_utf8(c.id) || !valid_utf8(source) || !valid_utf8(run.observation_digest))
    return input_error("case " + c.id + ": invalid UTF-8 in the canonical repaired record");
  // RFC 8785 written directly: members in UTF-16 order of their (ASCII) names.
  std::string out = "{\"case\":";
  out.reserve(256 + source.size());
  append_canonical_string(out, c.id);
  out += ",\"exit_status\":";
  out += std::to_string(run.exit_status);
  out += ",\"observation_digest\":";
  append_canonical_string(out, run.observation_digest);
  out += ",\"scheme\":\"failmap-repair\",\"source\":";
  append_canonical_string(out, source);
  out += ",\"strategy\":\"repaired\",\"version\":";
  out += std::to_string(k_repair_record_version);
  out += '}';
  return out;
}

std::string repair_commitment(const RepairSalt& salt, std::string_view canonical_repaired_record) {
  Sha256 h;
  h.update(std::string_view(reinterpret_cast<const char*>(salt.data()), salt.size()));
  h.update(canonical_repaired_record);
  return h.hex();
}

}  // namespace failmap
