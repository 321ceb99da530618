// The workflow of `failmap split` (schema/SPLITS.md): the archive's cases,
// or the items of an external listing, grouped into units, the units
// assigned to ratio splits or folds, and the split folder written (one
// SPLIT.jsonl per split, assignments.jsonl, manifest.json and SHA256SUMS,
// moved into place when complete); the text report of a split; the leakage
// audit of a split folder.
#include "store/split_export.h"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>

#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "encoding/signature.h"
#include "io/bundle.h"
#include "io/hashed_folder.h"
#include "io/listing.h"
#include "io/split_folder.h"
#include "io/task.h"
#include "store/exporter.h"
#include "store/sqlite.h"
#include "store/units.h"

namespace failmap {
namespace {

std::string pct(double share) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << share * 100;
  return s.str();
}

std::string share4(double share) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(4) << share;
  return s.str();
}

Result<Assignment> assign(const Partition& p, const SplitRequest& o, SplitMode mode) {
  if (o.folds_given) return assign_folds(p, o.folds, o.seed, mode);
  FAILMAP_TRY_ASSIGN(auto shares, parse_ratios(o.ratios));
  return assign_ratios(p, shares, o.seed, mode);
}

constexpr std::int64_t k_ppb_one = 1'000'000'000;  // SplitShare::ppb of a share of 1

// The shares as given when they do not sum to exactly 1, so that parse_ratios
// divides each by their sum (schema/SPLITS.md "Ratios"); empty for --folds and
// for shares summing to 1. Called after the split succeeded: o.ratios parses.
std::vector<SplitShare> rescaled_shares(const SplitRequest& o) {
  if (o.folds_given) return {};
  auto shares = parse_ratios(o.ratios);
  if (!shares) return {};
  std::int64_t sum = 0;
  for (const SplitShare& s : *shares) sum += s.ppb;
  if (sum == k_ppb_one) return {};
  return std::move(*shares);
}

double ppb_share(std::int64_t ppb) { return static_cast<double>(ppb) / static_cast<double>(k_ppb_one); }

// The tier the split named `name` of an archive split is written at: every
// split but "train" (every fold) at --test-tier; train at the member tier,
// except in the open build.
Tier split_tier(const SplitRequest& o, const std::string& name, Tier test_tier) {
  if (o.folds_given || name != "train") return test_tier;
  return k_build_has_repairs ? Tier::Member : Tier::Open;
}

std::string split_tier_name(const SplitRequest& o, const std::string& name) {
  auto test_tier = parse_tier(o.test_tier);  // checked before anything is written
  return std::string(tier_name(split_tier(o, name, test_tier ? *test_tier : Tier::Open)));
}

// manifest.json (schema/SPLITS.md "manifest.json"): everything needed to
// reproduce and judge the split; no paths, no clock.
Json manifest(const SplitRequest& o, const Partition& p, const Assignment& a, const Assignment* balanced,
              const std::string& source, const Json& group_by, const std::string& input_digest,
              const std::vector<std::pair<std::string, std::string>>& files, std::optional<std::uint64_t> runs,
              const Json& unit_list) {
  Json m;
  m["format"] = "failmap-split";
  m["format_version"] = k_split_format_version;
  m["algorithm_version"] = k_split_algorithm_version;
  m["source"] = source;
  if (!input_digest.empty()) m["input_sha256"] = input_digest;
  m["group_by"] = group_by;
  m["mode"] = o.folds_given ? "folds" : "ratios";
  m["stable"] = o.stable;
  m["seed"] = o.seed;
  if (o.folds_given) {
    m["folds"] = o.folds;
  } else {
    Json r = Json::object();
    for (std::size_t s = 0; s < a.split_names.size(); ++s) r[a.split_names[s]] = a.requested[s];
    m["ratios"] = r;
    if (std::vector<SplitShare> given = rescaled_shares(o); !given.empty()) {
      Json g = Json::object();
      for (const SplitShare& share : given) g[share.name] = ppb_share(share.ppb);
      m["ratios_given"] = g;
    }
  }
  if (source == "archive") {
    m["test_tier"] = o.test_tier;
    m["record_format"] = o.format;
  }
  m["items"] = p.item_count();
  m["units"] = p.unit_count();
  m["largest_unit"] = p.largest_unit();
  if (runs) m["runs"] = *runs;  // run records written (archive); 0 says the archive had none to give
  Json splits = Json::array();
  for (std::size_t s = 0; s < a.split_names.size(); ++s) {
    Json split{{"name", a.split_names[s]},
               {"requested", a.requested[s]},
               {"achieved", a.achieved(s)},
               {"items", a.items[s]},
               {"units", a.units[s]}};
    // The tier this split's file is written at, not its cases' (their "case_tier").
    if (source == "archive") split["export_tier"] = split_tier_name(o, a.split_names[s]);
    splits.push_back(std::move(split));
  }
  m["splits"] = splits;
  m["max_deviation"] = a.max_deviation();
  if (balanced) m["balanced_max_deviation"] = balanced->max_deviation();
  if (!unit_list.is_null()) m["unit_list"] = unit_list;
  Json digests = Json::object();
  for (const auto& [name, hex] : files) digests[name] = hex;
  m["files"] = digests;
  return m;
}

