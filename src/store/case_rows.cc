// Case rows: how a case is stored in the cases and case_texts tables
// (schema/006, schema/007) and read back. Encoding (params, tags and fixtures
// as Python JSON text, the shared case_texts row, insert_case with its
// mechanism, digest, published-run and seal rows), whether a case exists
// (has_case), which cases hold the same checks (cases_with_same_checks),
// deletion, and decoding
// (the stored texts parsed and checked, e.g. the binding rule, into a Case),
// one case at a time (load_case) or in keyset batches (read_case_rows and
// decode_case_row for `run --all`). Streaming every case with its runs is
// scan.cc's; what a run row holds is runs.cc's.
#include "store/archive.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <unordered_set>

#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "store/archive_internal.h"

namespace failmap {

using archive_detail::digest_view;

namespace {

std::string params_json(const Bindings& params) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : params) {
    if (!first) out += ", ";
    first = false;
    append_python_json_string(out, k);
    out += ": ";
    append_python_json(out, v);
  }
  return out + "}";
}

std::string tags_json(const std::vector<std::string>& tags) {
  Value::List items;
  for (const auto& t : tags) items.push_back(Value::str(t));
  return python_json(Value::list(std::move(items)));
}

// fixture_labels and fixture_values of a case row (schema/006_case_fixtures.sql).
std::string fixture_labels_json(const std::vector<Fixture>& fixtures) {
  std::string out = "[";
  for (std::size_t i = 0; i < fixtures.size(); ++i) {
    if (i) out += ", ";
    append_python_json_string(out, fixtures[i].label);
  }
  return out + "]";
}

std::string fixture_values_json(const std::vector<Fixture>& fixtures) {
  std::string out = "[";
  for (std::size_t i = 0; i < fixtures.size(); ++i) {
    if (i) out += ", ";
    out += "[[";
    for (std::size_t a = 0; a < fixtures[i].args.size(); ++a) {
      if (a) out += ", ";
      append_python_json(out, fixtures[i].args[a]);
    }
    out += "], ";
    append_python_json(out, fixtures[i].expected);
    out += ']';
  }
  return out + "]";
}

}  // namespace

CaseInsertTexts case_insert_texts(const Case& c, const CaseDigests* digests) {
  CaseInsertTexts t{params_json(c.params),
                    tags_json(c.evaluation_group),
                    fixture_labels_json(c.fixtures),
                    fixture_values_json(c.fixtures),
                    {},
                    {}};
  if (digests) {  // packed by compute_case_digests; else from the map (which then has every member)
    t.row_field_digests = digests->row_packed;
    t.text_field_digests = digests->text_packed;
    if (t.row_field_digests.empty())
      if (auto row = pack_field_digests(digests->fields, k_row_digest_fields)) t.row_field_digests = std::move(*row);
    if (t.text_field_digests.empty())
      if (auto text = pack_field_digests(digests->fields, k_text_digest_fields))
        t.text_field_digests = std::move(*text);
  }
  return t;
}

Archive::InsertMemo* Archive::insert_memo() {
  if (sqlite3_get_autocommit(m_db.handle())) return nullptr;
  if (m_insert_memo.serial != m_db.transaction_serial())
    m_insert_memo = InsertMemo{m_db.transaction_serial(), {}, 0, {}, {}};
  return &m_insert_memo;
}

