#include "grade/grader.h"

#include "grade/completion.h"

#include <csignal>
#include <set>

#include "core/evaluate.h"
#include "io/json.h"
#include "io/observation.h"
#include "io/pyjson.h"
#include "io/sha256.h"

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
    auto outcome = run_strategy(c, kind);
    if (!outcome) return outcome.error();
    if (kind == StrategyKind::Broken) g.broken_passed.assign(outcome->passed.begin(), outcome->passed.end());
    g.strategy_documents.emplace_back(std::string(strategy_name(kind)), observation_document(c, *outcome));
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

CandidateReport candidate_report(const GradingCase& gc, const Result<ChildRun>& run, const SandboxLimits& limits) {
  CandidateReport report;
  if (!run) {
    report.error = GradeError{"sandbox", run.error().message};
  } else {
    report = read_report(run->report, gc.calls.size());
    // What ended the process outranks what its report says.
    auto seconds = [](double s) {
      std::string t = python_json(Value::floating(s));
      return t;
    };
    if (run->timeout || (run->signal && *run->signal == SIGXCPU)) {
      report.error = GradeError{"timeout", "the candidate ran past its limit of " + seconds(limits.wall_seconds) +
                                               " s wall clock or " + std::to_string(limits.cpu_seconds) + " s CPU"};
    } else if (run->overflow) {
      report.error = GradeError{"output", "the candidate's report passed the limit of " +
                                              std::to_string(limits.output_bytes) + " bytes (a value too large to compare)"};
    } else if (!report.error && !report.done) {
      std::string how = run->signal ? "was ended by signal " + std::to_string(*run->signal)
                                    : "exited with status " + std::to_string(run->exit_code.value_or(-1));
      std::size_t at = report.calls.size();
      report.error = GradeError{
          "exception", "the candidate's process " + how + " during call " + std::to_string(at + 1) + " of " +
                           std::to_string(gc.calls.size()) + ", before returning (sys.exit, os._exit or a crash)"};
    }
  }
  return report;
}

GradeResult judge(const GradingCase& gc, const Result<ChildRun>& run, const SandboxLimits& limits) {
  return judge_report(gc, candidate_report(gc, run, limits));
}

GradeResult judge_report(const GradingCase& gc, CandidateReport report) {
  GradeResult r;
  const std::size_t visible = gc.c.fixtures.size();
  report.calls.resize(gc.calls.size());

  // The visible checks: failmap compares, failmap builds the document.
  RunOutcome outcome;
  outcome.strategy = StrategyKind::Broken;
  outcome.all_passed = true;
  for (std::size_t i = 0; i < visible; ++i) {
    const Fixture& f = gc.c.fixtures[i];
    const CallResult& call = report.calls[i];
    CheckOutcome check;
    check.label = f.label;
    check.reached = call.kind != CallResult::Kind::Missing;
    if (call.kind == CallResult::Kind::Returned) check.passed = python_equal(call.value, f.expected);
    if (call.kind == CallResult::Kind::Raised) check.exception = call.text;
    if (call.kind == CallResult::Kind::Refused) check.refused = call.text;
    outcome.actuals.push_back(call.kind == CallResult::Kind::Returned ? call.value : Value::none());
    outcome.passed.push_back(check.passed ? 1 : 0);
    outcome.all_passed = outcome.all_passed && check.passed;
    bool broken_passed = i < gc.broken_passed.size() && gc.broken_passed[i];
    (broken_passed ? (check.passed ? r.p2p_success : r.p2p_failure) : (check.passed ? r.f2p_success : r.f2p_failure))
        .push_back(f.label);
    r.checks.push_back(std::move(check));
  }
  r.observation = observation_document(gc.c, outcome);
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
      const CallResult& call = report.calls[at++];
      if (call.kind != CallResult::Kind::Returned || !python_equal(call.value, f.expected)) h.failing.push_back(f.label);
    }
    r.held_out_resolved = r.held_out_resolved && h.failing.empty();
    r.held_out.push_back(std::move(h));
  }

  r.error = std::move(report.error);
  if (r.error) r.verdict = "error";
  else if (outcome.all_passed) r.verdict = "resolved";
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
      for (const auto& label : h.failing) failing.push_back(Json{{"binding", binding_json(h.binding)}, {"check", label}});
    }
    j["held_out"] = Json{{"bindings", std::move(bindings)}, {"resolved", r.held_out_resolved}, {"failing", std::move(failing)}};
  } else {
    j["held_out"] = nullptr;
  }
  j["observation"] = r.observation;
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
  if (!error || !(error->is_null() || error->is_object())) return bad("error", "expected null or {\"kind\", \"message\"}");
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
                             std::to_string(visible) + " in the archive (the case changed since it was graded, or the line was edited)");
  const Json* observation = member(line, "observation");
  if (!observation || !observation->is_string()) return bad("observation", "expected the observation document as a string");
  auto document = parse_python_json(observation->get<std::string>(), where + ": field 'observation'");
  if (!document) return document.error();
  const Value::List* observations = nullptr;
  if (document->is_dict())
    for (const auto& [key, v] : document->as_dict())
      if (key == "observations" && v.is_list()) observations = &v.as_list();
  if (!observations || observations->size() != visible)
    return bad("observation", "expected a document {\"observations\": [...]} of " + std::to_string(visible) +
                                  " observation(s), one per check of case " + gc.c.id);
  for (std::size_t i = 0; i < visible; ++i) {
    const std::string field = "checks[" + std::to_string(i) + "]";
    const Json& check = (*checks)[i];
    const Json *reached = member(check, "reached"), *exception = member(check, "exception"), *refused = member(check, "refused");
    if (!reached || !reached->is_boolean() || !text_or_null(exception) || !text_or_null(refused))
      return bad(field, "expected {\"check\", \"passed\", \"reached\": bool, \"exception\": string|null, \"refused\": string|null}");
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
  if (!held || !(held->is_null() || held->is_object())) return bad("held_out", "expected null or {\"bindings\", \"resolved\", \"failing\"}");
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
                        const std::string& case_digest, const Json& judged, bool cached, RewardMode reward) {
  Json j = Json::object();
  j["case"] = p.case_id;
  j["mechanism"] = mechanism;
  j["model"] = p.model;
  j["sample"] = p.sample;
  j["line"] = p.line;
  j["source_sha256"] = source_sha256;
  if (p.extraction) j["extracted"] = extraction_json(*p.extraction);
  j["case_digest"] = case_digest.empty() ? Json(nullptr) : Json(case_digest);
  for (const auto& [k, v] : judged.items()) j[k] = v;
  j["cached"] = cached;
  j["reward"] = reward_of(judged, reward);
  return dump_compact(j);
}