// Stable mode also computes the balanced assignment, to report what it costs.
struct Assignments {
  Assignment chosen;
  std::optional<Assignment> balanced;
};

Result<Assignments> assign_both(const Partition& p, const SplitRequest& o) {
  FAILMAP_TRY_ASSIGN(auto a, assign(p, o, o.stable ? SplitMode::Stable : SplitMode::Balanced));
  Assignments out{std::move(a), std::nullopt};
  if (o.stable) {
    auto b = assign(p, o, SplitMode::Balanced);
    if (b) out.balanced = std::move(*b);
  }
  return out;
}

std::string json_string(std::string_view s) {
  std::string out;
  append_python_json_string(out, s);
  return out;
}

// One assignments.jsonl line: {"id":ID,"unit":KEY,"split":NAME}.
void append_assignment(std::string& out, std::string_view id_json, std::string_view unit_json,
                       std::string_view split_json) {
  out += "{\"id\":";
  out += id_json;
  out += ",\"unit\":";
  out += unit_json;
  out += ",\"split\":";
  out += split_json;
  out += "}\n";
}

// Writes manifest.json (signed with --sign) and moves the folder into place;
// returns the manifest written.
Result<Json> finish_folder(HashedFolderWriter& folder, const SplitRequest& o, const Partition& p, const Assignments& a,
                           const std::string& source, const Json& group_by, const std::string& input_digest,
                           std::optional<std::uint64_t> runs = std::nullopt, const Json& unit_list = Json()) {
  Json m = manifest(o, p, a.chosen, a.balanced ? &*a.balanced : nullptr, source, group_by, input_digest,
                    folder.digests(), runs, unit_list);
  std::optional<std::filesystem::path> key;
  if (!o.sign.empty()) key = o.sign;
  FAILMAP_TRY(folder.finish(dump_compact(m) + "\n", key));
  return m;
}

// With --sign: that the key can sign, before anything is read or written.
Status check_sign_key(const SplitRequest& o) {
  return o.sign.empty() ? ok_status() : ed25519_check_private_key(o.sign);
}

// The handles of a split folder's files: SPLIT.jsonl for every split of
// the assignment, in its order, and assignments.jsonl.
struct SplitFiles {
  std::vector<std::size_t> splits;
  std::size_t assignments = 0;
};

Result<SplitFiles> open_split_files(HashedFolderWriter& folder, const Assignment& a) {
  SplitFiles files;
  for (const std::string& name : a.split_names) {
    FAILMAP_TRY_ASSIGN(auto f, folder.open(name + ".jsonl"));
    files.splits.push_back(f);
  }
  FAILMAP_TRY_ASSIGN(auto assignments, folder.open("assignments.jsonl"));
  files.assignments = assignments;
  return files;
}

}  // namespace