Result<std::int64_t> Archive::text_id_for(const Case& c, std::string_view text_digests) {
  const std::string* texts[] = {
      &c.title,          &c.prose.summary,        &c.prose.root_cause, &c.prose.failure, &c.prose.unsuccessful_approach,
      &c.prose.contract, &c.prose.why_it_matters, &c.prose.scope};
  auto same_texts = [&](const auto& column) {
    for (int i = 0; i < 8; ++i)
      if (column(i) != *texts[i]) return false;
    return true;
  };
  InsertMemo* memo = insert_memo();
  // The row the query below would find: rows are only added in a
  // transaction (set_case_digests clears the memo when it changes digests),
  // and an added row never sorts before the one remembered.
  if (memo && memo->text_id != 0 && memo->text_digests == text_digests &&
      same_texts([&](int i) -> std::string_view { return memo->texts[i]; }))
    return memo->text_id;
  auto remember = [&](std::int64_t id) {
    if (!memo) return id;
    memo->text_id = id;
    memo->text_digests = text_digests;
    for (int i = 0; i < 8; ++i) memo->texts[i] = *texts[i];
    return id;
  };
  {
    // The digests find the row; the texts themselves decide (a row edited
    // by hand keeps its old digests until `digest regenerate`).
    FAILMAP_TRY_ASSIGN(auto st, m_db.cached("SELECT text_id, title, summary, root_cause, failure, "
                                            "unsuccessful_approach, contract, why_it_matters, scope "
                                            "FROM case_texts WHERE field_digests = ?1 ORDER BY text_id"));
    st->bind_blob(1, text_digests);
    for (;;) {
      FAILMAP_TRY_ASSIGN(auto r, st->step());
      if (!r) break;
      if (same_texts([&](int i) { return st->column_view(1 + i); })) {
        std::int64_t id = st->column_int(0);
        st->reset();
        return remember(id);
      }
    }
  }
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("INSERT INTO case_texts(title, summary, root_cause, failure, "
                                          "unsuccessful_approach, contract, why_it_matters, "
                                          "scope, "
                                          "field_digests) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  for (int i = 0; i < 8; ++i) (st)->bind_static(1 + i, *texts[i]);
  st->bind_blob_static(9, text_digests);
  if (auto s = st->run(); !s) return input_error("case " + c.id + ": " + s.error().message);
  return remember(static_cast<std::int64_t>(sqlite3_last_insert_rowid(m_db.handle())));
}

Status Archive::insert_case(const Case& c, const CaseDigests* digests, const RepairSeal* seal,
                            const CaseInsertTexts* texts) {
  std::optional<CaseInsertTexts> computed;
  if (!texts) texts = &computed.emplace(case_insert_texts(c, digests));
  std::string text_digests = texts->text_field_digests;
  if (text_digests.empty()) {  // no digests given: those of the texts are needed to share them
    auto d = compute_case_digests(c, {});
    if (!d) return input_error("case " + c.id + ": " + d.error().message);
    FAILMAP_TRY_ASSIGN(text_digests, pack_field_digests(d->fields, k_text_digest_fields));
  }
  FAILMAP_TRY_ASSIGN(auto text_id, text_id_for(c, text_digests));
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return input_error("case " + c.id + ": unknown mechanism '" + c.mechanism + "'");
  InsertMemo* memo = insert_memo();
  if (!memo || !memo->mechanisms.contains(m->id)) {
    FAILMAP_TRY_ASSIGN(
        auto* st, m_db.cached("INSERT OR IGNORE INTO mechanisms(id, title, evaluation_group) VALUES (?1, ?2, ?3)"));
    std::vector<std::string> tags(m->evaluation_group.begin(), m->evaluation_group.end());
    st->bind(1, m->id);
    st->bind(2, m->title);
    st->bind(3, tags_json(tags));
    FAILMAP_TRY(st->run());
    if (memo) memo->mechanisms.emplace(m->id);
  }
  {
    FAILMAP_TRY_ASSIGN(
        auto* st,
        m_db.cached(
            "INSERT INTO cases(id, mechanism_id, variant, tier, text_id, params, evaluation_group, recorded_runtime, "
            "recorded_at, published_case_digest, fixture_labels, fixture_values, field_digests) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"));
    // Every bound string outlives the run(): no copies (SQLITE_STATIC).
    st->bind_static(1, c.id);
    st->bind_static(2, c.mechanism);
    st->bind(3, std::int64_t{c.variant});
    st->bind(4, tier_name(c.tier));
    st->bind(5, text_id);
    st->bind_static(6, texts->params);
    st->bind_static(7, texts->evaluation_group);
    st->bind_static(8, c.recorded_runtime);
    st->bind_static(9, c.recorded_at);
    st->bind_static(10, c.published.case_digest);
    st->bind_static(11, texts->fixture_labels);
    st->bind_static(12, texts->fixture_values);
    if (digests && !texts->row_field_digests.empty()) st->bind_blob_static(13, texts->row_field_digests);
    else st->bind_null(13);
    if (auto s = st->run(); !s) return input_error("case " + c.id + ": " + s.error().message);
  }
  // The id is new, so its digest and seal rows are too (they cascade with
  // the case row): a plain INSERT, without the statement journal that OR
  // REPLACE's delete-then-insert opens for every row.
  if (digests) {
    Sha256Bytes d{};
    if (!parse_sha256_hex(digests->case_digest, &d))
      return input_error("case " + c.id + ": case digest '" + digests->case_digest + "' is not a SHA-256 hex digest");
    FAILMAP_TRY_ASSIGN(auto prepared, m_db.cached("INSERT INTO case_digests(case_id, digest) VALUES (?1, ?2)"));
    prepared->bind_static(1, c.id);
    prepared->bind_blob_static(2, digest_view(d));
    if (auto s = prepared->run(); !s) {
      // The id is new to `cases`, so a row already here was left by a case
      // deleted outside failmap: name that cause rather than SQLite's words.
      auto left = m_db.cached("SELECT 1 FROM case_digests WHERE case_id = ?1");
      if (left) {
        (*left)->bind(1, c.id);
        auto found = (*left)->step();
        (*left)->reset();
        if (found && *found)
          return input_error("case " + c.id +
                             ": table case_digests already holds a row for this id, though the case "
                             "is not in the archive (deleted outside failmap, with foreign keys off); `failmap verify` "
                             "lists such rows");
      }
      return input_error("case " + c.id + ": case digest: " + s.error().message);
    }
  }
  if (!c.published.runs.empty()) {
    FAILMAP_TRY_ASSIGN(
        auto* st,
        m_db.cached("INSERT INTO published_runs(case_id, strategy, exit_status, digest) VALUES (?1, ?2, ?3, ?4)"));
    for (const PublishedRun& r : c.published.runs) {
      st->bind(1, c.id);
      st->bind(2, strategy_name(r.strategy));
      st->bind(3, std::int64_t{r.exit_status});
      st->bind(4, r.digest);
      FAILMAP_TRY(st->run());
    }
  }
  if (seal) return write_repair_seal("INSERT", c.id, *seal);
  FAILMAP_TRY_ASSIGN(auto salt, make_repair_salt());
  return write_repair_seal("INSERT", c.id, RepairSeal{salt, {}});
}

Result<std::uint64_t> Archive::delete_case(const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto count, m_db.cached("SELECT count(*) FROM runs WHERE case_id = ?1"));
  count->bind(1, id);
  FAILMAP_TRY_ASSIGN(auto row, count->step());
  auto runs = static_cast<std::uint64_t>(row ? count->column_int(0) : 0);
  count->reset();
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("DELETE FROM cases WHERE id = ?1"));
  st->bind(1, id);
  FAILMAP_TRY(st->run());
  return runs;
}

