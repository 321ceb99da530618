// Access tiers: every file of every open-tier export (JSONL bundle, pages and
// site) of every compiled mechanism is scanned for the repaired source (raw,
// as a JSON string, stripped of indentation as a page would show it, and
// escaped as the site's HTML shows it), the repaired observation document
// and its digest. None may appear. The member export of the same archive is
// the positive control: it must contain them.
#include <gtest/gtest.h>

#include "support.h"
#include <unistd.h>

#include <filesystem>

#include "core/evaluate.h"
#include "encoding/file.h"
#include "encoding/pyjson.h"
#include "io/observation.h"
#include "io/site.h"
#include "store/archive.h"
#include "store/archive_digests.h"
#include "store/exporter.h"
#include "store/site_export.h"

namespace fs = std::filesystem;
using namespace failmap;

namespace {

std::string json_string(std::string_view s) {
  std::string out;
  append_python_json_string(out, s);
  return out.substr(1, out.size() - 2);  // without the quotes
}

std::string stripped(std::string_view source) {
  std::string out;
  std::size_t pos = 0;
  while (pos < source.size()) {
    std::size_t nl = source.find('\n', pos);
    std::string_view line = source.substr(pos, nl - pos);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    out.append(line).push_back('\n');
    pos = nl == std::string_view::npos ? source.size() : nl + 1;
  }
  return out;
}

std::string all_files(const fs::path& dir) {
  std::string out;
  for (const auto& e : fs::directory_iterator(dir)) out += *read_file(e.path()) + "\n\x01\n";
  return out;
}

}  // namespace

TEST(TierLeakage, OpenExportsHoldNothingOfTheRepair) {
  FAILMAP_NEEDS_REPAIRS();
  fs::path dir = ::failmap::testing_support::unit_temp_dir() / ("failmap-leak-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto archive = Archive::open((dir / "a.db").string(), Archive::Mode::Create);
  ASSERT_TRUE(archive.ok()) << archive.error().message;
  struct Secret {
    std::string what, text;
    bool member_shows = true;  // false: a form no export writes at any tier (raw multi-line source)
  };
  std::vector<Secret> secrets;
  {
    Transaction tx(archive->db());
    ASSERT_TRUE(tx.begin().ok());
    int n = 0;
    for (const Mechanism* m : all_mechanisms()) {
      Bindings params;
      for (std::size_t i = 0; i < m->parameters.size(); ++i)
        params.emplace_back(std::string(m->parameters[i]), *evaluate_expression(m->default_binding[i], {}));
      auto c = make_case(*m, "L-" + std::to_string(++n), 1, params);
      ASSERT_TRUE(c.ok()) << m->id << ": " << c.error().message;
      c->published.runs.push_back(
          PublishedRun{StrategyKind::Repaired, 0, sha256_hex(std::string(m->id) + " repaired")});
      ASSERT_TRUE(archive->insert_case(*c).ok());
      for (StrategyKind k : k_all_strategies) {
        auto run = run_strategy(*c, k);
        ASSERT_TRUE(run.ok()) << run.error().message;
        RunRecord r{c->id, k, observation_document(*c, *run), run->exit_status(), "", "0", "2026-01-01T00:00:00Z"};
        r.digest = observation_digest(r.observation);
        ASSERT_TRUE(archive->record_run(r).ok());
        if (k != StrategyKind::Repaired) continue;
        std::string src(m->strategy(k).python);
        secrets.push_back({std::string(m->id) + " repaired source", src, false});
        secrets.push_back({std::string(m->id) + " repaired source as JSON", json_string(src)});
        secrets.push_back({std::string(m->id) + " repaired source as a page shows it", stripped(src)});
        secrets.push_back({std::string(m->id) + " repaired source as the site shows it", site_html_escape(src)});
        secrets.push_back({std::string(m->id) + " repaired observation digest", r.digest});
        secrets.push_back({std::string(m->id) + " repaired observation as JSON", json_string(r.observation)});
        secrets.push_back({std::string(m->id) + " published repaired digest", c->published.runs.back().digest});
      }
      // As `failmap run` does: the case digest then covers the runs (export
      // refuses a case whose stored digest does not match).
      ASSERT_TRUE(refresh_case_digest(*archive, *c).ok());
    }
    ASSERT_TRUE(tx.commit().ok());
  }
  ASSERT_FALSE(secrets.empty());
  // The repair's section and its recorded outcome on the site's index and mechanism pages.
  secrets.push_back({"repair section heading", "3 / The repair"});
  secrets.push_back({"repair run outcome", "<li class=\"passed\">repair "});
  for (Tier tier : {Tier::Open, Tier::Member}) {
    std::string t(tier_name(tier));
    ASSERT_TRUE(export_jsonl(*archive, ExportOptions{tier, {}, dir / (t + "-jsonl")}).ok());
    ASSERT_TRUE(export_pages(*archive, ExportOptions{tier, {}, dir / (t + "-pages")}).ok());
    ASSERT_TRUE(export_site(*archive, ExportOptions{tier, {}, dir / (t + "-site")}).ok());
  }
  std::string open = all_files(dir / "open-jsonl") + all_files(dir / "open-pages") + all_files(dir / "open-site");
  std::string member_jsonl = all_files(dir / "member-jsonl"), member_pages = all_files(dir / "member-pages");
  std::string member_site = all_files(dir / "member-site");
  for (const Secret& s : secrets) {
    EXPECT_EQ(open.find(s.text), std::string::npos) << "open-tier export contains the " << s.what;
    // Positive control: the member tier carries the repair in one form or another.
    bool in_member = member_jsonl.find(s.text) != std::string::npos || member_pages.find(s.text) != std::string::npos ||
                     member_site.find(s.text) != std::string::npos;
    EXPECT_TRUE(in_member || !s.member_shows) << "member-tier export lacks the " << s.what;
  }
  fs::remove_all(dir);
}
