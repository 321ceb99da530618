// The split workflow (src/store/split_export.h) on a listing and an archive
// built here: the folder's files line for line, manifest.json byte for byte,
// and the report, against values worked out by hand from schema/SPLITS.md.
#include <gtest/gtest.h>

#include "support.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "encoding/json.h"
#include "encoding/sha256.h"
#include "store/archive_digests.h"
#include "store/split_export.h"

using namespace failmap;
namespace fs = std::filesystem;

namespace {

fs::path split_temp(const std::string& name) {
  fs::path p = ::failmap::testing_support::unit_temp_dir() / ("split-export-" + name);
  fs::remove_all(p);
  return p;
}

std::string split_file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(SplitExport, ListingFolderAndManifest) {
  fs::path listing = split_temp("items.jsonl");
  {
    std::ofstream f(listing, std::ios::binary);
    f << "{\"id\":\"a\",\"g\":\"x\"}\n{\"id\":\"b\",\"g\":\"x\"}\n{\"id\":\"c\",\"g\":\"y\"}\n{\"id\":\"d\",\"g\":"
         "\"z\"}\n";
  }
  SplitRequest o;
  o.ratios = "train=0.5,test=0.5";
  o.out = split_temp("listing-out").string();
  o.input = listing.string();
  o.group_fields = {"g"};
  auto r = split_listing(o);
  ASSERT_TRUE(r) << r.error().message;
  const fs::path out(o.out);
  // Balanced: the unit of two (g="x") first, into train (ties in request
  // order); then g="y" and g="z", one item each, into test, the split short
  // of its target. Listing lines are written as they are.
  const std::string assignments = split_file_text(out / "assignments.jsonl");
  EXPECT_EQ(assignments,
            "{\"id\":\"a\",\"unit\":\"g=\\\"x\\\"\",\"split\":\"train\"}\n"
            "{\"id\":\"b\",\"unit\":\"g=\\\"x\\\"\",\"split\":\"train\"}\n"
            "{\"id\":\"c\",\"unit\":\"g=\\\"y\\\"\",\"split\":\"test\"}\n"
            "{\"id\":\"d\",\"unit\":\"g=\\\"z\\\"\",\"split\":\"test\"}\n");
  const std::string train = split_file_text(out / "train.jsonl"), test = split_file_text(out / "test.jsonl");
  EXPECT_EQ(train, "{\"id\":\"a\",\"g\":\"x\"}\n{\"id\":\"b\",\"g\":\"x\"}\n");
  EXPECT_EQ(test, "{\"id\":\"c\",\"g\":\"y\"}\n{\"id\":\"d\",\"g\":\"z\"}\n");
  const std::string manifest =
      "{\"format\":\"failmap-split\",\"format_version\":2,\"algorithm_version\":1,\"source\":\"listing\","
      "\"input_sha256\":\"" +
      sha256_hex(split_file_text(listing)) +
      "\",\"group_by\":[\"field:g\"],\"mode\":\"ratios\",\"stable\":false,\"seed\":0,"
      "\"ratios\":{\"train\":0.5,\"test\":0.5},\"items\":4,\"units\":3,\"largest_unit\":2,"
      "\"splits\":[{\"name\":\"train\",\"requested\":0.5,\"achieved\":0.5,\"items\":2,\"units\":1},"
      "{\"name\":\"test\",\"requested\":0.5,\"achieved\":0.5,\"items\":2,\"units\":2}],\"max_deviation\":0.0,"
      "\"files\":{\"assignments.jsonl\":\"" +
      sha256_hex(assignments) + "\",\"test.jsonl\":\"" + sha256_hex(test) + "\",\"train.jsonl\":\"" +
      sha256_hex(train) + "\"}}\n";
  EXPECT_EQ(split_file_text(out / "manifest.json"), manifest);
  EXPECT_EQ(dump_compact(r->manifest) + "\n", manifest);
  EXPECT_EQ(split_report(o, *r),
            "split 4 item(s) in 3 unit(s) (largest 2) into 2 splits, seed 0, balanced\n"
            "SPLIT   REQUESTED  ACHIEVED  ITEMS     UNITS\n"
            "train   0.5000     0.5000    2         1\n"
            "test    0.5000     0.5000    2         2\n"
            "max deviation 0.00 pp (guaranteed below one largest unit: 50.00 pp)\n");
  EXPECT_TRUE(large_unit_warnings(o, *r).empty());
  EXPECT_EQ(rescaled_note(o, *r), "");
}

// Ratios within 0.001 of 1 are divided by their sum (in parts per billion,
// schema/SPLITS.md "Ratios"); the note and manifest.json keep the shares given.
TEST(SplitExport, ListingRatiosRescaledNote) {
  fs::path listing = split_temp("items2.jsonl");
  {
    std::ofstream f(listing, std::ios::binary);
    f << "{\"id\":\"a\",\"g\":1}\n{\"id\":\"b\",\"g\":2}\n";
  }
  SplitRequest o;
  o.ratios = "train=0.5,test=0.4995";
  o.out = split_temp("listing-rescaled").string();
  o.input = listing.string();
  o.group_fields = {"g"};
  auto r = split_listing(o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(rescaled_note(o, *r),
            "--ratios sum to 0.9995, not 1; normalised to train=0.5002501250625313,test=0.49974987493746875");
  EXPECT_EQ(r->manifest["ratios_given"], (Json{{"train", 0.5}, {"test", 0.4995}}));
}

// A listing refuses the archive's options, naming the option, and writes nothing.
TEST(SplitExport, ListingRefusesArchiveOptions) {
  SplitRequest o;
  o.ratios = "train=0.5,test=0.5";
  o.out = split_temp("listing-refused").string();
  o.input = "unused.jsonl";
  o.group_fields = {"g"};
  o.format_given = true;
  auto r = split_listing(o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "--format: not with --input, whose lines are written as they are (task records are made of the "
            "archive's cases)");
  EXPECT_FALSE(fs::exists(o.out));
}

TEST(SplitExport, ArchiveFolderAndManifest) {
  const std::string db = split_temp("archive.db").string();
  {
    auto a = Archive::open(db, Archive::Mode::Create);
    ASSERT_TRUE(a) << a.error().message;
    const std::vector<std::tuple<const char*, const char*, int>> cases = {
        {"FA-1", "gradient-accumulation-weighting", 1},
        {"FA-2", "gradient-accumulation-weighting", 2},
        {"FA-3", "gradient-accumulation-weighting", 3},
        {"FA-4", "eval-drop-last", 1}};
    for (const auto& [id, mechanism, n] : cases) {
      auto c = make_case(*find_mechanism(mechanism), id, 1, {{"N", Value::integer(n)}});
      ASSERT_TRUE(c) << c.error().message;
      ASSERT_TRUE(a->insert_case(*c));
      ASSERT_TRUE(refresh_case_digest(*a, *c));
    }
  }
  SplitRequest o;
  o.ratios = "train=0.75,test=0.25";
  o.out = split_temp("archive-out").string();
  auto r = split_archive(o, [&] { return Archive::open(db, Archive::Mode::ReadOnly); });
  ASSERT_TRUE(r) << r.error().message;
  const fs::path out(o.out);
  // Units: the three cases of gradient-accumulation-weighting (tag
  // gradient-accumulation) and FA-4 (named by its smaller tag
  // distributed-evaluation). Balanced: the unit of three into train.
  const std::string assignments = split_file_text(out / "assignments.jsonl");
  EXPECT_EQ(assignments,
            "{\"id\":\"FA-1\",\"unit\":\"group:gradient-accumulation\",\"split\":\"train\"}\n"
            "{\"id\":\"FA-2\",\"unit\":\"group:gradient-accumulation\",\"split\":\"train\"}\n"
            "{\"id\":\"FA-3\",\"unit\":\"group:gradient-accumulation\",\"split\":\"train\"}\n"
            "{\"id\":\"FA-4\",\"unit\":\"group:distributed-evaluation\",\"split\":\"test\"}\n");
  // No recorded runs: one case record per line, with its unit and split.
  const std::string train = split_file_text(out / "train.jsonl"), test = split_file_text(out / "test.jsonl");
  std::vector<std::string> seen;
  for (const std::string* text : {&train, &test}) {
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      Json rec = Json::parse(line);
      EXPECT_EQ(rec["record"], "case");
      EXPECT_EQ(rec["case_tier"], "open");
      seen.push_back(rec["id"].get<std::string>() + " " + rec["unit"].get<std::string>() + " " +
                     rec["split"].get<std::string>());
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "FA-1 group:gradient-accumulation train", "FA-2 group:gradient-accumulation train",
                      "FA-3 group:gradient-accumulation train", "FA-4 group:distributed-evaluation test"}));
  const std::string train_tier = k_build_has_repairs ? "member" : "open";
  const std::string manifest =
      "{\"format\":\"failmap-split\",\"format_version\":2,\"algorithm_version\":1,\"source\":\"archive\","
      "\"group_by\":[\"mechanism\",\"evaluation_group\"],\"mode\":\"ratios\",\"stable\":false,\"seed\":0,"
      "\"ratios\":{\"train\":0.75,\"test\":0.25},\"test_tier\":\"open\",\"record_format\":\"cases\",\"items\":4,"
      "\"units\":2,\"largest_unit\":3,\"runs\":0,"
      "\"splits\":[{\"name\":\"train\",\"requested\":0.75,\"achieved\":0.75,\"items\":3,\"units\":1,"
      "\"export_tier\":\"" +
      train_tier +
      "\"},{\"name\":\"test\",\"requested\":0.25,\"achieved\":0.25,\"items\":1,\"units\":1,\"export_tier\":\"open\"}],"
      "\"max_deviation\":0.0,\"unit_list\":[{\"unit\":\"group:distributed-evaluation\",\"items\":1,\"split\":\"test\","
      "\"mechanisms\":[\"eval-drop-last\"]},{\"unit\":\"group:gradient-accumulation\",\"items\":3,\"split\":\"train\","
      "\"mechanisms\":[\"gradient-accumulation-weighting\"]}],\"files\":{\"assignments.jsonl\":\"" +
      sha256_hex(assignments) + "\",\"test.jsonl\":\"" + sha256_hex(test) + "\",\"train.jsonl\":\"" +
      sha256_hex(train) + "\"}}\n";
  EXPECT_EQ(split_file_text(out / "manifest.json"), manifest);
  EXPECT_EQ(r->runs_recorded, 0u);
  EXPECT_EQ(r->archive_path, db);
  EXPECT_EQ(split_report(o, *r),
            "split 4 case(s) in 2 unit(s) (largest 3) into 2 splits, seed 0, balanced\n"
            "SPLIT   REQUESTED  ACHIEVED  ITEMS     UNITS\n"
            "train   0.7500     0.7500    3         1\n"
            "test    0.2500     0.2500    1         1\n"
            "max deviation 0.00 pp (guaranteed below one largest unit: 75.00 pp)\n"
            "UNIT                          CASES  SHARE    SPLIT  MECHANISMS\n"
            "group:gradient-accumulation   3      75.00%   train  gradient-accumulation-weighting\n"
            "group:distributed-evaluation  1      25.00%   test   eval-drop-last\n");
  EXPECT_EQ(large_unit_warnings(o, *r),
            (std::vector<std::string>{"unit group:gradient-accumulation holds 3 of 4 case(s) (75.00%), more than the "
                                      "0.2500 asked for split test: no assignment can balance the splits"}));
  // `split check` of the folder just written: clean by tags and by content,
  // each case claimed in its split's file and again in assignments.jsonl.
  auto audit =
      audit_split_folder(SplitCheckRequest{o.out, "", {}}, [&] { return Archive::open(db, Archive::Mode::ReadOnly); });
  ASSERT_TRUE(audit) << audit.error().message;
  EXPECT_TRUE(audit->clean());
  EXPECT_FALSE(audit->listing);
  EXPECT_EQ(audit->claims.size(), 8u);
  EXPECT_EQ(audit->by_unit.claimed_items, 4u);
  EXPECT_EQ(audit->items, 4u);
  EXPECT_EQ(audit->units, 2u);
  ASSERT_TRUE(audit->by_content);
  EXPECT_TRUE(audit->by_content->straddles.empty());
  EXPECT_EQ(audit->where_claimed("FA-4"), (std::vector<std::string>{"assignments.jsonl:4", "test.jsonl:1"}));
}

