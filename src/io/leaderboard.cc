#include "io/leaderboard.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "encoding/file.h"
#include "encoding/input_problem.h"
#include "encoding/json.h"
#include "encoding/text.h"
#include "io/bundle.h"

namespace fs = std::filesystem;

namespace failmap {
namespace {

// Reads members of one summary.json, each error naming `where` and the field.
class Reader {
 public:
  explicit Reader(std::string where) : m_where(std::move(where)) {}

  Error bad(const std::string& field, const std::string& expected, const Json& got) const {
    return input_error(m_where + ": field '" + field + "': expected " + expected + ", got " + describe_json_value(got));
  }

  Result<std::uint64_t> count(const Json& object, const std::string& path, const char* key) const {
    auto it = object.find(key);
    if (it == object.end()) return input_error(m_where + ": field '" + path + key + "': missing");
    if (!it->is_number_unsigned()) return bad(path + key, "a whole number", *it);
    return it->get<std::uint64_t>();
  }

  Result<double> rate(const Json& v, const std::string& field) const {
    if (!v.is_number()) return bad(field, "a number from 0 to 1", v);
    double d = v.get<double>();
    if (!std::isfinite(d) || d < 0 || d > 1) return bad(field, "a number from 0 to 1", v);
    return d;
  }

  // "K": a whole number from 1 (the keys of pass_at_k and its intervals).
  Result<std::uint64_t> k_of(const std::string& key, const std::string& field) const {
    std::uint64_t k = 0;
    if (key.empty() || key.size() > 6 || key[0] == '0')
      return bad(field, "keys that are whole numbers from 1", Json(key));
    for (char c : key) {
      if (c < '0' || c > '9') return bad(field, "keys that are whole numbers from 1", Json(key));
      k = k * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return k;
  }

  Result<std::vector<std::pair<std::uint64_t, double>>> pass_at_k(const Json& v, const std::string& field) const {
    if (!v.is_object()) return bad(field, "an object of \"K\": pass@K", v);
    std::vector<std::pair<std::uint64_t, double>> out;
    for (const auto& [key, value] : v.items()) {
      FAILMAP_TRY_ASSIGN(auto k, k_of(key, field));
      FAILMAP_TRY_ASSIGN(auto r, rate(value, field + "." + key));
      out.emplace_back(k, r);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<ScoreInterval> interval(const Json& v, const std::string& field) const {
    const char* shape = "[LOW, HIGH] or {\"low\", \"high\"} with 0 <= LOW <= HIGH <= 1";
    Json low, high;
    if (v.is_array() && v.size() == 2) {
      low = v[0];
      high = v[1];
    } else if (v.is_object() && v.contains("low") && v.contains("high")) {
      low = v["low"];
      high = v["high"];
    } else {
      return bad(field, shape, v);
    }
    auto l = rate(low, field), h = rate(high, field);
    if (!l || !h || *l > *h) return bad(field, shape, v);
    return ScoreInterval{*l, *h};
  }

  Result<std::map<std::uint64_t, ScoreInterval>> intervals(const Json& object, const std::string& path) const {
    std::map<std::uint64_t, ScoreInterval> out;
    auto it = object.find("pass_at_k_interval");
    if (it == object.end() || it->is_null()) return out;
    const std::string field = path + "pass_at_k_interval";
    if (!it->is_object()) return bad(field, "an object of \"K\": [LOW, HIGH]", *it);
    for (const auto& [key, value] : it->items()) {
      FAILMAP_TRY_ASSIGN(auto k, k_of(key, field));
      if (value.is_null()) continue;  // no interval at this k (schema/GRADING.md "Intervals"): shown as "-"
      FAILMAP_TRY_ASSIGN(auto i, interval(value, field + "." + key));
      out[k] = i;
    }
    return out;
  }

  const std::string& where() const { return m_where; }

 private:
  std::string m_where;
};

}  // namespace

Result<std::vector<ModelScore>> read_grading_scores(std::string_view text, const std::string& where) {
  FAILMAP_TRY_ASSIGN(auto parsed, parse_json_file(text, where));
  const Json& j = parsed;
  Reader r(where);
  if (!j.is_object()) return r.bad("", "a JSON object", j);
  auto format = j.find("format");
  if (format == j.end() || *format != "failmap-grade-summary")
    return r.bad("format", "\"failmap-grade-summary\" (a summary.json of failmap grade)",
                 format == j.end() ? Json() : *format);
  std::string split;
  if (auto s = j.find("split"); s != j.end() && !s->is_null()) {
    if (!s->is_string()) return r.bad("split", "a string or null", *s);
    split = s->get<std::string>();
  }
  std::uint64_t held_out = 0;
  if (auto h = j.find("held_out"); h != j.end()) {
    if (!h->is_number_unsigned()) return r.bad("held_out", "a whole number", *h);
    held_out = h->get<std::uint64_t>();
  }
  auto models = j.find("models");
  if (models == j.end() || !models->is_object())
    return r.bad("models", "an object of model name: scores", models == j.end() ? Json() : *models);
  std::vector<ModelScore> out;
  for (const auto& [name, m] : models->items()) {
    const std::string path = "models." + name + ".";
    if (!m.is_object()) return r.bad("models." + name, "an object", m);
    ModelScore s;
    s.split = split;
    s.model = name;
    s.held_out = held_out;
    for (auto [key, dest] :
         std::initializer_list<std::pair<const char*, std::uint64_t*>>{{"cases", &s.cases},
                                                                       {"predictions", &s.predictions},
                                                                       {"resolved", &s.resolved},
                                                                       {"partial", &s.partial},
                                                                       {"unresolved", &s.unresolved},
                                                                       {"errors", &s.errors}}) {
      FAILMAP_TRY_ASSIGN(auto n, r.count(m, path, key));
      *dest = n;
    }
    if (s.resolved + s.partial + s.unresolved + s.errors != s.predictions)
      return input_error(where + ": field '" + path + "predictions': " + std::to_string(s.predictions) +
                         ", but resolved, partial, unresolved and errors add up to " +
                         std::to_string(s.resolved + s.partial + s.unresolved + s.errors));
    if (m.contains("held_out_resolved")) {
      FAILMAP_TRY_ASSIGN(s.held_out_resolved, r.count(m, path, "held_out_resolved"));
    }
    auto p = m.find("pass_at_k");
    if (p == m.end()) return input_error(where + ": field '" + path + "pass_at_k': missing");
    FAILMAP_TRY_ASSIGN(s.pass_at_k, r.pass_at_k(*p, path + "pass_at_k"));
    FAILMAP_TRY_ASSIGN(s.pass_at_k_interval, r.intervals(m, path));
    if (auto c = m.find("coverage"); c != m.end() && c->is_number()) {
      // summary.json's own form (schema/GRADING.md): the share cases / split_cases, beside both counts.
      FAILMAP_TRY_ASSIGN(auto attempted, r.count(m, path, "cases"));
      FAILMAP_TRY_ASSIGN(auto of, r.count(m, path, "split_cases"));
      if (attempted > of) return r.bad(path + "cases", "at most split_cases", m["cases"]);
      s.coverage = std::pair{attempted, of};
    } else if (c != m.end() && !c->is_null()) {
      if (!c->is_object())
        return r.bad(path + "coverage",
                     "a share with \"cases\" and \"split_cases\", or an object {\"attempted\", \"cases\"}", *c);
      FAILMAP_TRY_ASSIGN(auto attempted, r.count(*c, path + "coverage.", "attempted"));
      FAILMAP_TRY_ASSIGN(auto of, r.count(*c, path + "coverage.", "cases"));
      if (attempted > of) return r.bad(path + "coverage", "attempted at most cases", *c);
      s.coverage = std::pair{attempted, of};
    }
    if (auto mechs = m.find("mechanisms"); mechs != m.end()) {
      if (!mechs->is_object()) return r.bad(path + "mechanisms", "an object of mechanism id: scores", *mechs);
      for (const auto& [id, mv] : mechs->items()) {
        const std::string mpath = path + "mechanisms." + id + ".";
        if (!mv.is_object()) return r.bad(path + "mechanisms." + id, "an object", mv);
        MechanismScore ms;
        ms.id = id;
        for (auto [key, dest] : std::initializer_list<std::pair<const char*, std::uint64_t*>>{
                 {"cases", &ms.cases}, {"predictions", &ms.predictions}, {"resolved", &ms.resolved}}) {
          FAILMAP_TRY_ASSIGN(auto n, r.count(mv, mpath, key));
          *dest = n;
        }
        if (ms.resolved > ms.predictions) return r.bad(mpath + "resolved", "at most predictions", mv["resolved"]);
        if (auto mp = mv.find("pass_at_k"); mp != mv.end()) {
          FAILMAP_TRY_ASSIGN(auto mk, r.pass_at_k(*mp, mpath + "pass_at_k"));
          if (!mk.empty() && mk.front().first == 1) ms.pass_at_1 = mk.front().second;
        }
        FAILMAP_TRY_ASSIGN(auto miv, r.intervals(mv, mpath));
        if (miv.count(1)) ms.interval = miv.at(1);
        s.mechanisms.push_back(std::move(ms));
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<ModelScore>> read_grading_folder(const fs::path& dir) {
  std::vector<InputProblem> problems;
  auto manifest = check_bundle_files(dir, &problems, true, /*any_kind=*/true);
  if (manifest && manifest->format != "failmap-grading")
    return input_error(dir.string() + ": not a grading (its manifest.json says '" + manifest->format +
                       "'; --results reads the folders of failmap grade)");
  if (!problems.empty())
    return input_error(describe(problems.front()) +
                       (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more problem(s); " +
                                                  "`failmap verify-bundle " + dir.string() + "` lists them)"
                                            : std::string()));
  if (!manifest) return input_error(dir.string() + ": not a grading folder");
  FAILMAP_TRY_ASSIGN(auto text, read_file(dir / "summary.json"));
  FAILMAP_TRY_ASSIGN(auto scores, read_grading_scores(text, (dir / "summary.json").string()));
  for (ModelScore& s : scores) s.folder = dir.string();
  return scores;
}

}  // namespace failmap
