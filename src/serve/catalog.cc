#include "serve/catalog.h"

#include "core/expr.h"
#include "store/case_rows.h"

namespace failmap::serve {

Json mechanism_json(const Mechanism& m, std::int64_t cases) {
  Json params = Json::array();
  for (std::size_t i = 0; i < m.parameters.size(); ++i) {
    Json p = Json::object();
    p["name"] = std::string(m.parameters[i]);
    p["minimum"] = i < m.parameter_minimum.size() ? m.parameter_minimum[i] : 0;
    p["maximum"] = i < m.parameter_maximum.size() ? Json(m.parameter_maximum[i]) : Json(nullptr);
    Json d = nullptr;
    if (i < m.default_binding.size())
      if (auto v = evaluate_expression(m.default_binding[i], {})) d = value_to_json(*v);
    p["default"] = std::move(d);
    params.push_back(std::move(p));
  }
  Json groups = Json::array();
  for (std::string_view g : m.evaluation_group) groups.push_back(std::string(g));
  Json j = Json::object();
  j["id"] = std::string(m.id);
  j["title"] = std::string(m.title);
  j["source"] = m.source.empty() ? Json(nullptr) : Json(std::string(m.source));
  j["evaluation_group"] = std::move(groups);
  j["parameters"] = std::move(params);
  j["checks"] = m.fixtures.size();
  j["repair_compiled"] = m.strategy(StrategyKind::Repaired).solve != nullptr;
  j["cases"] = cases;
  return j;
}

Json case_summary_json(const CaseSummary& s) {
  Case c;
  c.mechanism = s.mechanism;
  Json params;
  if (decode_stored_params(s.params, c, "case " + s.id)) {
    params = Json::object();
    for (const auto& [name, value] : c.params) params[name] = value_to_json(value);
  } else {
    params = s.params;
  }
  Json j = Json::object();
  j["id"] = s.id;
  j["mechanism"] = s.mechanism;
  j["variant"] = s.variant;
  j["title"] = s.title;
  j["case_tier"] = std::string(tier_name(s.tier));
  j["params"] = std::move(params);
  j["runs"] = s.runs;
  return j;
}

}  // namespace failmap::serve