namespace {

// The fixture_labels column (schema/006) as strings.
Result<std::vector<std::string>> parse_fixture_labels(std::string_view labels, const std::string& where) {
  auto label_texts = json_array_elements(labels);
  if (!label_texts)
    return input_error(where + ", field fixture_labels: expected a JSON array of strings, got " +
                       describe_json_text(labels));
  std::vector<std::string> out;
  out.reserve(label_texts->size());
  for (std::size_t i = 0; i < label_texts->size(); ++i) {
    FAILMAP_TRY_ASSIGN(
        auto label, parse_value_text((*label_texts)[i], where + ", field fixture_labels[" + std::to_string(i) + "]"));
    if (!label.is_str())
      return input_error(where + ", field fixture_labels[" + std::to_string(i) + "]: expected a string, got " +
                         describe_json_text((*label_texts)[i]));
    out.push_back(std::move(label.as_str()));
  }
  return out;
}

// The fixture_values column (schema/006) split into per-fixture texts, one per label.
Result<std::vector<StoredFixtureText>> split_fixture_values(const std::vector<std::string>& labels,
                                                            std::string_view values, const std::string& where) {
  auto pairs = json_array_elements(values);
  if (!pairs)
    return input_error(where + ", field fixture_values: expected a JSON array of [args, expected] pairs, got " +
                       describe_json_text(values));
  if (pairs->size() != labels.size())
    return input_error(where + ": " + std::to_string(labels.size()) + " fixture label(s) but " +
                       std::to_string(pairs->size()) + " [args, expected] pair(s)");
  std::vector<StoredFixtureText> out(pairs->size());
  for (std::size_t i = 0; i < pairs->size(); ++i) {
    out[i].label = labels[i];
    auto pair = json_array_elements((*pairs)[i]);
    if (!pair || pair->size() != 2)
      return input_error(
          where + ", fixture '" + out[i].label + "': expected an [args, expected] pair in fixture_values, got " +
          (pair ? "an array of " + std::to_string(pair->size()) + " element(s)" : describe_json_text((*pairs)[i])));
    out[i].args = (*pair)[0];
    out[i].expected = (*pair)[1];
  }
  return out;
}

// The fast path of decode_fixtures: `values` exactly as fixture_values_json
// writes integer fixtures ("[[[1, 1, 1], 2], [[], 0]]"), one pair per label,
// parsed straight into `fixtures` without splitting the text first. The
// fixtures' vectors and strings are reused (a case of the shape the slot's
// last case had allocates nothing). False for any other text, `fixtures`
// then unspecified: the general path decodes it or names what is wrong.
bool decode_int_fixture_values(const std::vector<std::string>& labels, std::string_view values,
                               std::vector<Fixture>& fixtures) {
  std::size_t pos = 0;
  auto literal = [&](std::string_view s) {
    if (values.substr(pos, s.size()) != s) return false;
    pos += s.size();
    return true;
  };
  if (!literal("[")) return false;
  fixtures.resize(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    Fixture& f = fixtures[i];
    if (!literal(i ? ", [[" : "[[") || !parse_int_list_items(values, &pos, &f.args) || !literal(", ") ||
        !parse_int_value_into(values, &pos, &f.expected) || !literal("]"))
      return false;
    f.label.assign(labels[i]);
  }
  return literal("]") && pos == values.size();
}

}  // namespace

