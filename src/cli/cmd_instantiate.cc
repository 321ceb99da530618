// failmap instantiate MECHANISM --param N=A..B [--id-prefix P] [--replace]
//
// Ids: "<P>-<mechanism id>-<N>" (P defaults to "V"), e.g. V-gradient-accumulation-weighting-17.
// Variant numbers: ((N - 1) mod 99) + 1 with Python's floor modulo, so every N
// maps into the schema's 1..99 and N = 1..99 keep their own number. Values
// below the mechanism's parameter_minimum (1 for N) are refused before the
// archive is opened.
#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "core/expr.h"
#include "encoding/sha256.h"
#include "store/importer.h"

namespace failmap::cli {
namespace {

struct InstantiateOptions {
  std::string mechanism;
  std::string param;
  std::string prefix = "V";
  bool replace = false;
  bool json = false;
};

inline constexpr std::int64_t k_max_variants = 10'000'000;

// The --param values "A..B" or "A" (then B = A) as integers; an Error
// names a bound beyond int64 or text that is no integer range.
Result<std::pair<std::int64_t, std::int64_t>> parse_param_range(const std::string& range) {
  const auto dots = range.find("..");
  std::string_view bounds[2] = {
      std::string_view(range).substr(0, dots),
      dots == std::string::npos ? std::string_view(range) : std::string_view(range).substr(dots + 2)};
  std::int64_t v[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    auto [p, ec] = std::from_chars(bounds[i].data(), bounds[i].data() + bounds[i].size(), v[i]);
    if (ec == std::errc::result_out_of_range)  // a run of digits beyond int64
      return input_error("--param: '" + std::string(bounds[i]) + "' is beyond the range of a 64-bit integer (at most " +
                         std::to_string(INT64_MAX) + ")");
    if (ec != std::errc() || p != bounds[i].data() + bounds[i].size() || (i == 1 && v[0] > v[1]))
      return input_error("--param: expected integers A..B with A <= B, got '" + range + "'");
  }
  return std::pair{v[0], v[1]};
}

int run_instantiate(Context& ctx, const InstantiateOptions& o) {
  const Mechanism* m = find_mechanism(o.mechanism);
  if (!m) return report(input_error("unknown mechanism '" + o.mechanism + "' (see `failmap mechanisms`)"));
  // --param NAME=A..B or NAME=A
  auto eq = o.param.find('=');
  if (eq == std::string::npos) return report(input_error("--param: expected NAME=A..B, got '" + o.param + "'"));
  std::string name = o.param.substr(0, eq);
  std::string range = o.param.substr(eq + 1);
  std::size_t param_index = m->parameters.size();
  for (std::size_t i = 0; i < m->parameters.size(); ++i)
    if (m->parameters[i] == name) param_index = i;
  if (param_index == m->parameters.size())
    return report(input_error("--param: mechanism " + o.mechanism + " has no parameter '" + name + "'"));
  auto bounds = parse_param_range(range);
  if (!bounds) return report(bounds.error());
  const auto [lo, hi] = *bounds;
  if (const std::int64_t min = m->parameter_minimum[param_index]; lo < min)
    return report(input_error("--param " + o.param + ": " + name + " = " + std::to_string(lo) +
                              " is outside the domain of " + std::string(m->id) + ": " + name +
                              " must be an integer >= " + std::to_string(min) + " (its fixture templates use " + name +
                              " as a size or count)"));
  if (hi - lo >= k_max_variants) return report(input_error("--param: at most 10,000,000 values per command"));
  Bindings params;
  for (std::size_t i = 0; i < m->parameters.size(); ++i) {
    if (i == param_index) {
      params.emplace_back(name, Value::integer(lo));
      continue;
    }
    auto v = evaluate_expression(i < m->default_binding.size() ? m->default_binding[i] : "", {});
    if (!v)
      return report(input_error("default binding of " + std::string(m->parameters[i]) + ": " + v.error().message));
    params.emplace_back(std::string(m->parameters[i]), std::move(*v));
  }
  std::string id_stem = o.prefix + "-" + std::string(m->id) + "-";
  if (!valid_case_id(id_stem + std::to_string(hi)) || !valid_case_id(id_stem + std::to_string(lo)))
    return report(input_error("--id-prefix: '" + id_stem + std::to_string(hi) +
                              "' is not a valid case id (1 to 64 characters of A-Z a-z 0-9 . _ -, no '..', "
                              "not starting with '.' or '-')"));

  bool existed = std::filesystem::exists(ctx.db_path);
  auto archive = open_archive(ctx, Archive::Mode::Create);
  if (!archive) return report(archive.error());
  ImportOptions options;
  options.on_conflict = o.replace ? OnConflict::Replace : OnConflict::Refuse;
  options.keep_ids = false;
  options.check_duplicates = false;  // one id per value of the range
  ImportSession session(*archive, options);
  if (auto s = session.begin(); !s) return report(s.error());
  // Variants this command makes whose checks (the fixture_values text of
  // their rows, schema/006: the [args, expected] pairs as json.dumps spells
  // them, what case_content_digest covers) equal those of a case already in
  // the archive are said, never made silently. Only when the archive held
  // cases: a new id's content digest, then one scan of the fixture texts.
  auto present = archive->has_cases();
  if (!present) return report(present.error());
  std::vector<std::pair<std::string, Sha256Bytes>> created;  // new variants, in the order made
  for (std::int64_t n = lo;; ++n) {
    params[param_index].second = Value::integer(n);
    std::int64_t variant = ((n - 1) % 99 + 99) % 99 + 1;
    if (n == INT64_MIN) variant = 1;  // not reachable through valid ids; keeps the arithmetic defined
    auto c = make_case(*m, id_stem + std::to_string(n), static_cast<int>(variant), params);
    if (c && *present) {
      auto exists = archive->has_case(c->id);
      if (!exists) return report(exists.error());
      if (!*exists) created.emplace_back(c->id, sha256_bytes(case_insert_texts(*c, nullptr).fixture_values));
    }
    if (!c) session.add_error(name + " = " + std::to_string(n) + ": " + c.error().message);
    else session.add_case(*c, name + " = " + std::to_string(n));
    if (session.errors().size() > 100 || n == hi)
      break;  // a template failing everywhere need not be said a million times
  }
  // The cases already in the archive holding the checks of a new variant.
  std::map<Sha256Bytes, std::vector<std::string>> same_as;
  if (!created.empty() && session.errors().empty()) {
    auto found = archive->cases_with_same_checks(created);
    if (!found) return report(found.error());
    same_as = std::move(*found);
  }
  auto r = session.finish();
  if (!r) {
    int status = report_refused_import(session.errors(), r.error());
    if (!existed) {
      std::error_code ec;
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(ctx.db_path + suffix, ec);
    }
    return status;
  }
  // stderr names at most k_noted_variants variants and k_noted_names cases
  // for each (instantiating N = 1..100 under a hundred prefixes would
  // otherwise print a quadratic wall); --json lists every one.
  constexpr std::size_t k_noted_variants = 10, k_noted_names = 3;
  Json same = Json::array();
  std::size_t unnoted = 0;
  for (const auto& [id, d] : created) {
    const std::vector<std::string>& as = same_as[d];
    if (as.empty()) continue;
    same.push_back(Json{{"id", id}, {"same_content_as", as}});
    if (same.size() > k_noted_variants) {
      ++unnoted;
      continue;
    }
    std::string names;
    for (std::size_t k = 0; k < as.size() && k < k_noted_names; ++k) names += (k == 0 ? "" : ", ") + as[k];
    if (as.size() > k_noted_names) names += " and " + std::to_string(as.size() - k_noted_names) + " other case(s)";
    std::cerr << "failmap: note: " << terminal_safe(id) << " has the same content (the same checks) as "
              << terminal_safe(names) << ", already in the archive (`failmap remove " << terminal_safe(id)
              << "` takes it out; split --group-by content keeps them on one side)\n";
  }
  if (unnoted > 0)
    std::cerr << "failmap: note: " << unnoted << " more new variant(s) have the same content as a case already in "
              << "the archive (`--json` lists them all under same_content)\n";
  if (o.json) {
    std::cout << dump_compact(Json{{"mechanism", m->id},
                                   {"parameter", name},
                                   {"from", lo},
                                   {"to", hi},
                                   {"cases", hi - lo + 1},
                                   {"new", r->added_count},
                                   {"replaced", r->replaced_count},
                                   {"unchanged", r->unchanged_count},
                                   {"runs_dropped", r->runs_dropped},
                                   {"first_id", id_stem + std::to_string(lo)},
                                   {"last_id", id_stem + std::to_string(hi)},
                                   {"same_content", same}})
              << "\n";
    return k_exit_ok;
  }
  std::cout << "instantiated " << (hi - lo + 1) << " case(s) of " << m->id << " (" << name << " = " << lo << ".." << hi
            << "): " << r->added_count << " new, " << r->replaced_count << " replaced, " << r->unchanged_count
            << " unchanged; ids " << id_stem << lo << " .. " << id_stem << hi << "\n"
            << dropped_runs_note(r->runs_dropped);
  return k_exit_ok;
}

}  // namespace

void setup_instantiate(CLI::App& sub, Context& ctx) {
  auto o = std::make_shared<InstantiateOptions>();
  sub.add_option("mechanism", o->mechanism, "compiled-in mechanism id, e.g. gradient-accumulation-weighting")
      ->required();
  sub.add_option("-p,--param", o->param,
                 "NAME=A..B (or NAME=A): bind the parameter to each integer of the range; A at least the "
                 "mechanism's minimum (1 for N)")
      ->required();
  sub.add_option("--id-prefix", o->prefix, "case ids are PREFIX-<mechanism id>-<value>")->capture_default_str();
  sub.add_flag("--replace", o->replace, "overwrite existing cases of the same id (previous versions kept in history)");
  sub.add_flag(
      "--json", o->json,
      "one JSON object: mechanism, parameter, from, to, cases, new, replaced, unchanged, runs_dropped, first_id, "
      "last_id, same_content [{id, same_content_as}] (variants repeating the checks of cases already in the "
      "archive)");
  sub.callback(
      [&ctx, o] { ctx.exit_status = run_interruptible([&] { return run_instantiate(ctx, *o); }, k_unchanged); });
}

}  // namespace failmap::cli
