#include "grade/grader.h"

#include "grade/completion.h"

#include <algorithm>
#include <csignal>
#include <set>

#include "core/evaluate.h"
#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "grade/stats.h"
#include "io/observation.h"

namespace failmap {

namespace {

std::string call_text(const std::vector<Value>& args) {
  // The argument list as JSON; the driver's json.loads gives back the same
  // Python values (1 stays an int, 1.0 a float, NaN and Infinity included),
  // freshly built for every call as the reference script builds them.
  return python_json(Value::list(args));
}

std::uint64_t draw(const std::string& case_id, std::string_view param, std::size_t k) {
  std::string message = "failmap-held-out";
  message.push_back('\0');
  message += case_id;
  message.push_back('\0');
  message += param;
  message.push_back('\0');
  message += std::to_string(k);
  std::string digest = sha256_hex(message);
  return std::stoull(digest.substr(0, 16), nullptr, 16);
}

}  // namespace

std::vector<Bindings> held_out_bindings(const Mechanism& m, const Case& c, std::size_t count) {
  std::vector<Bindings> out;
  std::set<std::vector<std::int64_t>> seen;
  std::vector<std::int64_t> own;
  for (const auto& [name, v] : c.params) own.push_back(v.is_int() ? v.as_int() : 0);
  seen.insert(own);
  for (std::size_t k = 1; out.size() < count && k <= 64 * count; ++k) {
    Bindings b;
    std::vector<std::int64_t> key;
    for (std::size_t i = 0; i < m.parameters.size(); ++i) {
      std::int64_t lo = i < m.parameter_minimum.size() ? m.parameter_minimum[i] : 1;
      std::int64_t hi = i < m.parameter_maximum.size() ? m.parameter_maximum[i] : lo + 999;
      auto span = static_cast<std::uint64_t>(hi - lo) + 1;
      std::int64_t v = lo + static_cast<std::int64_t>(draw(c.id, m.parameters[i], k) % span);
      b.emplace_back(std::string(m.parameters[i]), Value::integer(v));
      key.push_back(v);
    }
    if (seen.insert(key).second) out.push_back(std::move(b));
  }
  return out;
}

Result<GradingCase> prepare_grading_case(const Case& c, std::string case_digest, std::size_t held_out) {
  const Mechanism* m = find_mechanism(c.mechanism);
  if (!m) return input_error("case " + c.id + ": mechanism '" + c.mechanism + "' is not compiled into this failmap");
  GradingCase g;
  g.c = c;
  g.case_digest = std::move(case_digest);
  for (const Fixture& f : c.fixtures) g.calls.push_back(call_text(f.args));
  for (StrategyKind kind : k_all_strategies) {
    if (!m->strategy(kind).solve) continue;  // the open build has no repair
    FAILMAP_TRY_ASSIGN(auto outcome, run_strategy(c, kind));
    if (kind == StrategyKind::Broken) g.broken_passed.assign(outcome.passed.begin(), outcome.passed.end());
    g.strategy_documents.emplace_back(std::string(strategy_name(kind)), observation_document(c, outcome));
  }
  g.held_out = held_out_bindings(*m, c, held_out);
  for (const Bindings& b : g.held_out) {
    auto hc = make_case(*m, c.id, c.variant, b);
    if (!hc) return Error{"case " + c.id + ", held-out binding: " + hc.error().message, hc.error().kind};
    for (const Fixture& f : hc->fixtures) g.calls.push_back(call_text(f.args));
    g.held_out_cases.push_back(std::move(*hc));
  }
  return g;
}

std::uint64_t candidate_seed(const std::string& case_id, const std::string& source_sha256) {
  std::string message = "failmap-seed";
  message.push_back('\0');
  message += case_id;
  message.push_back('\0');
  message += source_sha256;
  return std::stoull(sha256_hex(message).substr(0, 16), nullptr, 16);
}

std::vector<std::uint32_t> call_order(const GradingCase& gc, std::uint64_t seed) {
  std::vector<std::uint32_t> order;
  if (gc.held_out.empty()) return order;
  order.resize(gc.calls.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::uint64_t state = seed;
  auto next = [&state] {  // SplitMix64 (Steele, Lea, Flood 2014; https://prng.di.unimi.it/splitmix64.c)
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (std::size_t i = order.size(); i-- > 1;) std::swap(order[i], order[next() % (i + 1)]);
  return order;
}

SandboxLimits case_limits(const GradingCase& gc, const SandboxLimits& limits) {
  SandboxLimits l = limits;
  if (gc.cpu_budget) {
    l.cpu_seconds = *gc.cpu_budget;
    l.wall_seconds = wall_safety_net(*gc.cpu_budget);
  }
  return l;
}

double calibrated_budget(double reference_seconds, double factor, double floor_seconds, double cap_seconds) {
  const double want = std::max(floor_seconds, factor * reference_seconds);
  if (want >= cap_seconds) return cap_seconds;
  // Powers of two are exact in a double: doubling and halving never round.
  double p = 1.0;
  while (p < want) p *= 2.0;
  while (p / 2.0 >= want) p /= 2.0;
  return std::min(p, cap_seconds);
}

Result<double> reference_cpu_seconds(SandboxWorker& worker, const GradingCase& gc) {
  const Mechanism* m = find_mechanism(gc.c.mechanism);
  if (!m)
    return input_error("case " + gc.c.id + ": mechanism '" + gc.c.mechanism + "' is not compiled into this failmap");
  std::string params;
  for (const auto& [name, value] : gc.c.params) params += name + " = " + python_repr(value) + "\n";
  GradingCase measured = gc;
  measured.cpu_budget = k_max_cpu_seconds;
  double most = 0.0;
  for (StrategyKind kind : {StrategyKind::Broken, StrategyKind::Unsuccessful}) {
    const std::string source = params + std::string(m->strategy(kind).python);
    auto run = run_candidate(worker, measured, source, sha256_hex(source));
    if (!run)
      return input_error("case " + gc.c.id + ": measuring the CPU time of its " + std::string(strategy_name(kind)) +
                         " source: " + run.error().message);
    most = std::max(most, run->timeout ? k_max_cpu_seconds : run->cpu_seconds);
  }
  return most;
}

Result<ChildRun> run_candidate(SandboxWorker& worker, const GradingCase& gc, const std::string& source,
                               const std::string& source_sha256) {
  RunOptions options;
  options.seed = candidate_seed(gc.c.id, source_sha256);
  options.cpu_seconds = gc.cpu_budget;
  std::vector<std::uint32_t> order = call_order(gc, options.seed);
  if (order.empty()) return worker.run(source, gc.calls, options);
  std::vector<std::string> calls;
  calls.reserve(order.size());
  for (std::uint32_t i : order) calls.push_back(gc.calls[i]);
  auto run = worker.run(source, calls, options);
  if (run) run->order = std::move(order);
  return run;
}

std::string cpu_share(double used, double budget) {
  if (used >= budget) return ">=1";
  if (used * 2 >= budget) return "<1";
  if (used * 4 >= budget) return "<1/2";
  if (used * 16 >= budget) return "<1/4";
  return "<1/16";
}

CandidateReport candidate_report(const GradingCase& gc, Result<ChildRun>&& run, const SandboxLimits& grading_limits) {
  const SandboxLimits limits = case_limits(gc, grading_limits);
  CandidateReport report;
  if (!run) {
    report.error = GradeError{"sandbox", run.error().message};
  } else {
    report = read_report(std::move(run->report), gc.calls.size());
    if (!run->order.empty()) {
      // Records answer the calls in the order they were made: back to gc's.
      std::vector<CallResult> in_order(gc.calls.size());
      for (std::size_t p = 0; p < report.calls.size() && p < run->order.size(); ++p)
        in_order[run->order[p]] = std::move(report.calls[p]);
      report.calls = std::move(in_order);
    }
    report.cpu_seconds = run->cpu_seconds;
    // What ended the process outranks what its report says.
    auto seconds = [](double s) {
      std::string t = python_json(Value::floating(s));
      return t;
    };
    if (run->wall_timeout) {
      report.error = GradeError{"timeout", "the candidate ran past the wall-clock safety net of " +
                                               seconds(limits.wall_seconds) + " s (its CPU budget is " +
                                               seconds(limits.cpu_seconds) + " s; it waited rather than computed)"};
    } else if (run->timeout || (run->signal && *run->signal == SIGXCPU)) {
      report.error = GradeError{
          "timeout", "the candidate used its CPU budget of " + seconds(limits.cpu_seconds) + " s (user + system time)"};
    } else if (run->overflow) {
      report.error =
          GradeError{"output", "the candidate's report passed the limit of " + std::to_string(limits.output_bytes) +
                                   " bytes (the values of all its calls together: too large to compare)"};
    } else if (!report.error && !report.done) {
      std::string how = run->signal ? "was ended by signal " + std::to_string(*run->signal)
                                    : "exited with status " + std::to_string(run->exit_code.value_or(-1));
      std::size_t at = 0;  // calls made before it ended
      for (const CallResult& c : report.calls) at += c.kind != CallResult::Kind::Missing;
      report.error = GradeError{"exception", "the candidate's process " + how + " during call " +
                                                 std::to_string(at + 1) + " of " + std::to_string(gc.calls.size()) +
                                                 ", before returning (sys.exit, os._exit or a crash)"};
    }
  }
  return report;
}

GradeResult judge(const GradingCase& gc, Result<ChildRun> run, const SandboxLimits& limits) {
  return judge_report(gc, candidate_report(gc, std::move(run), limits));
}

GradeResult judge_report(const GradingCase& gc, CandidateReport report) {
  GradeResult r;
  const std::size_t visible = gc.c.fixtures.size();
  report.calls.resize(gc.calls.size());

  // The visible checks: failmap compares, failmap builds the document.
  std::vector<unsigned char> passed;
  bool all_passed = true;
  for (std::size_t i = 0; i < visible; ++i) {
    const Fixture& f = gc.c.fixtures[i];
    CallResult& call = report.calls[i];
    CheckOutcome check;
    check.label = f.label;
    check.reached = call.kind != CallResult::Kind::Missing;
    check.passed = report.returned_equals(i, f.expected);
    if (call.kind == CallResult::Kind::Raised) check.exception = call.text;
    if (call.kind == CallResult::Kind::Refused) check.refused = call.text;
    passed.push_back(check.passed ? 1 : 0);
    all_passed = all_passed && check.passed;
    bool broken_passed = i < gc.broken_passed.size() && gc.broken_passed[i];
    (broken_passed ? (check.passed ? r.p2p_success : r.p2p_failure) : (check.passed ? r.f2p_success : r.f2p_failure))
        .push_back(f.label);
    r.checks.push_back(std::move(check));
  }
  // Written from the report's bytes: a returned value of
  // k_max_report_elements elements is never built whole.
  r.observation = observation_document(
      gc.c, passed, all_passed,
      [&](std::string& out, std::size_t i) {
        if (report.calls[i].kind == CallResult::Kind::Returned) report.append_returned_json(out, i);
        else out += "null";
      },
      report.bytes.size());
  r.observation_sha256 = observation_digest(r.observation);
  for (const auto& [name, document] : gc.strategy_documents)
    if (document == r.observation) {
      r.same_as = name;
      break;
    }

  // Held-out bindings: the same comparison at each.
  std::size_t at = visible;
  for (std::size_t b = 0; b < gc.held_out_cases.size(); ++b) {
    GradeResult::HeldOut h{gc.held_out[b], {}};
    for (const Fixture& f : gc.held_out_cases[b].fixtures) {
      if (!report.returned_equals(at++, f.expected)) h.failing.push_back(f.label);
    }
    r.held_out_resolved = r.held_out_resolved && h.failing.empty();
    r.held_out.push_back(std::move(h));
  }

  r.error = std::move(report.error);
  r.cpu_seconds = report.cpu_seconds;
  if (r.error) r.verdict = "error";
  else if (all_passed) r.verdict = "resolved";
  else if (!r.f2p_success.empty() && r.p2p_failure.empty()) r.verdict = "partial";
  else r.verdict = "unresolved";
  return r;
}

namespace {

Json labels(const std::vector<std::string>& xs) {
  Json a = Json::array();
  for (const auto& x : xs) a.push_back(x);
  return a;
}

Json binding_json(const Bindings& b) {
  Json o = Json::object();
  for (const auto& [k, v] : b) o[k] = value_to_json(v);
  return o;
}

}  // namespace

Json judged_members(const GradeResult& r, SandboxMode mode) {
  GradeResult copy = r;
  return judged_members(std::move(copy), mode);
}

Json judged_members(GradeResult&& r, SandboxMode mode) {
  Json j = Json::object();
  j["verdict"] = r.verdict;
  j["error"] = r.error ? Json{{"kind", r.error->kind}, {"message", r.error->message}} : Json(nullptr);
  Json checks = Json::array();
  for (const CheckOutcome& c : r.checks) {
    Json o = Json::object();
    o["check"] = c.label;
    o["passed"] = c.passed;
    o["reached"] = c.reached;
    o["exception"] = c.exception ? Json(*c.exception) : Json(nullptr);
    o["refused"] = c.refused ? Json(*c.refused) : Json(nullptr);
    checks.push_back(std::move(o));
  }
  j["checks"] = std::move(checks);
  j["fail_to_pass"] = Json{{"success", labels(r.f2p_success)}, {"failure", labels(r.f2p_failure)}};
  j["pass_to_pass"] = Json{{"success", labels(r.p2p_success)}, {"failure", labels(r.p2p_failure)}};
  j["same_as"] = r.same_as ? Json(*r.same_as) : Json(nullptr);
  if (!r.held_out.empty()) {
    Json bindings = Json::array(), failing = Json::array();
    for (const auto& h : r.held_out) {
      bindings.push_back(binding_json(h.binding));
      for (const auto& label : h.failing)
        failing.push_back(Json{{"binding", binding_json(h.binding)}, {"check", label}});
    }
    j["held_out"] =
        Json{{"bindings", std::move(bindings)}, {"resolved", r.held_out_resolved}, {"failing", std::move(failing)}};
  } else {
    j["held_out"] = nullptr;
  }
  j["observation"] = std::move(r.observation);
  j["observation_sha256"] = r.observation_sha256;
  j["sandbox"] = std::string(sandbox_mode_name(mode));
  return j;
}

Result<CandidateReport> report_from_results_line(const GradingCase& gc, const Json& line, const std::string& where) {
  auto bad = [&](const std::string& field, const std::string& what) -> Error {
    return input_error(where + ": field '" + field + "': " + what);
  };
  auto member = [](const Json& o, const char* key) -> const Json* {
    if (!o.is_object()) return nullptr;
    auto it = o.find(key);
    return it == o.end() ? nullptr : &*it;
  };
  auto text_or_null = [](const Json* j) { return j && (j->is_null() || j->is_string()); };
  const std::size_t visible = gc.c.fixtures.size();
  CandidateReport report;

  const Json* error = member(line, "error");
  if (!error || !(error->is_null() || error->is_object()))
    return bad("error", "expected null or {\"kind\", \"message\"}");
  if (error->is_object()) {
    const Json *kind = member(*error, "kind"), *message = member(*error, "message");
    if (!kind || !kind->is_string() || !message || !message->is_string())
      return bad("error", "expected {\"kind\": string, \"message\": string}");
    report.error = GradeError{kind->get<std::string>(), message->get<std::string>()};
  }
  report.done = !report.error;

  const Json* checks = member(line, "checks");
  if (!checks || !checks->is_array()) return bad("checks", "expected the list of the case's checks");
  if (checks->size() != visible)
    return bad("checks", "holds " + std::to_string(checks->size()) + " check(s); case " + gc.c.id + " has " +
                             std::to_string(visible) +
                             " in the archive (the case changed since it was graded, or the line was edited)");
  const Json* observation = member(line, "observation");
  if (!observation || !observation->is_string())
    return bad("observation", "expected the observation document as a string");
  // Each check's actual value holds at most k_max_report_elements (the
  // driver's limit) and its expected value at most k_max_value_elements.
  const std::size_t max_elements = (visible + 1) * (k_max_report_elements + k_max_value_elements);
  FAILMAP_TRY_ASSIGN(auto document,
                     parse_python_json(observation->get<std::string>(), where + ": field 'observation'", max_elements));
  const Value::List* observations = nullptr;
  if (document.is_dict())
    for (const auto& [key, v] : document.as_dict())
      if (key == "observations" && v.is_list()) observations = &v.as_list();
  if (!observations || observations->size() != visible)
    return bad("observation", "expected a document {\"observations\": [...]} of " + std::to_string(visible) +
                                  " observation(s), one per check of case " + gc.c.id);
  for (std::size_t i = 0; i < visible; ++i) {
    const std::string field = "checks[" + std::to_string(i) + "]";
    const Json& check = (*checks)[i];
    const Json *reached = member(check, "reached"), *exception = member(check, "exception"),
               *refused = member(check, "refused");
    if (!reached || !reached->is_boolean() || !text_or_null(exception) || !text_or_null(refused))
      return bad(
          field,
          "expected {\"check\", \"passed\", \"reached\": bool, \"exception\": string|null, \"refused\": string|null}");
    const Value* actual = nullptr;
    if ((*observations)[i].is_dict())
      for (const auto& [key, v] : (*observations)[i].as_dict())
        if (key == "actual") actual = &v;
    if (!actual) return bad("observation", "observation " + std::to_string(i + 1) + " has no \"actual\"");
    CallResult call;
    if (!reached->get<bool>()) {
      call.kind = CallResult::Kind::Missing;
    } else if (exception->is_string()) {
      call.kind = CallResult::Kind::Raised;
      call.text = exception->get<std::string>();
    } else if (refused->is_string()) {
      call.kind = CallResult::Kind::Refused;
      call.text = refused->get<std::string>();
    } else {
      call.kind = CallResult::Kind::Returned;
      call.value = *actual;
    }
    report.calls.push_back(std::move(call));
  }

  // Held-out calls: the line keeps only which checks failed where.
  const Json* held = member(line, "held_out");
  if (!held || !(held->is_null() || held->is_object()))
    return bad("held_out", "expected null or {\"bindings\", \"resolved\", \"failing\"}");
  const Json* failing = held->is_object() ? member(*held, "failing") : nullptr;
  if (held->is_object() && (!failing || !failing->is_array()))
    return bad("held_out", "expected \"failing\": a list of {\"binding\", \"check\"}");
  // A held-out call failed when the line lists its (binding, check); judged
  // again, the failures come out in failmap's order, so a listed pair that
  // is no check at a drawn binding, or one out of order, shows as a difference.
  std::multiset<std::pair<std::string, std::string>> listed;
  if (failing)
    for (const Json& f : *failing) {
      const Json *binding = member(f, "binding"), *label = member(f, "check");
      if (binding && label && label->is_string()) listed.emplace(dump_compact(*binding), label->get<std::string>());
    }
  for (std::size_t b = 0; b < gc.held_out_cases.size(); ++b) {
    const std::string binding = dump_compact(binding_json(gc.held_out[b]));
    for (const Fixture& f : gc.held_out_cases[b].fixtures) {
      CallResult call;
      auto it = listed.find({binding, f.label});
      if (it != listed.end()) {
        call.kind = CallResult::Kind::Missing;
        listed.erase(it);
      } else {
        call.kind = CallResult::Kind::Returned;
        call.value = f.expected;
      }
      report.calls.push_back(std::move(call));
    }
  }
  return report;
}

std::string_view reward_mode_name(RewardMode mode) { return mode == RewardMode::Binary ? "binary" : "graded"; }

double reward_of(const Json& judged, RewardMode mode) {
  const std::string& verdict = judged.at("verdict").get_ref<const std::string&>();
  if (verdict == "resolved") return 1.0;
  if (mode == RewardMode::Binary || verdict == "error") return 0.0;
  const Json& checks = judged.at("checks");
  if (checks.empty()) return 0.0;
  std::size_t passed = 0;
  for (const Json& c : checks) passed += c.at("passed").get<bool>() ? 1 : 0;
  return static_cast<double>(passed) / static_cast<double>(checks.size());
}

std::string result_line(const Prediction& p, const std::string& mechanism, const std::string& source_sha256,
                        const std::string& case_digest, Json judged, RewardMode reward) {
  const double earned = reward_of(judged, reward);
  Json j = Json::object();
  j["case"] = p.case_id;
  j["mechanism"] = mechanism;
  j["model"] = p.model;
  j["sample"] = p.sample;
  j["line"] = p.line;
  j["source_sha256"] = source_sha256;
  if (p.extraction) j["extracted"] = extraction_json(*p.extraction);
  j["case_digest"] = case_digest.empty() ? Json(nullptr) : Json(case_digest);
  for (auto&& [k, v] : judged.items()) j[k] = std::move(v);
  j["reward"] = earned;
  return dump_compact(j);
}

SummaryEntry summary_entry(const Prediction& p, const std::string& mechanism, const Json& judged) {
  const Json& held = judged.at("held_out");
  return SummaryEntry{p.model,         p.case_id,
                      mechanism,       judged.at("verdict").get<std::string>(),
                      !held.is_null(), !held.is_null() && held.at("resolved").get<bool>()};
}

namespace {

// A long string member (an observation document) shown around where two
// spellings first differ.
std::string excerpt(const Json& v, std::size_t from) {
  if (!v.is_string() || v.get<std::string>().size() <= 160) return dump_compact(v);
  const std::string& s = v.get<std::string>();
  std::size_t begin = from > 40 ? from - 40 : 0;
  while (begin > 0 && (static_cast<unsigned char>(s[begin]) & 0xC0) == 0x80) --begin;  // whole UTF-8 characters
  std::size_t end = std::min(s.size(), begin + 120);
  while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
  return (begin ? "…" : "") + dump_compact(Json(s.substr(begin, end - begin))) + (end < s.size() ? "…" : "");
}

}  // namespace

std::string json_difference(const Json& stored, const Json& derived, const std::string& path) {
  if (stored == derived) return "";
  if (stored.is_object() && derived.is_object()) {
    for (const auto& [key, v] : derived.items()) {
      const std::string at = path.empty() ? key : path + "." + key;
      auto it = stored.find(key);
      if (it == stored.end()) return "field '" + at + "': absent, recomputed " + dump_compact(v);
      if (auto d = json_difference(*it, v, at); !d.empty()) return d;
    }
    for (const auto& [key, v] : stored.items())
      if (!derived.contains(key))
        return "field '" + (path.empty() ? key : path + "." + key) + "': stored " + dump_compact(v) +
               ", which failmap does not write";
    return "field '" + path + "': its members in another order than failmap writes them";
  }
  // Short lists of other lengths are shown whole; long ones from the first element that differs.
  if (stored.is_array() && derived.is_array() &&
      (stored.size() == derived.size() || dump_compact(stored).size() + dump_compact(derived).size() > 240)) {
    const std::size_t common = std::min(stored.size(), derived.size());
    for (std::size_t i = 0; i < common; ++i)
      if (auto d = json_difference(stored[i], derived[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    const std::string at = path + "[" + std::to_string(common) + "]";
    return "field '" + at + "': " + (common < stored.size() ? "stored " + dump_compact(stored[common]) : "absent") +
           ", " +
           (common < derived.size() ? "recomputed " + dump_compact(derived[common])
                                    : "not recomputed (failmap writes " + std::to_string(common) + " elements)");
  }
  std::size_t from = 0;
  if (stored.is_string() && derived.is_string()) {
    const std::string &a = stored.get_ref<const std::string&>(), &b = derived.get_ref<const std::string&>();
    while (from < a.size() && from < b.size() && a[from] == b[from]) ++from;
  }
  return "field '" + path + "': stored " + excerpt(stored, from) + ", recomputed " + excerpt(derived, from);
}

Result<GradeResult> judge_recorded(const GradingCase& gc, const std::string& stored, SandboxMode mode,
                                   const std::string& where) {
  auto j = parse_json_strict(stored, where);
  if (!j) return Error{j.error().message, Error::Kind::Mismatch};
  if (!j->is_object())
    return Error{where + ": not the judged members of a grading (a JSON object)", Error::Kind::Mismatch};
  auto report = report_from_results_line(gc, *j, where);
  if (!report) return Error{report.error().message, Error::Kind::Mismatch};
  GradeResult r = judge_report(gc, std::move(*report));
  const Json derived = judged_members(r, mode);
  if (dump_compact(derived) != stored) {
    std::string what = json_difference(*j, derived, "");
    if (what.empty()) what = "not spelled as failmap writes it (compact JSON, members in failmap's order)";
    return Error{where + ": " + what, Error::Kind::Mismatch};
  }
  return r;
}

bool machine_dependent(const GradeResult& r) {
  return r.error && (r.error->kind == "timeout" || r.error->kind == "memory" || r.error->kind == "sandbox");
}

double pass_at_k(std::int64_t n, std::int64_t c, std::int64_t k) {
  if (n - c < k) return 1.0;
  double product = 1.0;
  for (std::int64_t i = n - c + 1; i <= n; ++i) product *= 1.0 - static_cast<double>(k) / static_cast<double>(i);
  return 1.0 - product;
}

SummaryEntry summary_entry(const Prediction& p, const std::string& mechanism, const GradeResult& r) {
  return SummaryEntry{p.model, p.case_id, mechanism, r.verdict, !r.held_out.empty(), r.held_out_resolved};
}

void add_to_summary(std::map<std::string, ModelSummary>& summary, const SummaryEntry& e) {
  const SummaryEntry& r = e;
  ModelSummary& s = summary[e.model];
  auto& mech = s.per_mechanism[e.mechanism];
  bool resolved = r.verdict == "resolved";
  ++s.predictions;
  ++mech.predictions;
  if (resolved) ++s.resolved, ++mech.resolved;
  if (r.verdict == "partial") ++s.partial, ++mech.partial;
  if (r.verdict == "unresolved") ++s.unresolved;
  if (r.verdict == "error") ++s.errors, ++mech.errors;
  if (r.held_out && resolved && r.held_out_resolved) ++s.held_out_resolved;
  auto& pc = s.per_case[e.case_id];
  ++pc.first;
  pc.second += resolved ? 1 : 0;
  auto& mc = mech.per_case[e.case_id];
  ++mc.first;
  mc.second += resolved ? 1 : 0;
}

namespace {

using PerCase = std::map<std::string, std::pair<std::int64_t, std::int64_t>>;

// The fewest samples any case of `per_case` has (0 when none): pass@k is
// given for k = 1 .. this.
std::int64_t fewest_samples(const PerCase& per_case) {
  if (per_case.empty()) return 0;
  std::int64_t fewest = per_case.begin()->second.first;
  for (const auto& [id, nc] : per_case) fewest = std::min(fewest, nc.first);
  return fewest;
}

// pass@k for k = 1 .. `ks`, the mean over `ids` (in id order) of each case's
// estimator; a case of `ids` without samples in `per_case` counts 0.0 (not
// attempted counts as failed): {"1": x, "2": y, ...}.
Json pass_at(const PerCase& per_case, const std::vector<std::string>& ids, std::int64_t ks) {
  Json o = Json::object();
  if (ids.empty()) return o;
  for (std::int64_t k = 1; k <= ks; ++k) {
    double sum = 0.0;
    for (const std::string& id : ids)
      if (auto it = per_case.find(id); it != per_case.end()) sum += pass_at_k(it->second.first, it->second.second, k);
    o[std::to_string(k)] = sum / static_cast<double>(ids.size());
  }
  return o;
}

std::vector<std::string> ids_of(const PerCase& per_case) {
  std::vector<std::string> out;
  for (const auto& [id, nc] : per_case) out.push_back(id);
  return out;
}

// The 95% unit-bootstrap interval of pass@k (k = 1 .. ks) over `ids`
// (grade/stats.h): {"1": [low, high], ...}, or null for every k when the
// cases fall into fewer than 2 units; and the number of units.
std::pair<Json, std::size_t> pass_at_interval(const PerCase& per_case, const std::vector<std::string>& ids,
                                              std::int64_t ks, const SummaryCases& cases, UnitLinks links,
                                              const std::string& scope) {
  Json o = Json::object();
  if (ids.empty() || ks < 1) return {o, 0};
  std::vector<const Case*> members;
  for (const std::string& id : ids) {
    auto it = cases.cases.find(id);
    if (it == cases.cases.end() || !it->second) return {Json(nullptr), 0};
    members.push_back(it->second);
  }
  Partition p = case_units(members, links);
  UnitValues units(p.unit_count());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::vector<double> values;
    auto it = per_case.find(ids[i]);
    for (std::int64_t k = 1; k <= ks; ++k)
      values.push_back(it == per_case.end() ? 0.0 : pass_at_k(it->second.first, it->second.second, k));
    units[p.unit_of[i]].push_back(std::move(values));
  }
  auto iv = unit_bootstrap(units, static_cast<std::size_t>(ks), scope, cases.seed);
  for (std::int64_t k = 1; k <= ks; ++k) {
    const std::string key = std::to_string(k);
    if (!iv) o[key] = nullptr;
    else
      o[key] = Json::array({(*iv)[static_cast<std::size_t>(k - 1)].low, (*iv)[static_cast<std::size_t>(k - 1)].high});
  }
  return {o, p.unit_count()};
}

}  // namespace

Json summary_json(const std::map<std::string, ModelSummary>& summary, const Json& run_info, const SummaryCases& cases) {
  // With a split: the split's cases and, per mechanism, its cases of the split.
  std::map<std::string, std::vector<std::string>> split_by_mechanism;
  if (cases.split_cases)
    for (const std::string& id : *cases.split_cases)
      if (auto it = cases.cases.find(id); it != cases.cases.end() && it->second)
        split_by_mechanism[it->second->mechanism].push_back(id);
  Json models = Json::object();
  for (const auto& [name, s] : summary) {
    const std::int64_t ks = fewest_samples(s.per_case);
    const std::vector<std::string> attempted = ids_of(s.per_case);
    const std::vector<std::string>& over = cases.split_cases ? *cases.split_cases : attempted;
    Json m = Json::object();
    m["cases"] = s.per_case.size();
    if (cases.split_cases) {
      m["split_cases"] = over.size();
      m["coverage"] = over.empty() ? 0.0 : static_cast<double>(attempted.size()) / static_cast<double>(over.size());
    }
    m["predictions"] = s.predictions;
    m["resolved"] = s.resolved;
    m["partial"] = s.partial;
    m["unresolved"] = s.unresolved;
    m["errors"] = s.errors;
    m["held_out_resolved"] = s.held_out_resolved;
    m["pass_at_k"] = pass_at(s.per_case, over, ks);
    if (cases.split_cases) m["pass_at_k_attempted"] = pass_at(s.per_case, attempted, ks);
    auto [interval, units] =
        pass_at_interval(s.per_case, over, ks, cases, UnitLinks::MechanismAndGroups, "model:" + name);
    m["pass_at_k_interval"] = std::move(interval);
    m["units"] = units;
    Json mechs = Json::object();
    std::map<std::string, const ModelSummary::Counts*> shown;
    for (const auto& [id, c] : s.per_mechanism) shown[id] = &c;
    for (const auto& [id, ids] : split_by_mechanism) shown.emplace(id, nullptr);
    static const ModelSummary::Counts none;
    for (const auto& [id, counts] : shown) {
      const ModelSummary::Counts& c = counts ? *counts : none;
      const std::vector<std::string> mech_attempted = ids_of(c.per_case);
      auto split_ids = split_by_mechanism.find(id);
      const std::vector<std::string>& mech_over =
          cases.split_cases ? (split_ids != split_by_mechanism.end() ? split_ids->second : mech_attempted)
                            : mech_attempted;
      Json mj = Json::object();
      mj["cases"] = c.per_case.size();
      if (cases.split_cases) mj["split_cases"] = mech_over.size();
      mj["predictions"] = c.predictions;
      mj["resolved"] = c.resolved;
      mj["partial"] = c.partial;
      mj["errors"] = c.errors;
      mj["pass_at_k"] = pass_at(c.per_case, mech_over, ks);
      auto [mech_interval, mech_units] = pass_at_interval(c.per_case, mech_over, ks, cases, UnitLinks::GroupsOnly,
                                                          "model:" + name + "/mechanism:" + id);
      mj["pass_at_k_interval"] = std::move(mech_interval);
      mj["units"] = mech_units;
      mechs[id] = std::move(mj);
    }
    m["mechanisms"] = std::move(mechs);
    models[name] = std::move(m);
  }
  Json j = Json::object();
  j["format"] = "failmap-grade-summary";
  j["format_version"] = k_grade_summary_version;
  for (const auto& [k, v] : run_info.items()) j[k] = v;
  j["split_cases"] = cases.split_cases ? Json(*cases.split_cases) : Json(nullptr);
  j["interval"] = Json{{"method", "unit percentile bootstrap"},
                       {"rule", "failmap-bootstrap-v1"},
                       {"level", 0.95},
                       {"replicates", k_bootstrap_replicates},
                       {"seed", cases.seed}};
  j["models"] = std::move(models);
  return j;
}

}  // namespace failmap