Result<std::vector<StoredFixtureText>> split_stored_fixtures(std::string_view labels, std::string_view values,
                                                             const std::string& where) {
  FAILMAP_TRY_ASSIGN(auto parsed, parse_fixture_labels(labels, where));
  return split_fixture_values(parsed, values, where);
}

namespace {

// The cache's parsed labels when `labels` is the text they were parsed
// from (every case of a mechanism shares its labels), else nullptr.
const std::vector<std::string>* cached_labels(const Archive::DecodeCache* cache, std::string_view labels) {
  return cache && !cache->labels_text.empty() && cache->labels_text == labels ? &cache->labels : nullptr;
}

// decode_fixtures' fast path alone, without building error text: labels
// the cache holds and integer fixture values. False otherwise, c.fixtures
// then unspecified.
bool decode_cached_int_fixtures(std::string_view labels, std::string_view values, Case& c,
                                const Archive::DecodeCache* cache) {
  const std::vector<std::string>* parsed = cached_labels(cache, labels);
  return parsed && decode_int_fixture_values(*parsed, values, c.fixtures);
}

}  // namespace

Status Archive::decode_fixtures(std::string_view labels, std::string_view values, Case& c, const std::string& where,
                                DecodeCache* cache) {
  // With a cache, labels are parsed once per run of equal texts.
  std::vector<std::string> local;
  const std::vector<std::string>* parsed = cached_labels(cache, labels);
  if (!parsed) {
    parsed = &local;
    FAILMAP_TRY_ASSIGN(auto fresh, parse_fixture_labels(labels, where));
    if (cache) {
      cache->labels_text = labels;
      cache->labels = std::move(fresh);
      parsed = &cache->labels;
    } else {
      local = std::move(fresh);
    }
  }
  if (decode_int_fixture_values(*parsed, values, c.fixtures)) return ok_status();
  FAILMAP_TRY_ASSIGN(auto split, split_fixture_values(*parsed, values, where));
  std::vector<StoredFixtureText>& texts = split;
  c.fixtures.clear();
  c.fixtures.reserve(texts.size());
  for (StoredFixtureText& t : texts) {
    Fixture& f = c.fixtures.emplace_back();
    f.label = std::move(t.label);
    // Integer lists (most fixtures) without building error text first.
    auto args = parse_int_value_text(t.args);
    auto expected = parse_int_value_text(t.expected);
    if (!args || !expected) {
      std::string at = where + ", fixture '" + f.label + "'";
      FAILMAP_TRY_ASSIGN(auto a, parse_value_text(t.args, at + " field args"));
      FAILMAP_TRY_ASSIGN(auto e, parse_value_text(t.expected, at + " field expected"));
      args = std::move(a);
      expected = std::move(e);
    }
    if (!args->is_list())
      return input_error(where + ", fixture '" + f.label + "' field args: expected a JSON array, got " +
                         describe_json_text(t.args));
    f.args = std::move(args->as_list());
    f.expected = std::move(*expected);
  }
  return ok_status();
}