// A hand-made folder audited against a listing: ids in their JSON spelling,
// a unit in two splits, an id the listing lacks, an id listed twice for one
// split; no content audit. --group-field needs --input.
TEST(SplitExport, AuditOfAHandMadeFolderAgainstAListing) {
  fs::path listing = split_temp("items3.jsonl");
  std::ofstream(listing, std::ios::binary) << "{\"id\":\"a\",\"g\":\"x\"}\n{\"id\":\"b\",\"g\":\"x\"}\n{\"id\":\"c\","
                                              "\"g\":\"y\"}\n{\"id\":\"d\",\"g\":\"z\"}\n";
  const fs::path dir = split_temp("hand-made");
  fs::create_directories(dir);
  std::ofstream(dir / "train.jsonl", std::ios::binary) << "{\"id\":\"a\"}\n{\"id\":\"c\"}\n{\"id\":\"c\"}\n";
  std::ofstream(dir / "test.jsonl", std::ios::binary) << "{\"id\":\"b\"}\n{\"id\":\"e\"}\n";
  auto no_archive = []() -> Result<Archive> { return input_error("no archive"); };
  auto audit = audit_split_folder(SplitCheckRequest{dir.string(), listing.string(), {"g"}}, no_archive);
  ASSERT_TRUE(audit) << audit.error().message;
  EXPECT_FALSE(audit->clean());
  EXPECT_TRUE(audit->listing);
  EXPECT_EQ(audit->claims.size(), 5u);
  EXPECT_EQ(audit->items, 4u);
  EXPECT_EQ(audit->units, 3u);
  EXPECT_EQ(audit->by_unit.claimed_items, 3u);
  ASSERT_EQ(audit->by_unit.straddles.size(), 1u);
  EXPECT_EQ(audit->by_unit.straddles[0].unit_key, "g=\"x\"");
  EXPECT_EQ(audit->by_unit.straddles[0].members,
            (std::vector<std::pair<std::string, std::string>>{{"test", "\"b\""}, {"train", "\"a\""}}));
  EXPECT_EQ(audit->by_unit.unknown_ids, (std::vector<std::string>{"\"e\""}));
  EXPECT_EQ(audit->where_claimed("\"e\""), (std::vector<std::string>{"test.jsonl:2"}));
  ASSERT_EQ(audit->duplicates.size(), 1u);
  EXPECT_EQ(audit->duplicates[0].id, "\"c\"");
  EXPECT_EQ(audit->duplicates[0].split, "train");
  EXPECT_EQ(audit->duplicates[0].where, (std::vector<std::string>{"train.jsonl:2", "train.jsonl:3"}));
  EXPECT_FALSE(audit->by_content);
  auto refused = audit_split_folder(SplitCheckRequest{dir.string(), "", {"g"}}, no_archive);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "--group-field needs --input ITEMS.jsonl");
}
