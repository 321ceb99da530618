// scripts/new-mechanism marks every part a curator must fill in with
// TODO(curator); a mechanism that still holds one is not finished, and this
// test fails until none is left (CONTRIBUTING.md).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/mechanism.h"

using namespace failmap;

namespace {

constexpr std::string_view k_marker = "TODO(curator)";

/// Every text member of a mechanism, named for the failure message.
std::vector<std::pair<std::string, std::string_view>> texts(const Mechanism& m) {
  std::vector<std::pair<std::string, std::string_view>> out = {
      {"id", m.id},
      {"title", m.title},
      {"source", m.source},
      {"prose.case_title", m.prose.case_title},
      {"prose.summary", m.prose.summary},
      {"prose.root_cause", m.prose.root_cause},
      {"prose.failure", m.prose.failure},
      {"prose.unsuccessful_approach", m.prose.unsuccessful_approach},
      {"prose.contract", m.prose.contract},
      {"prose.why_it_matters", m.prose.why_it_matters},
      {"prose.scope", m.prose.scope},
  };
  for (std::string_view tag : m.evaluation_group) out.emplace_back("evaluation_group", tag);
  for (StrategyKind kind : k_all_strategies)
    out.emplace_back(std::string("python of ") + std::string(strategy_name(kind)), m.strategy(kind).python);
  for (const FixtureTemplate& f : m.fixtures) {
    out.emplace_back("fixture label", f.label);
    out.emplace_back("fixture args of '" + std::string(f.label) + "'", f.args);
    out.emplace_back("fixture expected of '" + std::string(f.label) + "'", f.expected);
  }
  return out;
}

}  // namespace

TEST(MechanismScaffold, NoMechanismKeepsACuratorTodo) {
  for (const Mechanism* m : all_mechanisms())
    for (const auto& [what, text] : texts(*m))
      EXPECT_EQ(text.find(k_marker), std::string_view::npos)
          << m->id << ": " << what << " still holds " << k_marker << ": " << text;
}

TEST(MechanismScaffold, MarkerIsFoundWhereItStands) {
  // The check above must see a marker in any member; a mechanism-shaped
  // value with one in its source URL is reported.
  Mechanism m{};
  m.id = "scaffolded";
  m.source = "TODO(curator): https URL of the bug report or fix";
  bool found = false;
  for (const auto& [what, text] : texts(m)) found = found || text.find(k_marker) != std::string_view::npos;
  EXPECT_TRUE(found);
}