Status Archive::read_fixtures(Case& c, const std::string& where) {
  if (m_fixture_rows) {  // schema version 5 or older, mid-migration
    FAILMAP_TRY_ASSIGN(auto st,
                       m_db.prepare("SELECT label, args, expected FROM fixtures WHERE case_id = ?1 ORDER BY position"));
    st.bind(1, c.id);
    std::string labels = "[", values = "[";
    if (Status each = st.for_each_row([&]() -> Status {
          if (labels.size() > 1) labels += ", ", values += ", ";
          append_python_json_string(labels, st.column_view(0));
          values += "[" + st.column_text(1) + ", " + st.column_text(2) + "]";
          return ok_status();
        });
        !each)
      return each;
    return decode_fixtures(labels + "]", values + "]", c, where, nullptr);
  }
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("SELECT fixture_labels, fixture_values FROM cases WHERE id = ?1"));
  st->bind(1, c.id);
  FAILMAP_TRY_ASSIGN(auto r, st->step());
  if (!r) return input_error(where + ": no such case");
  Status s = decode_fixtures(st->column_view(0), st->column_view(1), c, where, nullptr);
  st->reset();
  return s;
}

Result<Case> Archive::load_fixtures(const std::string& case_id) {
  Case c;
  c.id = case_id;
  FAILMAP_TRY(read_fixtures(c, m_db.path() + ": case " + case_id));
  return c;
}

Status check_stored_binding(const Case& c, const std::string& where) {
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return ok_status();
  if (auto problem = binding_problem(*m, c.params))
    return input_error(where + ", field " + problem->field + ": " + problem->what);
  return ok_status();
}