Result<SplitOutcome> split_listing(const SplitRequest& o) {
  if (o.group_by_given)
    return input_error(
        "--group-by: not with --input, whose items are linked by their --group-field values "
        "(--group-by tags or content groups the archive's cases)");
  if (o.test_tier_given)
    return input_error(
        "--test-tier: not with --input, whose lines are written as they are (the tier of "
        "records applies to the archive's cases)");
  if (o.format_given || !o.prompt_template.empty())
    return input_error(std::string(o.format_given ? "--format" : "--prompt-template") +
                       ": not with --input, whose lines are written as they are (task records are made "
                       "of the archive's cases)");
  FAILMAP_TRY(check_sign_key(o));
  auto listing = read_listing(o.input, o.group_fields);
  FAILMAP_TRY(check_interrupt());
  if (!listing) return listing.error();
  const Partition& p = listing->partition;
  if (p.item_count() == 0) return input_error(o.input + ": the listing holds no items");
  FAILMAP_TRY_ASSIGN(auto a, assign_both(p, o));
  FAILMAP_TRY(check_interrupt());
  const Assignment& as = a.chosen;
  FAILMAP_TRY_ASSIGN(auto folder, HashedFolderWriter::create(o.out));

  std::vector<std::string> unit_json(p.unit_count()), split_json(as.split_names.size());
  for (std::size_t u = 0; u < p.unit_count(); ++u) unit_json[u] = json_string(p.unit_keys[u]);
  for (std::size_t s = 0; s < split_json.size(); ++s) split_json[s] = json_string(as.split_names[s]);
  // Every line streamed to its file as it is assigned (HashedFolderWriter
  // buffers 1 MiB per file): the split files are never whole in memory.
  FAILMAP_TRY_ASSIGN(auto files, open_split_files(folder, as));
  std::string line;
  for (std::size_t i = 0; i < p.item_count(); ++i) {
    std::uint32_t u = p.unit_of[i];
    std::uint32_t s = as.split_of_unit[u];
    line.assign(listing->lines[i]);
    line += '\n';
    FAILMAP_TRY(folder.append(files.splits[s], line));
    line.clear();
    append_assignment(line, listing->id(i), unit_json[u], split_json[s]);
    FAILMAP_TRY(folder.append(files.assignments, line));
    if (i % 65536 == 0) FAILMAP_TRY(check_interrupt());
  }
  FAILMAP_TRY(check_interrupt());
  FAILMAP_TRY(folder.close_files());
  Json group_by = Json::array();
  for (const std::string& f : o.group_fields) group_by.push_back("field:" + f);
  const std::string input_digest = sha256_hex(listing->text);
  // An interrupt after the last write still leaves nothing at --out.
  FAILMAP_TRY(check_interrupt());
  FAILMAP_TRY_ASSIGN(auto m, finish_folder(folder, o, p, a, "listing", group_by, input_digest));
  SplitOutcome out;
  out.partition = std::move(listing->partition);
  out.chosen = std::move(a.chosen);
  out.balanced = std::move(a.balanced);
  out.manifest = std::move(m);
  return out;
}

