// failmap split (--ratios NAME=SHARE,... | --folds K) --out DIR [--seed S] [--stable]
//               [--group-by content] [--test-tier open|member] [--format cases|tasks]
//               [--input ITEMS.jsonl --group-field F ...]
// failmap split check DIR [--input ITEMS.jsonl --group-field F ...]
//
// The algorithm and the folder format are in schema/SPLITS.md.
#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "cli/common.h"
#include "io/signature.h"
#include "store/exporter.h"
#include "store/units.h"
#include "core/split.h"
#include "io/bundle.h"
#include "io/case_file.h"
#include "io/json.h"
#include "io/listing.h"
#include "io/pyjson.h"
#include "io/sha256.h"
#include "io/split_folder.h"
#include "io/task.h"

namespace failmap::cli {
namespace {

struct SplitOptions {
  std::string ratios;
  int folds = 0;
  bool folds_given = false;  // --folds appeared (a given 0 is refused by assign_folds, not taken as absent)
  std::uint64_t seed = 0;
  std::string out;
  bool json = false;  // print manifest.json (one object) instead of the text report
  bool stable = false;
  std::string group_by = "tags";
  std::string test_tier = "open";
  std::string format = "cases";
  std::string prompt_template;  // --prompt-template FILE (with --format tasks)
  std::string sign;             // --sign KEY.pem: sign manifest.json
  std::string input;
  std::vector<std::string> group_fields;
  bool group_by_given = false;   // --group-by appeared (an archive option)
  bool test_tier_given = false;  // --test-tier appeared (an archive option)
  bool format_given = false;     // --format appeared (an archive option)
};

struct CheckOptions {
  std::string dir;
  std::string input;
  std::vector<std::string> group_fields;
  bool json = false;
};

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

Result<Assignment> assign(const Partition& p, const SplitOptions& o, SplitMode mode) {
  if (o.folds_given) return assign_folds(p, o.folds, o.seed, mode);
  auto shares = parse_ratios(o.ratios);
  if (!shares) return shares.error();
  return assign_ratios(p, *shares, o.seed, mode);
}

constexpr std::int64_t k_ppb_one = 1'000'000'000;  // SplitShare::ppb of a share of 1

// The shares as given when they do not sum to exactly 1, so that parse_ratios
// divides each by their sum (schema/SPLITS.md "Ratios"); empty for --folds and
// for shares summing to 1. Called after the split succeeded: o.ratios parses.
std::vector<SplitShare> rescaled_shares(const SplitOptions& o) {
  if (o.folds_given) return {};
  auto shares = parse_ratios(o.ratios);
  if (!shares) return {};
  std::int64_t sum = 0;
  for (const SplitShare& s : *shares) sum += s.ppb;
  if (sum == k_ppb_one) return {};
  return std::move(*shares);
}

double ppb_share(std::int64_t ppb) { return static_cast<double>(ppb) / static_cast<double>(k_ppb_one); }

// stderr, unless --quiet: "failmap: note: --ratios sum to 0.999, not 1; normalised to train=0.8008…,test=0.1991…".
void note_rescaled(const Context& ctx, const SplitOptions& o, const Assignment& a) {
  std::vector<SplitShare> given = rescaled_shares(o);
  if (ctx.quiet || given.empty()) return;
  std::int64_t sum = 0;
  for (const SplitShare& s : given) sum += s.ppb;
  std::string now;
  for (std::size_t s = 0; s < a.split_names.size(); ++s)
    now += (s ? "," : "") + a.split_names[s] + "=" + Json(a.requested[s]).dump();
  std::cerr << "failmap: note: --ratios sum to " << Json(ppb_share(sum)).dump() << ", not 1; normalised to " << now
            << "\n";
}

// The tier the split named `name` of an archive split is written at: every
// split but "train" (every fold) at --test-tier; train at the member tier,
// except in the open build.
Tier split_tier(const SplitOptions& o, const std::string& name, Tier test_tier) {
  if (o.folds_given || name != "train") return test_tier;
  return k_build_has_repairs ? Tier::Member : Tier::Open;
}

std::string split_tier_name(const SplitOptions& o, const std::string& name) {
  auto test_tier = parse_tier(o.test_tier);  // checked before anything is written
  return std::string(tier_name(split_tier(o, name, test_tier ? *test_tier : Tier::Open)));
}

// manifest.json (schema/SPLITS.md "manifest.json"): everything needed to
// reproduce and judge the split; no paths, no clock.
Json manifest(const SplitOptions& o, const Partition& p, const Assignment& a, const Assignment* balanced,
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

void print_report(const SplitOptions& o, const Partition& p, const Assignment& a, const Assignment* balanced,
                  const std::string& noun) {
  std::cout << "split " << p.item_count() << " " << noun << " in " << p.unit_count() << " unit(s) (largest "
            << p.largest_unit() << ") into " << a.split_names.size() << (o.folds_given ? " folds" : " splits")
            << ", seed " << o.seed << ", " << (o.stable ? "stable" : "balanced") << "\n";
  std::size_t w = 8;
  for (const std::string& n : a.split_names) w = std::max(w, n.size() + 2);
  std::cout << std::left << std::setw(static_cast<int>(w)) << "SPLIT" << std::setw(11) << "REQUESTED" << std::setw(10)
            << "ACHIEVED" << std::setw(10) << "ITEMS"
            << "UNITS\n";
  for (std::size_t s = 0; s < a.split_names.size(); ++s)
    std::cout << std::left << std::setw(static_cast<int>(w)) << a.split_names[s] << std::setw(11)
              << share4(a.requested[s]) << std::setw(10) << share4(a.achieved(s)) << std::setw(10) << a.items[s]
              << a.units[s] << "\n";
  double bound = static_cast<double>(p.largest_unit()) / static_cast<double>(p.item_count());
  std::cout << "max deviation " << pct(a.max_deviation()) << " pp";
  if (!o.stable) std::cout << " (guaranteed below one largest unit: " << pct(bound) << " pp)";
  std::cout << "\n";
  if (balanced)
    std::cout << "stable mode gives up balance: " << pct(a.max_deviation()) << " pp vs "
              << pct(balanced->max_deviation()) << " pp balanced with the same seed\n";
}

// The units of an archive split, largest first (ties in key order):
//   UNIT  CASES  SHARE  SPLIT  MECHANISMS
void print_units(const Partition& p, const Assignment& a, const std::vector<std::set<std::string>>& mechanisms) {
  std::vector<std::uint32_t> order(p.unit_count());
  for (std::uint32_t u = 0; u < order.size(); ++u) order[u] = u;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return p.unit_sizes[x] > p.unit_sizes[y]; });
  std::size_t w = 6, sw = 7;
  for (const std::string& k : p.unit_keys) w = std::max(w, k.size() + 2);
  for (const std::string& n : a.split_names) sw = std::max(sw, n.size() + 2);
  std::cout << std::left << std::setw(static_cast<int>(w)) << "UNIT" << std::setw(7) << "CASES" << std::setw(9)
            << "SHARE" << std::setw(static_cast<int>(sw)) << "SPLIT"
            << "MECHANISMS\n";
  for (std::uint32_t u : order) {
    std::string names;
    for (const std::string& m : mechanisms[u]) names += (names.empty() ? "" : ", ") + m;
    std::cout << std::left << std::setw(static_cast<int>(w)) << p.unit_keys[u] << std::setw(7) << p.unit_sizes[u]
              << std::setw(9) << (pct(static_cast<double>(p.unit_sizes[u]) / static_cast<double>(p.item_count())) + "%")
              << std::setw(static_cast<int>(sw)) << a.split_names[a.split_of_unit[u]] << names << "\n";
  }
}

// stderr, unless --quiet: a unit larger than the smallest share asked for
// keeps the split from being balanced, whatever the seed.
void warn_large_units(const Context& ctx, const Partition& p, const Assignment& a, const std::string& noun) {
  if (ctx.quiet || a.requested.empty()) return;
  std::size_t smallest = 0;
  for (std::size_t s = 1; s < a.requested.size(); ++s)
    if (a.requested[s] < a.requested[smallest]) smallest = s;
  for (std::size_t u = 0; u < p.unit_count(); ++u) {
    double share = static_cast<double>(p.unit_sizes[u]) / static_cast<double>(p.item_count());
    if (share > a.requested[smallest])
      std::cerr << "failmap: warning: unit " << terminal_safe(p.unit_keys[u]) << " holds " << p.unit_sizes[u] << " of "
                << p.item_count() << " " << noun << " (" << pct(share) << "%), more than the "
                << share4(a.requested[smallest]) << " asked for split " << a.split_names[smallest]
                << ": no assignment can balance the splits\n";
  }
}

// --json: the manifest.json just written, as one compact line on stdout.
int print_manifest_json(const SplitOptions& o) {
  std::ifstream in(std::filesystem::path(o.out) / "manifest.json", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto j = parse_json_strict(text, (std::filesystem::path(o.out) / "manifest.json").string());
  if (!j) return report(j.error());
  std::cout << dump_compact(*j) << "\n";
  return k_exit_ok;
}

// Stable mode also computes the balanced assignment, to report what it costs.
struct Assignments {
  Assignment chosen;
  std::optional<Assignment> balanced;
};

Result<Assignments> assign_both(const Partition& p, const SplitOptions& o) {
  auto a = assign(p, o, o.stable ? SplitMode::Stable : SplitMode::Balanced);
  if (!a) return a.error();
  Assignments out{std::move(*a), std::nullopt};
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

Status finish_folder(SplitFolderWriter& folder, const SplitOptions& o, const Partition& p, const Assignments& a,
                     const std::string& source, const Json& group_by, const std::string& input_digest,
                     std::optional<std::uint64_t> runs = std::nullopt, const Json& unit_list = Json()) {
  Json m = manifest(o, p, a.chosen, a.balanced ? &*a.balanced : nullptr, source, group_by, input_digest,
                    folder.digests(), runs, unit_list);
  std::optional<std::filesystem::path> key;
  if (!o.sign.empty()) key = o.sign;
  return folder.finish(dump_compact(m) + "\n", key);
}

// With --sign: that the key can sign, before anything is read or written.
Status check_sign_key(const SplitOptions& o) {
  return o.sign.empty() ? ok_status() : ed25519_check_private_key(o.sign);
}

// stderr, unless --quiet, after a signed split: how to check the folder.
void note_signed(const Context& ctx, const SplitOptions& o) {
  if (!ctx.quiet && !o.sign.empty())
    std::cerr << "signed " << terminal_safe(o.out) << " (" << verify_advice(o.out, o.sign) << ")\n";
}

// The handles of a split folder's files: SPLIT.jsonl for every split of
// the assignment, in its order, and assignments.jsonl.
struct SplitFiles {
  std::vector<std::size_t> splits;
  std::size_t assignments = 0;
};

Result<SplitFiles> open_split_files(SplitFolderWriter& folder, const Assignment& a) {
  SplitFiles files;
  for (const std::string& name : a.split_names) {
    auto f = folder.open(name + ".jsonl");
    if (!f) return f.error();
    files.splits.push_back(*f);
  }
  auto assignments = folder.open("assignments.jsonl");
  if (!assignments) return assignments.error();
  files.assignments = *assignments;
  return files;
}

// Run under run_interruptible: a SIGINT or SIGTERM stops it at its next step
// (a read cut short by the signal is not reported as the listing's fault),
// and the staging folder is removed, so nothing appears beside --out.
int run_split_listing(Context& ctx, const SplitOptions& o) {
  if (o.group_by_given)
    return report(
        input_error("--group-by: not with --input, whose items are linked by their --group-field values "
                    "(--group-by tags or content groups the archive's cases)"));
  if (o.test_tier_given)
    return report(
        input_error("--test-tier: not with --input, whose lines are written as they are (the tier of "
                    "records applies to the archive's cases)"));
  if (o.format_given || !o.prompt_template.empty())
    return report(input_error(std::string(o.format_given ? "--format" : "--prompt-template") +
                              ": not with --input, whose lines are written as they are (task records are made "
                              "of the archive's cases)"));
  if (Status st = check_sign_key(o); !st) return report(st.error());
  auto listing = read_listing(o.input, o.group_fields);
  if (Status st = check_interrupt(); !st) return report(st.error());
  if (!listing) return report(listing.error());
  const Partition& p = listing->partition;
  if (p.item_count() == 0) return report(input_error(o.input + ": the listing holds no items"));
  auto a = assign_both(p, o);
  if (!a) return report(a.error());
  if (Status st = check_interrupt(); !st) return report(st.error());
  const Assignment& as = a->chosen;
  auto folder = SplitFolderWriter::create(o.out);
  if (!folder) return report(folder.error());

  std::vector<std::string> unit_json(p.unit_count()), split_json(as.split_names.size());
  for (std::size_t u = 0; u < p.unit_count(); ++u) unit_json[u] = json_string(p.unit_keys[u]);
  for (std::size_t s = 0; s < split_json.size(); ++s) split_json[s] = json_string(as.split_names[s]);
  // Every line streamed to its file as it is assigned (SplitFolderWriter
  // buffers 1 MiB per file): the split files are never whole in memory.
  auto files = open_split_files(*folder, as);
  if (!files) return report(files.error());
  std::string line;
  for (std::size_t i = 0; i < p.item_count(); ++i) {
    std::uint32_t u = p.unit_of[i];
    std::uint32_t s = as.split_of_unit[u];
    line.assign(listing->lines[i]);
    line += '\n';
    if (Status st = folder->append(files->splits[s], line); !st) return report(st.error());
    line.clear();
    append_assignment(line, listing->id(i), unit_json[u], split_json[s]);
    if (Status st = folder->append(files->assignments, line); !st) return report(st.error());
    if (i % 65536 == 0)
      if (Status st = check_interrupt(); !st) return report(st.error());
  }
  if (Status st = check_interrupt(); !st) return report(st.error());
  if (Status st = folder->close_files(); !st) return report(st.error());
  Json group_by = Json::array();
  for (const std::string& f : o.group_fields) group_by.push_back("field:" + f);
  const std::string input_digest = sha256_hex(listing->text);
  // An interrupt after the last write still leaves nothing at --out.
  if (Status st = check_interrupt(); !st) return report(st.error());
  if (Status st = finish_folder(*folder, o, p, *a, "listing", group_by, input_digest); !st) return report(st.error());
  note_rescaled(ctx, o, as);
  note_signed(ctx, o);
  if (o.json) return print_manifest_json(o);
  print_report(o, p, as, a->balanced ? &*a->balanced : nullptr, "item(s)");  // stdout: --quiet quiets stderr only
  return k_exit_ok;
}

int run_split_archive(Context& ctx, const SplitOptions& o) {
  if (!o.group_fields.empty()) return report(input_error("--group-field needs --input ITEMS.jsonl"));
  if (o.group_by != "tags" && o.group_by != "content")
    return report(input_error("--group-by: expected 'tags' (mechanism and evaluation_group) or 'content', got '" +
                              o.group_by + "'"));
  auto tier = parse_tier(o.test_tier);
  if (!tier) return report(tier.error());
  if (o.format != "cases" && o.format != "tasks")
    return report(input_error("--format: expected cases (case and run records) or tasks (schema/TASKS.md), got '" +
                              o.format + "'"));
  if (*tier == Tier::Member && !k_build_has_repairs) return report(no_repairs_error("--test-tier member"));
  if (!o.prompt_template.empty() && o.format != "tasks")
    return report(input_error("--prompt-template: only with --format tasks (the prompt of each task record)"));
  if (Status st = check_sign_key(o); !st) return report(st.error());
  auto prompt = o.prompt_template.empty()
                    ? parse_prompt_template(k_default_prompt_template, "the default prompt template")
                    : read_prompt_template(o.prompt_template);
  if (!prompt) return report(prompt.error());
  auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
  if (!archive) return report(archive.error());
  Transaction snapshot(archive->db(), Transaction::Mode::ReadSnapshot);  // both passes read the same cases
  if (Status st = snapshot.begin(); !st) return report(st.error());
  auto items = load_archive_items(*archive, o.group_by == "content" ? ItemsFor::SplitByContent : ItemsFor::Split);
  if (!items) return report(items.error());
  const Partition& p = items->units;
  auto a = assign_both(p, o);
  if (!a) return report(a.error());
  const Assignment& as = a->chosen;
  // The evaluation side, written at --test-tier: every split but "train",
  // or every fold.
  std::vector<Tier> split_tiers;
  for (const std::string& name : as.split_names) split_tiers.push_back(split_tier(o, name, *tier));
  std::vector<std::set<std::string>> unit_mechanisms(p.unit_count());
  auto folder = SplitFolderWriter::create(o.out);
  if (!folder) return report(folder.error());

  // Pass 2: every case again in id order with its recorded runs (one scan),
  // each record appended to its split's file as it is made.
  auto files = open_split_files(*folder, as);
  if (!files) return report(files.error());
  const std::vector<std::size_t>& split_file = files->splits;
  // With the stored case digests: a case or run changed outside failmap is
  // refused as export refuses it, not written into the splits.
  auto scan = archive->scan(Archive::ScanFields::CasesRunsSeals);
  if (!scan) return report(scan.error());
  constexpr std::size_t k_batch = 64;  // cases in memory at once (one of a large N holds hundreds of KB)
  std::vector<ArchivedCase> batch;
  std::string line;
  std::size_t i = 0;
  std::uint64_t runs_recorded = 0, runs_written = 0;
  for (;;) {
    if (Status st = scan->read(batch, k_batch); !st) return report(st.error());
    if (batch.empty()) break;
    if (batch.size() > p.item_count() - i)
      return report(input_error(archive->db().path() + ": the archive changed while it was read"));
    for (ArchivedCase& ac : batch) {
      if (Status st = scan->decode(ac); !st) return report(st.error());
      const Case& c = ac.c;
      if (auto digest = checked_archived_case(ac, archive->db().path(), "Nothing was written.", &*archive, true);
          !digest)
        return report(digest.error());
      std::uint32_t u = p.unit_of[i++];
      std::uint32_t s = as.split_of_unit[u];
      const Tier shown = split_tiers[s];
      unit_mechanisms[u].insert(c.mechanism);
      runs_recorded += ac.runs.size();
      if (o.format == "tasks") {
        auto m = case_mechanism(c);
        if (!m) return report(m.error());
        auto task = task_line(c, **m, p.unit_keys[u], shown, *prompt);
        if (!task) return report(task.error());
        // The task record with the split it is in, for split check.
        line.assign(*task, 0, task->size() - 2);
        line += ",\"split\":" + json_string(as.split_names[s]) + "}\n";
        if (Status st = folder->append(split_file[s], line); !st) return report(st.error());
        line.clear();
        append_assignment(line, json_string(c.id), json_string(p.unit_keys[u]), json_string(as.split_names[s]));
        if (Status st = folder->append(files->assignments, line); !st) return report(st.error());
        continue;
      }
      Json rec = bundle_case_record(c, shown);  // "case_tier": the case's; the split's is in manifest.json
      rec["unit"] = p.unit_keys[u];
      rec["split"] = as.split_names[s];
      line = dump_compact(rec);
      line += '\n';
      if (Status st = folder->append(split_file[s], line); !st) return report(st.error());
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
        if (Status st = folder->append(split_file[s], line); !st) return report(st.error());
      }
      line.clear();
      append_assignment(line, json_string(c.id), json_string(p.unit_keys[u]), json_string(as.split_names[s]));
      if (Status st = folder->append(files->assignments, line); !st) return report(st.error());
    }
  }
  if (i != p.item_count()) return report(input_error(archive->db().path() + ": the archive changed while it was read"));
  if (Status st = folder->close_files(); !st) return report(st.error());
  Json group_by = Json::array({"mechanism", "evaluation_group"});
  if (o.group_by == "content") group_by.push_back("content");
  // An interrupt (Ctrl-C) after the last archive read still leaves nothing at --out.
  if (Status st = check_interrupt(); !st) return report(st.error());
  Json unit_list = Json::array();
  for (std::size_t u = 0; u < p.unit_count(); ++u)
    unit_list.push_back(Json{{"unit", p.unit_keys[u]},
                             {"items", p.unit_sizes[u]},
                             {"split", as.split_names[as.split_of_unit[u]]},
                             {"mechanisms", Json(unit_mechanisms[u])}});
  if (Status st = finish_folder(*folder, o, p, *a, "archive", group_by, "", runs_written, unit_list); !st)
    return report(st.error());
  note_rescaled(ctx, o, as);
  note_signed(ctx, o);
  warn_large_units(ctx, p, as, "case(s)");
  // A warning, not chatter: printed with --quiet too.
  if (runs_recorded == 0 && o.format == "cases")
    std::cerr << "failmap: note: " << terminal_safe(archive->db().path())
              << " holds no recorded runs: the split files hold case records only (manifest.json \"runs\": 0; "
                 "`failmap run --all` records them, then split again)\n";
  if (o.json) return print_manifest_json(o);
  // stdout: --quiet quiets stderr only
  print_report(o, p, as, a->balanced ? &*a->balanced : nullptr, "case(s)");
  print_units(p, as, unit_mechanisms);
  return k_exit_ok;
}

int run_split(Context& ctx, const SplitOptions& o) {
  if (o.out.empty()) return report(input_error("split: --out DIR is required"));
  if (o.ratios.empty() == !o.folds_given)
    return report(input_error("split: give exactly one of --ratios NAME=SHARE,... and --folds K"));
  return run_interruptible([&] { return o.input.empty() ? run_split_archive(ctx, o) : run_split_listing(ctx, o); },
                           "nothing was written to " + o.out);
}

// "a, b, c" (the FILE:LINE places of one finding).
std::string comma_list(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// Prints every finding of one audit; returns true when clean.
bool print_audit(const AuditResult& r, const std::vector<FolderClaim>& claims, const char* what) {
  for (const Straddle& s : r.straddles) {
    std::string splits;
    for (const auto& [split, id] : s.members)
      if (splits.find(" " + split + ",") == std::string::npos && !splits.ends_with(" " + split))
        splits += (splits.empty() ? " " : ", ") + split;
    std::cout << what << " " << s.unit_key << " is in more than one split:\n";
    std::string current;
    for (const auto& [split, id] : s.members) {
      if (split != current) std::cout << (current.empty() ? "" : "\n") << "  " << split << ":";
      current = split;
      std::cout << " " << id;
    }
    std::cout << "\n";
  }
  (void)claims;
  return r.straddles.empty();
}

int run_check(Context& ctx, const CheckOptions& o) {
  const bool listing_mode = !o.input.empty();
  if (!listing_mode && !o.group_fields.empty()) return report(input_error("--group-field needs --input ITEMS.jsonl"));
  auto claims = read_split_folder(o.dir, listing_mode);
  if (!claims) return report(claims.error());
  // The claims are audited where they are: a copy as SplitClaims held
  // every id and split name twice (702 MiB at 1,000,000 cases).
  const auto claim_at = [&claims](std::size_t c) -> const SplitClaim& { return (*claims)[c].claim; };

  Partition units, content;
  std::vector<std::string> ids;
  if (listing_mode) {
    auto listing = read_listing(o.input, o.group_fields);
    if (!listing) return report(listing.error());
    ids.reserve(listing->id_end.size());
    for (std::size_t i = 0; i < listing->id_end.size(); ++i) ids.emplace_back(listing->id(i));
    units = std::move(listing->partition);
  } else {
    auto archive = open_archive(ctx, Archive::Mode::ReadOnly);
    if (!archive) return report(archive.error());
    Transaction snapshot(archive->db(),
                         Transaction::Mode::ReadSnapshot);  // the count and the rows of one archive state
    if (Status st = snapshot.begin(); !st) return report(st.error());
    auto items = load_archive_items(*archive, ItemsFor::Check);
    if (!items) return report(items.error());
    ids = std::move(items->ids);
    units = std::move(items->units);
    content = std::move(items->content);
  }
  AuditResult by_unit = audit_claims(units, ids, claims->size(), claim_at);
  std::optional<AuditResult> by_content;
  if (!listing_mode) by_content = audit_claims(content, ids, claims->size(), claim_at);
  auto where_claimed = [&](const std::string& id) {
    std::vector<std::string> where;
    for (const FolderClaim& c : *claims)
      if (c.claim.id == id) where.push_back(c.where);
    return where;
  };
  const std::vector<DuplicateClaim> duplicates = duplicate_claims(*claims);
  bool clean = by_unit.clean() && (!by_content || by_content->straddles.empty()) && duplicates.empty();
  if (o.json) {
    Json leaks = Json::array();
    auto add_leaks = [&](const AuditResult& r, const char* kind) {
      for (const Straddle& st : r.straddles) {
        Json members = Json::array();
        for (const auto& [split, id] : st.members) members.push_back(Json{{"split", split}, {"id", id}});
        leaks.push_back(Json{{"kind", kind}, {"unit", st.unit_key}, {"members", members}});
      }
    };
    add_leaks(by_unit, "unit");
    if (by_content) add_leaks(*by_content, "duplicate content");
    Json unknown = Json::array();
    for (const std::string& id : by_unit.unknown_ids) unknown.push_back(Json{{"id", id}, {"where", where_claimed(id)}});
    Json repeated = Json::array();
    for (const DuplicateClaim& d : duplicates)
      repeated.push_back(Json{{"id", d.id}, {"split", d.split}, {"where", d.where}});
    std::cout << dump_compact(Json{{"clean", clean},
                                   {"lines", claims->size()},
                                   {"claimed_items", by_unit.claimed_items},
                                   {"items", ids.size()},
                                   {"units", units.unit_count()},
                                   {"leaks", leaks},
                                   {"unknown_ids", unknown},
                                   {"duplicates", repeated}})
              << "\n";
    return clean ? k_exit_ok : k_exit_mismatch;
  }
  TerminalSafeStdout safe;  // ids, unit keys and file names come from the audited files
  print_audit(by_unit, *claims, "LEAK: unit");
  if (by_content) print_audit(*by_content, *claims, "LEAK: duplicate content");
  for (const std::string& id : by_unit.unknown_ids) {
    std::cout << "UNKNOWN: id " << id << " is no " << (listing_mode ? "item of the listing" : "case in the archive")
              << " (" << comma_list(where_claimed(id)) << ")\n";
  }
  for (const DuplicateClaim& d : duplicates)
    std::cout << "DUPLICATE: id " << d.id << " is listed " << d.where.size() << " times for split " << d.split << " ("
              << comma_list(d.where) << ")\n";
  std::cout << (clean ? "clean" : "LEAKING") << ": " << claims->size() << " line(s), " << by_unit.claimed_items
            << " of " << ids.size() << " " << (listing_mode ? "item(s)" : "case(s)") << " in " << units.unit_count()
            << " unit(s)\n";
  return clean ? k_exit_ok : k_exit_mismatch;
}

}  // namespace

void setup_split(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<SplitOptions>();
  sub.add_option("--ratios", o->ratios,
                 "named shares summing to 1, e.g. train=0.8,test=0.2 (or train=0.7,dev=0.1,test=0.2)");
  CLI::Option* folds =
      sub.add_option("--folds", o->folds, "K folds instead of ratio splits (every unit in exactly one fold)");
  // A K above the number of units is named by assign_folds.
  folds->check(integer_validator(2, INT_MAX, "a whole number of folds"));
  sub.add_option("--seed", o->seed, "seed of the assignment (default 0); recorded in manifest.json")
      ->check(integer_validator(0, UINT64_MAX, "an integer"));
  sub.add_option("--out", o->out, "output folder (created; must be empty if it exists)")
      ->check(nonempty_validator("the path of an output folder"));
  sub.add_flag("--stable", o->stable, "hash bucketing: a unit's split depends only on seed and unit key");
  CLI::Option* group_by = sub.add_option("--group-by", o->group_by,
                                         "tags (mechanism + evaluation_group, default) or content (also link "
                                         "cases with identical fixtures)");
  CLI::Option* test_tier = sub.add_option("--test-tier", o->test_tier,
                                          "tier of every split but train (every fold with "
                                          "--folds): open (default: no repaired runs or source) or member");
  CLI::Option* format = sub.add_option("--format", o->format,
                                       "archive splits: cases (case and run records, default) "
                                       "or tasks (one task record per case, schema/TASKS.md)");
  sub.add_option("--prompt-template", o->prompt_template,
                 "with --format tasks: the template of each task's prompt, UTF-8 text with {{placeholders}} "
                 "(schema/TASKS.md \"Prompt\"; default: the template shown there)")
      ->check(nonempty_validator("the path of a prompt template"));
  sub.add_option("--sign", o->sign,
                 "Ed25519 private key (PEM, `openssl genpkey -algorithm ed25519`): writes manifest.json.sig, the raw "
                 "signature over manifest.json (`failmap verify-bundle DIR --pubkey PUB.pem` checks it)")
      ->check(nonempty_validator("the path of an Ed25519 private key (PEM)"));
  sub.add_option("--input", o->input, "split an external JSON Lines listing instead of the archive")
      ->check(nonempty_validator("the path of a listing"));
  sub.add_option("--group-field", o->group_fields, "with --input: a field whose values link items (repeatable)");
  sub.require_subcommand(0, 1);

  auto c = std::make_shared<CheckOptions>();
  sub.add_flag("--json", o->json,
               "print the split's manifest.json (one object: seed, ratios or folds, per split "
               "requested and achieved shares, items, units, file digests) instead of the report");
  CLI::App* check = sub.add_subcommand("check", "Audit a split folder for leakage: exit 0 clean, 1 leaking");
  check->add_option("dir", c->dir, "split folder: failmap's own, or *.jsonl files with id (and split) fields")
      ->required()
      ->check(nonempty_validator("the path of a split folder"));
  check->add_option("--input", c->input, "audit against this listing instead of the archive")
      ->check(nonempty_validator("the path of a listing"));
  check->add_option("--group-field", c->group_fields, "with --input: the group fields of the split");
  check->add_flag(
      "--json", c->json,
      "one JSON object: clean, lines, claimed_items, items, units, leaks [{kind, unit, members [{split, id}]}], "
      "unknown_ids [{id, where}], duplicates [{id, split, where}] (ids as the text report prints them)");
  // `split check` audits a folder: an option of the split itself (given
  // before `check`, or after it and handed up) is refused, not ignored.
  check->callback([&ctx, c, &sub] {
    for (const CLI::Option* opt : sub.get_options())
      if (opt->count() > 0 && opt->get_name() != "--help" && opt->get_name() != "--db" &&
          opt->get_name() != "--quiet") {
        ctx.exit_status =
            report(input_error(opt->get_name() + ": an option of `split`, not of `split check DIR`, which " +
                               "takes --input, --group-field and --json after `check`"));
        return;
      }
    ctx.exit_status = run_check(ctx, *c);
  });
  sub.callback([&ctx, o, check, folds, group_by, test_tier, format] {
    o->folds_given = folds->count() > 0;
    o->group_by_given = group_by->count() > 0;
    o->test_tier_given = test_tier->count() > 0;
    o->format_given = format->count() > 0;
    if (!check->parsed()) ctx.exit_status = run_split(ctx, *o);
  });
}

}  // namespace failmap::cli