namespace {

// Python-JSON params of one name bound to a value ("{\"N\": 1}", as
// params_json writes them) without a JSON tree; nullopt for anything else.
std::optional<Bindings> parse_single_binding(std::string_view text, const std::string& where) {
  if (text.size() < 7 || text.substr(0, 2) != "{\"" || text.back() != '}') return std::nullopt;
  std::size_t close = text.find('"', 2);
  if (close == std::string_view::npos || text.substr(close, 3) != "\": ") return std::nullopt;
  std::string_view name = text.substr(2, close - 2);
  if (name.find('\\') != std::string_view::npos) return std::nullopt;
  std::string_view value = text.substr(close + 3, text.size() - close - 4);
  if (value.empty() || value.find_first_not_of("-0123456789") != std::string_view::npos) return std::nullopt;
  auto v = parse_value_text(value, where);
  if (!v) return std::nullopt;
  return Bindings{{std::string(name), std::move(*v)}};
}

// The evaluation_group column (a JSON array of strings) into
// c.evaluation_group, which must be empty; with a cache, a run of equal
// texts is parsed once.
Status decode_evaluation_group(std::string_view text, Case& c, const std::string& where, Archive::DecodeCache* cache) {
  if (cache && cache->tags_text == text && !cache->tags_text.empty()) {
    c.evaluation_group = cache->tags;
    return ok_status();
  }
  FAILMAP_TRY_ASSIGN(auto tags, parse_json_strict(text, where + ", field evaluation_group"));
  if (!tags.is_array())
    return input_error(where + ", field evaluation_group: expected a JSON array of strings, got " +
                       describe_json_value(tags));
  for (const auto& t : tags) {
    if (!t.is_string())
      return input_error(where + ", field evaluation_group: expected a JSON array of strings, got " +
                         describe_json_value(t) + " in it");
    c.evaluation_group.push_back(t.get<std::string>());
  }
  if (cache) {
    cache->tags_text = text;
    cache->tags = c.evaluation_group;
  }
  return ok_status();
}

}  // namespace

void Archive::copy_case_columns(Statement& row, Case& c, CaseRowTexts& texts) {
  // assign() reuses the strings' buffers when `c` is reused (Scan::read).
  c.id.assign(row.column_view(0));
  c.mechanism.assign(row.column_view(1));
  c.variant = static_cast<int>(row.column_int(2));
  c.title.assign(row.column_view(3));
  texts.tier.assign(row.column_view(4));
  std::string* prose[] = {&c.prose.summary,  &c.prose.root_cause,     &c.prose.failure, &c.prose.unsuccessful_approach,
                          &c.prose.contract, &c.prose.why_it_matters, &c.prose.scope};
  for (int i = 0; i < 7; ++i) prose[i]->assign(row.column_view(5 + i));
  texts.params.assign(row.column_view(12));
  texts.evaluation_group.assign(row.column_view(13));
  c.recorded_runtime.assign(row.column_view(14));
  c.recorded_at.assign(row.column_view(15));
  c.published.case_digest.assign(row.column_view(16));
  c.published.runs.clear();
  texts.fixture_labels.assign(row.column_view(17));
  texts.fixture_values.assign(row.column_view(18));
}

Status decode_stored_params(std::string_view text, Case& c, const std::string& where) {
  c.params.clear();
  if (auto fast = parse_single_binding(text, where + ", field params")) {
    c.params = std::move(*fast);
  } else {
    FAILMAP_TRY_ASSIGN(auto params, parse_json_strict(text, where + ", field params"));
    if (!params.is_object())
      return input_error(where + ", field params: expected a JSON object, got " + describe_json_value(params));
    for (const auto& [k, v] : params.items()) {
      FAILMAP_TRY_ASSIGN(auto val, value_from_json(v, where + ", field params." + k));
      c.params.emplace_back(k, std::move(val));
    }
  }
  return check_stored_binding(c, where);
}