Result<SplitOutcome> split_archive(const SplitRequest& o, const std::function<Result<Archive>()>& open_archive) {
  if (!o.group_fields.empty()) return input_error("--group-field needs --input ITEMS.jsonl");
  if (o.group_by != "tags" && o.group_by != "content")
    return input_error("--group-by: expected 'tags' (mechanism and evaluation_group) or 'content', got '" + o.group_by +
                       "'");
  FAILMAP_TRY_ASSIGN(auto tier, parse_tier(o.test_tier));
  if (o.format != "cases" && o.format != "tasks")
    return input_error("--format: expected cases (case and run records) or tasks (schema/TASKS.md), got '" + o.format +
                       "'");
  if (tier == Tier::Member && !k_build_has_repairs) return no_repairs_error("--test-tier member");
  if (!o.prompt_template.empty() && o.format != "tasks")
    return input_error("--prompt-template: only with --format tasks (the prompt of each task record)");
  FAILMAP_TRY(check_sign_key(o));
  FAILMAP_TRY_ASSIGN(auto prompt, o.prompt_template.empty()
                                      ? parse_prompt_template(k_default_prompt_template, "the default prompt template")
                                      : read_prompt_template(o.prompt_template));
  FAILMAP_TRY_ASSIGN(auto archive, open_archive());
  Transaction snapshot(archive.db(), Transaction::Mode::ReadSnapshot);  // both passes read the same cases
  FAILMAP_TRY(snapshot.begin());
  FAILMAP_TRY_ASSIGN(auto items,
                     load_archive_items(archive, o.group_by == "content" ? ItemsFor::SplitByContent : ItemsFor::Split));
  const Partition& p = items.units;
  FAILMAP_TRY_ASSIGN(auto a, assign_both(p, o));
  const Assignment& as = a.chosen;
  // The evaluation side, written at --test-tier: every split but "train",
  // or every fold.
  std::vector<Tier> split_tiers;
  for (const std::string& name : as.split_names) split_tiers.push_back(split_tier(o, name, tier));
  std::vector<std::set<std::string>> unit_mechanisms(p.unit_count());
  FAILMAP_TRY_ASSIGN(auto folder, HashedFolderWriter::create(o.out));

  // Pass 2: every case again in id order with its recorded runs (one scan),
  // each record appended to its split's file as it is made.
  FAILMAP_TRY_ASSIGN(auto files, open_split_files(folder, as));
  const std::vector<std::size_t>& split_file = files.splits;
  // With the stored case digests: a case or run changed outside failmap is
  // refused as export refuses it, not written into the splits.
  FAILMAP_TRY_ASSIGN(auto scan, archive.scan(Archive::ScanFields::CasesRunsSeals));
  constexpr std::size_t k_batch = 64;  // cases in memory at once (one of a large N holds hundreds of KB)
  std::vector<ArchivedCase> batch;
  std::string line;
  std::size_t i = 0;
  std::uint64_t runs_recorded = 0, runs_written = 0;
  for (;;) {
    FAILMAP_TRY(scan.read(batch, k_batch));
    if (batch.empty()) break;
    if (batch.size() > p.item_count() - i)
      return input_error(archive.db().path() + ": the archive changed while it was read");
    for (ArchivedCase& ac : batch) {
      FAILMAP_TRY(scan.decode(ac));
      const Case& c = ac.c;
      FAILMAP_TRY(checked_archived_case(ac, archive.db().path(), "Nothing was written.", &archive, true));
      std::uint32_t u = p.unit_of[i++];
      std::uint32_t s = as.split_of_unit[u];
      const Tier shown = split_tiers[s];
      unit_mechanisms[u].insert(c.mechanism);
      runs_recorded += ac.runs.size();
      if (o.format == "tasks") {
        FAILMAP_TRY_ASSIGN(auto m, case_mechanism(c));
        FAILMAP_TRY_ASSIGN(auto task, task_line(c, *m, p.unit_keys[u], shown, prompt));
        // The task record with the split it is in, for split check.
        line.assign(task, 0, task.size() - 2);
        line += ",\"split\":" + json_string(as.split_names[s]) + "}\n";
        FAILMAP_TRY(folder.append(split_file[s], line));
        line.clear();
        append_assignment(line, json_string(c.id), json_string(p.unit_keys[u]), json_string(as.split_names[s]));
        FAILMAP_TRY(folder.append(files.assignments, line));
        continue;
      }
      Json rec = bundle_case_record(c, shown);  // "case_tier": the case's; the split's is in manifest.json
      rec["unit"] = p.unit_keys[u];
      rec["split"] = as.split_names[s];
      line = dump_compact(rec);
      line += '\n';
      FAILMAP_TRY(folder.append(split_file[s], line));
      for (const StoredRunRow& row : ac.runs) {
        const RunRecord& r = row.run;
        if (!tier_shows(shown, r.strategy)) continue;  // the open tier never shows a repair
        ++runs_written;
        Json run = run_record(r);
        run["evaluation_group"] = c.evaluation_group;
        run["unit"] = p.unit_keys[u];
        run["split"] = as.split_names[s];
        line = dump_compact(run);
        line += '\n';
        FAILMAP_TRY(folder.append(split_file[s], line));
      }
      line.clear();
      append_assignment(line, json_string(c.id), json_string(p.unit_keys[u]), json_string(as.split_names[s]));
      FAILMAP_TRY(folder.append(files.assignments, line));
    }
  }
  if (i != p.item_count()) return input_error(archive.db().path() + ": the archive changed while it was read");
  FAILMAP_TRY(folder.close_files());
  Json group_by = Json::array({"mechanism", "evaluation_group"});
  if (o.group_by == "content") group_by.push_back("content");
  // An interrupt (Ctrl-C) after the last archive read still leaves nothing at --out.
  FAILMAP_TRY(check_interrupt());
  Json unit_list = Json::array();
  for (std::size_t u = 0; u < p.unit_count(); ++u)
    unit_list.push_back(Json{{"unit", p.unit_keys[u]},
                             {"items", p.unit_sizes[u]},
                             {"split", as.split_names[as.split_of_unit[u]]},
                             {"mechanisms", Json(unit_mechanisms[u])}});
  FAILMAP_TRY_ASSIGN(auto m, finish_folder(folder, o, p, a, "archive", group_by, "", runs_written, unit_list));
  SplitOutcome out;
  out.archive_path = archive.db().path();
  out.partition = std::move(items.units);
  out.chosen = std::move(a.chosen);
  out.balanced = std::move(a.balanced);
  out.unit_mechanisms = std::move(unit_mechanisms);
  out.runs_recorded = runs_recorded;
  out.manifest = std::move(m);
  return out;
}