SummaryEntry summary_entry(const Prediction& p, const std::string& mechanism, const Json& judged) {
  const Json& held = judged.at("held_out");
  return SummaryEntry{p.model, p.case_id, mechanism, judged.at("verdict").get<std::string>(), !held.is_null(),
                      !held.is_null() && held.at("resolved").get<bool>()};
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

// pass@k for k = 1 .. the fewest samples any case has, averaged over cases
// in case id order: {"1": x, "2": y, ...}.
Json pass_at(const std::map<std::string, std::pair<std::int64_t, std::int64_t>>& per_case) {
  Json o = Json::object();
  if (per_case.empty()) return o;
  std::int64_t fewest = per_case.begin()->second.first;
  for (const auto& [id, nc] : per_case) fewest = std::min(fewest, nc.first);
  for (std::int64_t k = 1; k <= fewest; ++k) {
    double sum = 0.0;
    for (const auto& [id, nc] : per_case) sum += pass_at_k(nc.first, nc.second, k);
    o[std::to_string(k)] = sum / static_cast<double>(per_case.size());
  }
  return o;
}

}  // namespace

Json summary_json(const std::map<std::string, ModelSummary>& summary, const Json& run_info) {
  Json models = Json::object();
  for (const auto& [name, s] : summary) {
    Json m = Json::object();
    m["cases"] = s.per_case.size();
    m["predictions"] = s.predictions;
    m["resolved"] = s.resolved;
    m["partial"] = s.partial;
    m["unresolved"] = s.unresolved;
    m["errors"] = s.errors;
    m["held_out_resolved"] = s.held_out_resolved;
    m["pass_at_k"] = pass_at(s.per_case);
    Json mechs = Json::object();
    for (const auto& [id, c] : s.per_mechanism) {
      mechs[id] = Json{{"cases", c.per_case.size()}, {"predictions", c.predictions}, {"resolved", c.resolved},
                       {"partial", c.partial},        {"errors", c.errors},           {"pass_at_k", pass_at(c.per_case)}};
    }
    m["mechanisms"] = std::move(mechs);
    models[name] = std::move(m);
  }
  Json j = Json::object();
  j["format"] = "failmap-grade-summary";
  j["format_version"] = 1;
  for (const auto& [k, v] : run_info.items()) j[k] = v;
  j["models"] = std::move(models);
  return j;
}

}  // namespace failmap