namespace {

// True when `text` is params_json's spelling of the one integer binding of
// mechanism `m`, at or above its minimum ({"N": 7}): the binding rule
// without a tree or error text, for run --all --no-record's rows. False for
// anything else, which decode_stored_params then parses and names.
bool single_int_binding_ok(std::string_view text, const Mechanism& m) {
  if (m.parameters.size() != 1) return false;
  std::string_view name = m.parameters[0];
  if (text.size() < name.size() + 7 || text.substr(0, 2) != "{\"" || text.substr(2, name.size()) != name ||
      text.substr(2 + name.size(), 3) != "\": " || text.back() != '}')
    return false;
  std::string_view digits = text.substr(name.size() + 5, text.size() - name.size() - 6);
  // Python's spelling of an int only: no leading zero (from_chars takes "007").
  if (digits.size() > 1 && (digits[0] == '0' || (digits[0] == '-' && digits[1] == '0'))) return false;
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size()) return false;
  return m.parameter_minimum.empty() || v >= m.parameter_minimum[0];
}

}  // namespace

Status Archive::decode_case_texts(const CaseRowTexts& texts, Case& c, const std::string& where, DecodeCache* cache) {
  auto tier = parse_tier(texts.tier);
  if (!tier) return input_error(where + ", field tier: " + tier.error().message);
  c.tier = *tier;
  c.evaluation_group.clear();
  FAILMAP_TRY(decode_stored_params(texts.params, c, where));
  FAILMAP_TRY(decode_evaluation_group(texts.evaluation_group, c, where, cache));
  return decode_fixtures(texts.fixture_labels, texts.fixture_values, c, where, cache);
}

Status Archive::decode_case_columns(Statement& row, Case& c, const std::string& where, DecodeCache* cache) {
  CaseRowTexts texts;
  copy_case_columns(row, c, texts);
  return decode_case_texts(texts, c, where, cache);
}

// Builds a Case from a row of k_case_columns plus its fixtures/published rows.
Result<Case> Archive::case_from_row(Statement& row) {
  Case c;
  std::string where = m_db.path() + ": case " + row.column_text(0);
  FAILMAP_TRY(decode_case_columns(row, c, where, nullptr));
  FAILMAP_TRY_ASSIGN(auto* pr,
                     m_db.cached("SELECT strategy, exit_status, digest FROM published_runs WHERE case_id = ?1"));
  pr->bind(1, c.id);
  if (Status each = pr->for_each_row([&]() -> Status {
        auto s = parse_strategy(pr->column_text(0));
        if (!s) return input_error(where + ", published run: " + s.error().message);
        c.published.runs.push_back(PublishedRun{*s, static_cast<int>(pr->column_int(1)), pr->column_text(2)});
        return ok_status();
      });
      !each)
    return each.error();
  std::sort(c.published.runs.begin(), c.published.runs.end(),
            [](const PublishedRun& a, const PublishedRun& b) { return a.strategy < b.strategy; });
  return c;
}

Result<bool> Archive::has_case(const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto st, m_db.cached("SELECT 1 FROM cases WHERE id = ?1"));
  st->bind(1, id);
  FAILMAP_TRY_ASSIGN(auto r, st->step());
  st->reset();
  return r;
}

Result<std::optional<Case>> Archive::load_case(const std::string& id) {
  FAILMAP_TRY_ASSIGN(auto st,
                     m_db.cached("SELECT " FAILMAP_CASE_COLUMNS " FROM " FAILMAP_CASE_TABLES " WHERE id = ?1"));
  st->bind(1, id);
  FAILMAP_TRY_ASSIGN(auto r, st->step());
  if (!r) return std::optional<Case>();
  FAILMAP_TRY_ASSIGN(auto c, case_from_row(*st));
  return std::optional<Case>(std::move(c));
}