std::string split_report(const SplitRequest& o, const SplitOutcome& r) {
  const Partition& p = r.partition;
  const Assignment& a = r.chosen;
  const std::string noun = o.input.empty() ? "case(s)" : "item(s)";
  std::ostringstream out;
  out << "split " << p.item_count() << " " << noun << " in " << p.unit_count() << " unit(s) (largest "
      << p.largest_unit() << ") into " << a.split_names.size() << (o.folds_given ? " folds" : " splits") << ", seed "
      << o.seed << ", " << (o.stable ? "stable" : "balanced") << "\n";
  std::size_t w = 8;
  for (const std::string& n : a.split_names) w = std::max(w, n.size() + 2);
  out << std::left << std::setw(static_cast<int>(w)) << "SPLIT" << std::setw(11) << "REQUESTED" << std::setw(10)
      << "ACHIEVED" << std::setw(10) << "ITEMS"
      << "UNITS\n";
  for (std::size_t s = 0; s < a.split_names.size(); ++s)
    out << std::left << std::setw(static_cast<int>(w)) << a.split_names[s] << std::setw(11) << share4(a.requested[s])
        << std::setw(10) << share4(a.achieved(s)) << std::setw(10) << a.items[s] << a.units[s] << "\n";
  double bound = static_cast<double>(p.largest_unit()) / static_cast<double>(p.item_count());
  out << "max deviation " << pct(a.max_deviation()) << " pp";
  if (!o.stable) out << " (guaranteed below one largest unit: " << pct(bound) << " pp)";
  out << "\n";
  if (r.balanced)
    out << "stable mode gives up balance: " << pct(a.max_deviation()) << " pp vs " << pct(r.balanced->max_deviation())
        << " pp balanced with the same seed\n";
  if (!o.input.empty()) return out.str();
  // The units of an archive split, largest first (ties in key order).
  std::vector<std::uint32_t> order(p.unit_count());
  for (std::uint32_t u = 0; u < order.size(); ++u) order[u] = u;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return p.unit_sizes[x] > p.unit_sizes[y]; });
  std::size_t uw = 6, sw = 7;
  for (const std::string& k : p.unit_keys) uw = std::max(uw, k.size() + 2);
  for (const std::string& n : a.split_names) sw = std::max(sw, n.size() + 2);
  out << std::left << std::setw(static_cast<int>(uw)) << "UNIT" << std::setw(7) << "CASES" << std::setw(9) << "SHARE"
      << std::setw(static_cast<int>(sw)) << "SPLIT"
      << "MECHANISMS\n";
  for (std::uint32_t u : order) {
    std::string names;
    for (const std::string& m : r.unit_mechanisms[u]) names += (names.empty() ? "" : ", ") + m;
    out << std::left << std::setw(static_cast<int>(uw)) << p.unit_keys[u] << std::setw(7) << p.unit_sizes[u]
        << std::setw(9) << (pct(static_cast<double>(p.unit_sizes[u]) / static_cast<double>(p.item_count())) + "%")
        << std::setw(static_cast<int>(sw)) << a.split_names[a.split_of_unit[u]] << names << "\n";
  }
  return out.str();
}

