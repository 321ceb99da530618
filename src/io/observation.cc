#include "io/observation.h"

#include <charconv>
#include <cstring>

#include "encoding/json.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"

namespace failmap {

std::string observation_document(const Case& c, const RunOutcome& run) {
  std::string out;
  out.reserve(64 + 96 * run.actuals.size());
  append_observation_document(out, c, run);
  return out;
}

void append_observation_document(std::string& out, const Case& c, const RunOutcome& run) {
  thread_local ObservationFrame t_frame;
  t_frame.assign(c);
  t_frame.append_document(out, run);
}

std::string observation_document(const Case& c, const std::vector<unsigned char>& passed, bool all_passed,
                                 const ActualWriter& actual, std::size_t reserve) {
  ObservationFrame frame;
  frame.assign(c);
  std::string out;
  out.reserve(64 + 96 * passed.size() + reserve);
  frame.append_document(out, passed, all_passed, actual);
  return out;
}

void ObservationFrame::assign(const Case& c) {
  const std::size_t n = c.fixtures.size();
  if (m_labels.size() < n) {
    m_labels.resize(n);
    m_label_json.resize(n);
  }
  for (std::size_t i = 0; i < n; ++i) {
    // Cases of one mechanism share their labels: each is escaped once per
    // run of cases with the same label at this position.
    const std::string& label = c.fixtures[i].label;
    if (m_label_json[i].empty() || m_labels[i] != label) {
      m_labels[i] = label;
      m_label_json[i].clear();
      append_python_json_string(m_label_json[i], label);
    }
  }
  // Written through a pointer into room made up front (the labels, the
  // fixed text and at most 20 digits and a sign per int expected value);
  // other expected values (rare) are appended to the string and the room
  // made again after them.
  constexpr std::string_view k_first = "{\"check\": ", k_next = ", {\"check\": ", k_actual = ", \"actual\": ",
                             k_expected = ", \"expected\": ", k_passed = ", \"passed\": ";
  constexpr std::size_t k_fixed = k_next.size() + k_actual.size() + k_expected.size() + k_passed.size() + 21;
  auto make_room = [&](std::size_t at, std::size_t from) {
    std::size_t room = 0;
    for (std::size_t i = from; i < n; ++i) room += m_label_json[i].size() + k_fixed;
    m_text.resize(at + room);
    return m_text.data() + at;
  };
  m_ends.clear();
  char* p = make_room(0, 0);
  auto put = [&p](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  auto offset = [&] { return static_cast<std::size_t>(p - m_text.data()); };
  for (std::size_t i = 0; i < n; ++i) {
    put(i ? k_next : k_first);
    put(m_label_json[i]);
    put(k_actual);
    m_ends.push_back(offset());
    put(k_expected);
    const Value& expected = c.fixtures[i].expected;
    if (expected.is_int()) {
      p = std::to_chars(p, p + 21, expected.as_int()).ptr;
    } else {
      m_text.resize(offset());
      append_python_json(m_text, expected);
      p = make_room(m_text.size(), i);
    }
    put(k_passed);
    m_ends.push_back(offset());
  }
  m_text.resize(offset());
}

void ObservationFrame::append_document(std::string& out, const RunOutcome& run) const {
  // Written through a pointer into room made up front: the frame's bytes,
  // at most 20 digits and a sign per int or bool actual, "false}" per check
  // and the ends. Other actuals (rare) are appended to the string and the
  // room made again after them.
  constexpr std::size_t k_per_check = 21 + 6, k_ends = 64;
  const std::size_t n = run.actuals.size();
  std::size_t begin = 0;
  auto make_room = [&](std::size_t at, std::size_t i) {
    out.resize(at + (m_text.size() - begin) + k_per_check * (n - i) + k_ends);
    return out.data() + at;
  };
  char* p = make_room(out.size(), 0);
  auto put = [&p](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  put("{\"observations\": [");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view text(m_text);
    put(text.substr(begin, m_ends[2 * i] - begin));
    begin = m_ends[2 * i];
    const Value& actual = run.actuals[i];
    if (actual.is_int()) {
      p = std::to_chars(p, p + 21, actual.as_int()).ptr;
    } else if (actual.is_bool()) {
      put(actual.as_bool() ? "true" : "false");
    } else {
      out.resize(static_cast<std::size_t>(p - out.data()));
      append_python_json(out, actual);
      p = make_room(out.size(), i);
    }
    put(text.substr(begin, m_ends[2 * i + 1] - begin));
    begin = m_ends[2 * i + 1];
    put(run.passed[i] ? "true}" : "false}");
  }
  put("], \"passed\": ");
  put(run.all_passed ? "true}" : "false}");
  out.resize(static_cast<std::size_t>(p - out.data()));
}

void ObservationFrame::append_document(std::string& out, const std::vector<unsigned char>& passed, bool all_passed,
                                       const ActualWriter& actual) const {
  const std::string_view text(m_text);
  std::size_t begin = 0;
  out += "{\"observations\": [";
  for (std::size_t i = 0; i < passed.size(); ++i) {
    out += text.substr(begin, m_ends[2 * i] - begin);
    begin = m_ends[2 * i];
    actual(out, i);
    out += text.substr(begin, m_ends[2 * i + 1] - begin);
    begin = m_ends[2 * i + 1];
    out += passed[i] ? "true}" : "false}";
  }
  out += "], \"passed\": ";
  out += all_passed ? "true}" : "false}";
}

void append_actuals_text(std::string& out, const RunOutcome& run) {
  out += '[';
  for (std::size_t i = 0; i < run.actuals.size(); ++i) {
    if (i) out += ", ";
    append_python_json(out, run.actuals[i]);
  }
  out += ']';
}

std::string actuals_count_mismatch(std::size_t actuals, std::size_t fixtures) {
  return std::to_string(actuals) + (actuals == 1 ? " actual value" : " actual values") + " for " +
         std::to_string(fixtures) + (fixtures == 1 ? " fixture" : " fixtures");
}

Result<RunOutcome> outcome_from_actuals_text(const Case& c, StrategyKind strategy, std::string_view text,
                                             const std::string& where) {
  FAILMAP_TRY_ASSIGN(auto v, parse_value_text(text, where));
  if (!v.is_list()) return input_error(where + ": expected a JSON list of actual values");
  if (v.as_list().size() != c.fixtures.size())
    return input_error(where + ": " + actuals_count_mismatch(v.as_list().size(), c.fixtures.size()));
  return outcome_from_actuals(c, strategy, std::move(v.as_list()));
}

namespace {

bool int_like(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::None:
    case Value::Kind::Bool:
    case Value::Kind::Int:
      return true;
    case Value::Kind::List:
      for (const Value& x : v.as_list())
        if (!int_like(x)) return false;
      return true;
    default:
      return false;
  }
}

}  // namespace

bool rebuilds_without_check(const RunOutcome& run) {
  for (const Value& v : run.actuals)
    if (!int_like(v)) return false;
  return true;
}

std::optional<RunOutcome> compact_observation(const Case& c, StrategyKind strategy, std::string_view document) {
  auto j = parse_json_strict(document, "observation");
  if (!j || !j->is_object()) return std::nullopt;
  auto obs = j->find("observations");
  if (obs == j->end() || !obs->is_array() || obs->size() != c.fixtures.size()) return std::nullopt;
  std::vector<Value> actuals;
  for (const Json& o : *obs) {
    if (!o.is_object()) return std::nullopt;
    auto a = o.find("actual");
    if (a == o.end()) return std::nullopt;
    auto v = value_from_json(*a, "actual");
    if (!v) return std::nullopt;
    actuals.push_back(std::move(*v));
  }
  RunOutcome run = outcome_from_actuals(c, strategy, std::move(actuals));
  // The stored form must read back to the same values, and they must give
  // back the same bytes.
  std::string text;
  append_actuals_text(text, run);
  auto back = outcome_from_actuals_text(c, strategy, text, "actuals");
  if (!back || observation_document(c, *back) != document) return std::nullopt;
  return run;
}

std::string observation_digest(const std::string& document) { return sha256_hex(document); }

std::string observation_table(const Case& c, const RunOutcome& run) {
  std::string out = "| Boundary fixture | Actual | Expected | Outcome |\n|---|---|---|---|\n";
  for (std::size_t i = 0; i < run.actuals.size(); ++i) {
    out += "| " + c.fixtures[i].label + " | " + python_json(run.actuals[i]) + " | " +
           python_json(c.fixtures[i].expected) + " | " + (run.passed[i] ? "Passed" : "Failed") + " |\n";
  }
  return out;
}

}  // namespace failmap