Result<std::size_t> Archive::read_case_rows(const std::string& after_id, std::size_t limit, CaseFields fields,
                                            const std::function<Case&(std::size_t)>& case_at,
                                            std::vector<CaseRowTexts>* texts) {
  FAILMAP_TRY_ASSIGN(
      auto st, fields == CaseFields::Record
                   ? m_db.cached("SELECT " FAILMAP_CASE_COLUMNS
                                 ", cases.field_digests, case_texts.field_digests FROM " FAILMAP_CASE_TABLES
                                 " WHERE id > ?1 ORDER BY id LIMIT ?2")
               : fields == CaseFields::Runs
                   ? m_db.cached("SELECT id, mechanism_id, fixture_labels, fixture_values, params FROM cases "
                                 "WHERE id > ?1 ORDER BY id LIMIT ?2")
                   : m_db.cached("SELECT id, mechanism_id, fixture_labels, fixture_values, evaluation_group FROM cases "
                                 "WHERE id > ?1 ORDER BY id LIMIT ?2"));
  st->bind(1, after_id);
  st->bind(2, static_cast<std::int64_t>(limit));
  std::size_t n = 0;
  for (;; ++n) {
    FAILMAP_TRY_ASSIGN(auto r, st->step());
    if (!r) break;
    if (texts->size() == n) texts->emplace_back();
    Case& c = case_at(n);
    CaseRowTexts& t = (*texts)[n];
    if (fields == CaseFields::Record) {
      copy_case_columns(*st, c, t);
      t.row_field_digests_null = st->column_is_null(19);
      t.row_field_digests.assign(st->column_view(19));
      t.text_field_digests.assign(st->column_view(20));
    } else {
      c.id.assign(st->column_view(0));
      c.mechanism.assign(st->column_view(1));
      t.fixture_labels.assign(st->column_view(2));
      t.fixture_values.assign(st->column_view(3));
      if (fields == CaseFields::Split) t.evaluation_group.assign(st->column_view(4));
      if (fields == CaseFields::Runs) t.params.assign(st->column_view(4));
    }
  }
  st->reset();
  return n;
}

Status Archive::decode_case_row(CaseFields fields, const CaseRowTexts& texts, const std::string& archive_path, Case* c,
                                DecodeCache* cache) {
  // Most rows of run --all: no error text is built for them.
  if (fields == CaseFields::Runs) {
    const Mechanism* m = find_mechanism(c->mechanism);
    if (m && single_int_binding_ok(texts.params, *m) &&
        decode_cached_int_fixtures(texts.fixture_labels, texts.fixture_values, *c, cache))
      return ok_status();
  }
  std::string where = archive_path + ": case " + c->id;
  if (fields == CaseFields::Record) return decode_case_texts(texts, *c, where, cache);
  // The binding is not evaluated, but a case whose binding every other
  // command refuses is refused here too.
  if (fields == CaseFields::Runs) FAILMAP_TRY(decode_stored_params(texts.params, *c, where));
  if (fields == CaseFields::Split) {
    c->evaluation_group.clear();
    FAILMAP_TRY(decode_evaluation_group(texts.evaluation_group, *c, where, cache));
  }
  return decode_fixtures(texts.fixture_labels, texts.fixture_values, *c, where, cache);
}

Result<std::map<Sha256Bytes, std::vector<std::string>>> Archive::cases_with_same_checks(
    const std::vector<std::pair<std::string, Sha256Bytes>>& made) {
  std::map<Sha256Bytes, std::vector<std::string>> same_as;
  std::unordered_set<std::string> made_ids;
  for (const auto& [id, d] : made) {
    same_as[d];
    made_ids.insert(id);
  }
  FAILMAP_TRY_ASSIGN(auto rows, m_db.prepare("SELECT id, fixture_values FROM cases ORDER BY id"));
  FAILMAP_TRY(rows.for_each_row([&]() -> Status {
    if (made_ids.count(std::string(rows.column_view(0)))) return ok_status();
    if (auto it = same_as.find(sha256_bytes(rows.column_view(1))); it != same_as.end())
      it->second.push_back(rows.column_text(0));
    return ok_status();
  }));
  return same_as;
}

}  // namespace failmap