std::vector<std::string> large_unit_warnings(const SplitRequest& o, const SplitOutcome& r) {
  const Partition& p = r.partition;
  const Assignment& a = r.chosen;
  std::vector<std::string> out;
  if (a.requested.empty()) return out;
  std::size_t smallest = 0;
  for (std::size_t s = 1; s < a.requested.size(); ++s)
    if (a.requested[s] < a.requested[smallest]) smallest = s;
  for (std::size_t u = 0; u < p.unit_count(); ++u) {
    double share = static_cast<double>(p.unit_sizes[u]) / static_cast<double>(p.item_count());
    if (share > a.requested[smallest])
      out.push_back("unit " + p.unit_keys[u] + " holds " + std::to_string(p.unit_sizes[u]) + " of " +
                    std::to_string(p.item_count()) + " " + (o.input.empty() ? "case(s)" : "item(s)") + " (" +
                    pct(share) + "%), more than the " + share4(a.requested[smallest]) + " asked for split " +
                    a.split_names[smallest] + ": no assignment can balance the splits");
  }
  return out;
}

std::vector<std::string> SplitAudit::where_claimed(const std::string& id) const {
  std::vector<std::string> where;
  for (const FolderClaim& c : claims)
    if (c.claim.id == id) where.push_back(c.where);
  return where;
}

Result<SplitAudit> audit_split_folder(const SplitCheckRequest& o,
                                      const std::function<Result<Archive>()>& open_archive) {
  SplitAudit a;
  a.listing = !o.input.empty();
  if (!a.listing && !o.group_fields.empty()) return input_error("--group-field needs --input ITEMS.jsonl");
  FAILMAP_TRY_ASSIGN(a.claims, read_split_folder(o.dir, a.listing));
  // The claims are audited where they are: a copy as SplitClaims held
  // every id and split name twice (702 MiB at 1,000,000 cases).
  const auto claim_at = [&a](std::size_t c) -> const SplitClaim& { return a.claims[c].claim; };
  Partition units, content;
  std::vector<std::string> ids;
  if (a.listing) {
    FAILMAP_TRY_ASSIGN(auto listing, read_listing(o.input, o.group_fields));
    ids.reserve(listing.id_end.size());
    for (std::size_t i = 0; i < listing.id_end.size(); ++i) ids.emplace_back(listing.id(i));
    units = std::move(listing.partition);
  } else {
    FAILMAP_TRY_ASSIGN(auto archive, open_archive());
    Transaction snapshot(archive.db(), Transaction::Mode::ReadSnapshot);  // the count and the rows of one archive state
    FAILMAP_TRY(snapshot.begin());
    FAILMAP_TRY_ASSIGN(auto items, load_archive_items(archive, ItemsFor::Check));
    ids = std::move(items.ids);
    units = std::move(items.units);
    content = std::move(items.content);
  }
  a.by_unit = audit_claims(units, ids, a.claims.size(), claim_at);
  if (!a.listing) a.by_content = audit_claims(content, ids, a.claims.size(), claim_at);
  a.duplicates = duplicate_claims(a.claims);
  a.items = ids.size();
  a.units = units.unit_count();
  return a;
}

std::string rescaled_note(const SplitRequest& o, const SplitOutcome& r) {
  std::vector<SplitShare> given = rescaled_shares(o);
  if (given.empty()) return "";
  std::int64_t sum = 0;
  for (const SplitShare& s : given) sum += s.ppb;
  std::string now;
  for (std::size_t s = 0; s < r.chosen.split_names.size(); ++s)
    now += (s ? "," : "") + r.chosen.split_names[s] + "=" + Json(r.chosen.requested[s]).dump();
  return "--ratios sum to " + Json(ppb_share(sum)).dump() + ", not 1; normalised to " + now;
}

}  // namespace failmap
