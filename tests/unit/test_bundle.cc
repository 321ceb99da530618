// JSONL bundle records (src/io/bundle.h): shapes, tiers, manifest and sums.
#include <gtest/gtest.h>

#include "support.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "encoding/file.h"
#include "encoding/input_problem.h"
#include "encoding/jsonl.h"
#include "encoding/limits.h"
#include "encoding/sha256.h"
#include "io/bundle.h"
#include "io/case_file.h"

namespace fs = std::filesystem;
using namespace failmap;
using namespace failmap::testing_support;

namespace {

fs::path temp_dir(const std::string& name) {
  fs::path d =
      ::failmap::testing_support::unit_temp_dir() / ("failmap-unit-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

}  // namespace

TEST(Bundle, TierShowsNeverTheRepairAtOpenTier) {
  EXPECT_TRUE(tier_shows(Tier::Open, StrategyKind::Broken));
  EXPECT_TRUE(tier_shows(Tier::Open, StrategyKind::Unsuccessful));
  EXPECT_FALSE(tier_shows(Tier::Open, StrategyKind::Repaired));
  EXPECT_TRUE(tier_shows(Tier::Member, StrategyKind::Repaired));
}

TEST(Bundle, CaseRecordIsCaseFileWithRecordKeyFirst) {
  Case c = seed_case_from_file();
  std::string line = dump_compact(case_record(c, Tier::Open));
  EXPECT_EQ(line.rfind("{\"record\":\"case\",\"format\":\"failmap-case\",\"format_version\":1,\"id\":\"FA-98921\",", 0),
            0u)
      << line;
  EXPECT_NE(line.find("\"fixtures\":[{\"label\":\"short final batch\",\"args\":[[1,1,1],2],\"expected\":3}"),
            std::string::npos);
  // Reading it back as a case file gives the same case.
  std::vector<std::string> errors;
  Case back;
  ASSERT_TRUE(case_from_json(case_record(c, Tier::Open), "x", &back, &errors)) << errors.at(0);
  EXPECT_EQ(dump_compact(case_to_json(back)), dump_compact(case_to_json(c)));
}

TEST(Bundle, DirectRecordWritersEqualDumpCompactOfTheRecords) {
  // Export writes records with append_case_record_open / append_run_record;
  // they must give dump_compact's bytes for every case of cases/ and for
  // values dump_compact spells specially (floats, escapes, NaN, non-ASCII).
  std::vector<Case> cases;
  for (const auto& e : fs::directory_iterator(fs::path(FAILMAP_SOURCE_DIR) / "cases")) {
    if (e.path().extension() != ".json") continue;  // cases/GROUPS.md is prose
    Case c;
    std::vector<std::string> errors;
    ASSERT_TRUE(read_case_file(e.path(), &c, &errors)) << e.path();
    cases.push_back(std::move(c));
  }
  ASSERT_GT(cases.size(), 10u);
  Case odd = seed_case_from_file();
  odd.prose.summary = "tab\there \"quoted\" \\ \x01\x1f caf\xc3\xa9 \xf0\x9f\x98\x80";
  odd.params = {{"N", Value::floating(1e16)}, {"\xc3\xa9", Value::floating(-0.0)}};
  odd.fixtures[0].args = {Value::list({Value::floating(0.1), Value::none(), Value::boolean(false)}),
                          Value::str("a\nb")};
  odd.fixtures[0].expected = Value::floating(std::nan(""));
  odd.fixtures[1].expected = Value::floating(1e-5);
  odd.published.runs = {{StrategyKind::Broken, 1, std::string(64, 'a')},
                        {StrategyKind::Repaired, 0, std::string(64, 'b')}};
  odd.published.case_digest = "";
  Case only_repaired = seed_case_from_file();
  only_repaired.published.runs = {{StrategyKind::Repaired, 0, std::string(64, 'c')}};
  only_repaired.published.case_digest = "";
  cases.push_back(odd);
  cases.push_back(only_repaired);
  for (const Case& c : cases) {
    for (Tier tier : {Tier::Open, Tier::Member}) {
      std::string direct;
      append_case_record_open(direct, c, tier);
      EXPECT_EQ(direct + "}", dump_compact(bundle_case_record(c, tier))) << c.id << " " << tier_name(tier);
    }
  }
  RunRecord r{"FA-1",  StrategyKind::Unsuccessful, "{\"observations\": [], \"passed\": true}", 0, std::string(64, 'd'),
              "0.1.0", "2026-11-30T00:00:00Z"};
  std::string direct;
  append_run_record(direct, r);
  EXPECT_EQ(direct, dump_compact(run_record(r)));
}

TEST(CaseSchema, FastCheckAcceptsRealRecordsAndRefusesEveryViolation) {
  // surely_matches_case_schema lets import skip valijson; it must never
  // accept what schema/case.schema.json refuses. Each mutation below breaks
  // one rule of the schema: the fast check must say "not sure" and the full
  // validation must refuse it.
  for (const auto& e : fs::directory_iterator(fs::path(FAILMAP_SOURCE_DIR) / "cases")) {
    if (e.path().extension() != ".json") continue;  // cases/GROUPS.md is prose
    Case c;
    std::vector<std::string> errors;
    ASSERT_TRUE(read_case_file(e.path(), &c, &errors)) << e.path();
    for (Tier tier : {Tier::Open, Tier::Member})
      EXPECT_TRUE(surely_matches_case_schema(case_record(c, tier))) << e.path();
  }
  Case seed = seed_case_from_file();
  seed.published.runs = {{StrategyKind::Broken, 1, std::string(64, 'a')}};
  seed.published.case_digest = std::string(64, 'b');
  Json base = case_record(seed, Tier::Member);
  base["case_digest"] = std::string(64, 'c');
  base["repair_salt"] = std::string(64, 'd');
  base["repair_commitment"] = std::string(64, 'e');
  ASSERT_TRUE(surely_matches_case_schema(base));
  std::vector<std::string> none;
  Case parsed;
  ASSERT_TRUE(case_from_json(base, "base", &parsed, &none)) << none.at(0);

  using Edit = std::function<void(Json&)>;
  auto set = [](const char* key, Json v) -> Edit { return [key, v](Json& j) { j[key] = v; }; };
  auto drop = [](const char* key) -> Edit { return [key](Json& j) { j.erase(key); }; };
  auto fixture = [](const char* key, Json v) -> Edit { return [key, v](Json& j) { j["fixtures"][0][key] = v; }; };
  auto published_run = [](const char* key, Json v) -> Edit {
    return [key, v](Json& j) { j["published"]["runs"][0][key] = v; };
  };
  Json many_fixtures = Json::array();
  for (int i = 0; i < 65; ++i) many_fixtures.push_back(base["fixtures"][0]);
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"extra member", set("extra", 1)},
      {"no title", drop("title")},
      {"no fixtures", drop("fixtures")},
      {"record", set("record", "run")},
      {"case_digest short", set("case_digest", std::string(63, 'a'))},
      {"case_digest upper", set("case_digest", std::string(64, 'A'))},
      {"repair_salt number", set("repair_salt", 7)},
      {"repair_commitment", set("repair_commitment", std::string(64, 'g'))},
      {"format", set("format", "other")},
      {"format_version 2", set("format_version", 2)},
      {"format_version 0", set("format_version", 0)},
      {"format_version float", set("format_version", 1.0)},
      {"format_version text", set("format_version", "1")},
      {"id slash", set("id", "a/b")},
      {"id dot first", set("id", ".x")},
      {"id empty", set("id", "")},
      {"id space", set("id", "a b")},
      {"id 65", set("id", std::string(65, 'a'))},
      {"mechanism dash first", set("mechanism", "-a")},
      {"mechanism dash last", set("mechanism", "a-")},
      {"mechanism double dash", set("mechanism", "a--b")},
      {"mechanism upper", set("mechanism", "Abc")},
      {"mechanism empty", set("mechanism", "")},
      {"variant 0", set("variant", 0)},
      {"variant 100", set("variant", 100)},
      {"variant -1", set("variant", -1)},
      {"variant float", set("variant", 1.5)},
      {"variant text", set("variant", "1")},
      {"title empty", set("title", "")},
      {"title 401", set("title", std::string(401, 't'))},
      {"tier", set("tier", "public")},
      {"summary 4001", set("summary", std::string(4001, 's'))},
      {"why_it_matters 4001", set("why_it_matters", std::string(4001, 's'))},
      {"scope 8001", set("scope", std::string(8001, 's'))},
      {"summary number", set("summary", 5)},
      {"params text value", set("params", Json{{"N", "1"}})},
      {"params null value", set("params", Json{{"N", nullptr}})},
      {"params array", set("params", Json::array())},
      {"fixtures 65", set("fixtures", many_fixtures)},
      {"fixtures object", set("fixtures", Json::object())},
      {"fixture extra", fixture("extra", 1)},
      {"fixture no expected", [](Json& j) { j["fixtures"][0].erase("expected"); }},
      {"fixture label empty", fixture("label", "")},
      {"fixture label 201", fixture("label", std::string(201, 'l'))},
      {"fixture label number", fixture("label", 3)},
      {"fixture args object", fixture("args", Json::object())},
      {"fixture args 17", fixture("args", Json(std::vector<int>(17, 1)))},
      {"fixture not object", [](Json& j) { j["fixtures"][0] = 3; }},
      {"evaluation_group upper", set("evaluation_group", Json{"A"})},
      {"evaluation_group twice", set("evaluation_group", Json{"x", "x"})},
      {"evaluation_group text", set("evaluation_group", "x")},
      {"evaluation_group number", set("evaluation_group", Json{1})},
      {"recorded runtime number", set("recorded", Json{{"runtime", 1}})},
      {"recorded extra", set("recorded", Json{{"extra", ""}})},
      {"recorded at 65", set("recorded", Json{{"at", std::string(65, 'a')}})},
      {"recorded runtime 201", set("recorded", Json{{"runtime", std::string(201, 'r')}})},
      {"recorded text", set("recorded", "x")},
      {"published extra", [](Json& j) { j["published"]["x"] = 1; }},
      {"published runs object", [](Json& j) { j["published"]["runs"] = Json::object(); }},
      {"published case_digest", [](Json& j) { j["published"]["case_digest"] = "abc"; }},
      {"published strategy", published_run("strategy", "other")},
      {"published exit 256", published_run("exit_status", 256)},
      {"published exit -1", published_run("exit_status", -1)},
      {"published exit float", published_run("exit_status", 0.0)},
      {"published digest", published_run("digest", "xyz")},
      {"published run extra", published_run("extra", 1)},
      {"published run no digest", [](Json& j) { j["published"]["runs"][0].erase("digest"); }},
      {"published text", set("published", "x")},
      {"not an object", [](Json& j) { j = Json::array(); }},
  };
  for (const auto& [name, edit] : edits) {
    Json j = base;
    edit(j);
    EXPECT_FALSE(surely_matches_case_schema(j)) << name;
    std::vector<std::string> errors;
    Case c;
    EXPECT_FALSE(case_from_json(j, name, &c, &errors)) << name;
  }
  // Within the schema's character limits but beyond the fast check's byte
  // limits: not sure, and valijson accepts it.
  Json wide = base;
  std::string title;
  for (int i = 0; i < 400; ++i) title += "\xc3\xa9";
  wide["title"] = title;
  EXPECT_FALSE(surely_matches_case_schema(wide));
  std::vector<std::string> errors;
  EXPECT_TRUE(case_from_json(wide, "wide", &parsed, &errors)) << (errors.empty() ? "" : errors[0]);
}

TEST(Bundle, OpenTierCaseRecordDropsPublishedRepairDigest) {
  Case c = seed_case_from_file();
  c.published.runs.push_back(PublishedRun{StrategyKind::Repaired, 0, std::string(64, 'a')});
  EXPECT_EQ(dump_compact(case_record(c, Tier::Open)).find(std::string(64, 'a')), std::string::npos);
  EXPECT_NE(dump_compact(case_record(c, Tier::Member)).find(std::string(64, 'a')), std::string::npos);
}

TEST(Bundle, MechanismRecordHoldsRepairedSourceOnlyForMembers) {
  FAILMAP_NEEDS_REPAIRS();
  const Mechanism* m = find_mechanism("gradient-accumulation-weighting");
  ASSERT_NE(m, nullptr);
  Json open = mechanism_record(*m, Tier::Open);
  Json member = mechanism_record(*m, Tier::Member);
  EXPECT_EQ(open["strategies"].size(), 2u);
  EXPECT_FALSE(open["strategies"].contains("repaired"));
  EXPECT_EQ(member["strategies"]["repaired"], "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n");
  std::vector<std::string> errors;
  EXPECT_TRUE(check_mechanism_record(open, Tier::Open, "m", 0, &errors));
  EXPECT_FALSE(check_mechanism_record(member, Tier::Open, "m", 0, &errors));
  open["title"] = "Other";
  errors.clear();
  EXPECT_FALSE(check_mechanism_record(open, Tier::Open, "m", 0, &errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "m: field 'title': differs from the compiled mechanism gradient-accumulation-weighting");
}

TEST(Bundle, RunRecordRoundTripsAndChecksDigest) {
  RunRecord r;
  r.case_id = "FA-1";
  r.strategy = StrategyKind::Unsuccessful;
  r.observation = "{\"observations\": [], \"passed\": true}";
  r.digest = sha256_hex(r.observation);
  r.exit_status = 0;
  r.failmap_version = "0.1.0";
  r.recorded_at = "2026-01-01T00:00:00Z";
  Json j = run_record(r);
  EXPECT_EQ(dump_compact(j),
            "{\"record\":\"run\",\"case\":\"FA-1\",\"strategy\":\"unsuccessful\",\"exit_status\":0,\"digest\":\"" +
                r.digest +
                "\",\"observation\":\"{\\\"observations\\\": [], \\\"passed\\\": true}\",\"failmap_version\":\"0.1.0\","
                "\"recorded_at\":\"2026-01-01T00:00:00Z\"}");
  std::vector<std::string> errors;
  RunRecord back;
  ASSERT_TRUE(run_from_record(j, "runs.jsonl:1", 0, &back, &errors));
  EXPECT_EQ(back.digest, r.digest);
  j["digest"] = std::string(64, '0');
  j["exit_status"] = 1;
  EXPECT_FALSE(run_from_record(j, "runs.jsonl:1", 0, &back, &errors));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "runs.jsonl:1: field 'digest': is not the SHA-256 of the observation document");
  EXPECT_EQ(
      errors[1],
      "runs.jsonl:1: field 'exit_status': disagrees with the observation's \"passed\" (true: 0 of 0 checks failed): "
      "expected 0, found 1");
  // The structured form: the same problems, the place and field apart.
  std::vector<InputProblem> problems;
  EXPECT_FALSE(run_from_record(j, "runs.jsonl", 1, &back, &problems));
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[1].file, "runs.jsonl");
  EXPECT_EQ(problems[1].line, 1u);
  EXPECT_EQ(problems[1].field, "exit_status");
  EXPECT_EQ(problems[1].expected, "0");
  EXPECT_EQ(problems[1].found, "1");
  EXPECT_EQ(describe(problems[1]), errors[1]);
}

TEST(Bundle, WriterProducesCheckableBundle) {
  fs::path d = temp_dir("writer");
  {
    auto w = BundleWriter::create(d, Tier::Open);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->write_record(k_cases_file, bundle_case_record(seed_case_from_file(), Tier::Open)).ok());
    ASSERT_TRUE((*w)->finish({k_mechanisms_file, k_cases_file, k_runs_file}).ok());
  }
  std::vector<std::string> errors;
  auto m = check_bundle(d, &errors);
  ASSERT_TRUE(m.ok()) << (errors.empty() ? "" : errors[0]);
  EXPECT_EQ(m->counts.at("case"), 1u);
  EXPECT_EQ(m->files, (std::vector<std::string>{"cases.jsonl", "mechanisms.jsonl", "runs.jsonl"}));
  auto manifest = read_file(d / k_manifest_file);
  EXPECT_EQ(*manifest,
            "{\"format\":\"failmap-bundle\",\"format_version\":3,\"failmap_version\":\"" FAILMAP_VERSION
            "\",\"export_tier\":\"open\",\"counts\":{\"case\":1},\"files\":[\"cases.jsonl\",\"mechanisms.jsonl\","
            "\"runs.jsonl\"],\"sha256\":{\"cases.jsonl\":\"" +
                sha256_hex(*read_file(d / k_cases_file)) +
                "\",\"mechanisms.jsonl\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\","
                "\"runs.jsonl\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}}\n");
  // The empty JSONL file's line in SHA256SUMS is the SHA-256 of no bytes.
  auto sums = read_file(d / k_sums_file);
  EXPECT_NE(sums->find("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  mechanisms.jsonl\n"),
            std::string::npos);
  // Tampering with a file is found and named.
  std::ofstream(d / k_cases_file, std::ios::app) << "\n";
  errors.clear();
  EXPECT_FALSE(check_bundle(d, &errors).ok());
  // Once by the manifest's "sha256" (what a signature covers), once by SHA256SUMS.
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("manifest.json: field 'sha256.cases.jsonl': SHA-256 of 'cases.jsonl' does not match"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("'cases.jsonl': SHA-256 does not match"), std::string::npos) << errors[1];
  fs::remove_all(d);
}

TEST(Bundle, ReadJsonlReportsLineAndColumnAndAcceptsBomAndCrlf) {
  fs::path d = temp_dir("jsonl");
  fs::create_directories(d);
  std::ofstream(d / "a.jsonl", std::ios::binary)
      << "\xEF\xBB\xBF{\"a\":1}\r\n{\"b\":2}\r\n{\"c\": [1,}\n{\"d\":1,\"d\":2}\n";
  std::vector<std::string> errors;
  std::vector<std::string> got;
  ASSERT_TRUE(read_jsonl(
      d / "a.jsonl", [&](std::uint64_t n, Json&& j) { got.push_back(std::to_string(n) + j.dump()); }, &errors));
  EXPECT_EQ(got, (std::vector<std::string>{"1{\"a\":1}", "2{\"b\":2}"}));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].rfind((d / "a.jsonl").string() + ":3:10: ", 0), 0u) << errors[0];
  EXPECT_EQ(errors[1], (d / "a.jsonl").string() + ":4: duplicate key \"d\" (field 'd')");
  fs::remove_all(d);
}

TEST(Limits, ReadJsonlRefusesALineBeyondTheCapAndReadsOn) {
  fs::path d = temp_dir("jsonl-cap");
  fs::create_directories(d);
  {
    std::ofstream f(d / "a.jsonl", std::ios::binary);
    f << "{\"a\":1}\n{\"pad\":\"" << std::string(k_max_line_bytes, 'x') << "\"}\n{\"b\":2}";
  }
  std::vector<std::string> errors;
  std::vector<std::string> got;
  ASSERT_TRUE(read_jsonl(
      d / "a.jsonl", [&](std::uint64_t n, Json&& j) { got.push_back(std::to_string(n) + j.dump()); }, &errors));
  EXPECT_EQ(got, (std::vector<std::string>{"1{\"a\":1}", "3{\"b\":2}"}));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], (d / "a.jsonl").string() +
                           ":2: line longer than the 1 MiB limit (docs/README.md, \"Limits on untrusted input\")");
  fs::remove_all(d);
}

TEST(Limits, ReadLineCappedKeepsLinesUpToTheCapExactly) {
  std::istringstream in("abc\n" + std::string(5, 'y') + "\n" + std::string(6, 'z') + "\nlast");
  std::string line;
  EXPECT_EQ(read_line_capped(in, line, 5), LineRead::Line);
  EXPECT_EQ(line, "abc");
  EXPECT_EQ(read_line_capped(in, line, 5), LineRead::Line);
  EXPECT_EQ(line, "yyyyy");
  EXPECT_EQ(read_line_capped(in, line, 5), LineRead::TooLong);
  EXPECT_EQ(read_line_capped(in, line, 5), LineRead::Line);
  EXPECT_EQ(line, "last");
  EXPECT_EQ(read_line_capped(in, line, 5), LineRead::End);
  EXPECT_EQ(byte_cap_text(k_max_line_bytes), "1 MiB");
  EXPECT_EQ(byte_cap_text(k_max_file_bytes), "16 MiB");
}

TEST(Limits, ReadFileRefusesAFileBeyondTheCap) {
  fs::path d = temp_dir("file-cap");
  fs::create_directories(d);
  std::ofstream(d / "f.json", std::ios::binary) << std::string(11, 'q');
  auto ok = read_file(d / "f.json", 11);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->size(), 11u);
  auto big = read_file(d / "f.json", 10);
  ASSERT_FALSE(big);
  EXPECT_EQ(
      big.error().message,
      (d / "f.json").string() +
          ": larger than the 10 bytes limit for a file read whole (docs/README.md, \"Limits on untrusted input\")");
  fs::remove_all(d);
}

TEST(CaseSchema, ValueErrorsNameTheNestedField) {
  // Values are converted without building a path per element; a value that
  // has no Python form still names its place, down to the nested element.
  Json j = case_record(seed_case_from_file(), Tier::Open);
  j["fixtures"][2]["args"] = Json::array({1, Json::array({2, Json::array({3, Json::object({{"a", 1}})})})});
  j["fixtures"][5]["expected"] = Json::object();
  j["params"]["N"] = std::uint64_t{18446744073709551615u};
  Case c;
  std::vector<std::string> errors;
  EXPECT_FALSE(case_from_json(j, "b/cases.jsonl:3", &c, &errors));
  EXPECT_EQ(errors, (std::vector<std::string>{"b/cases.jsonl:3: field 'params.N': integer exceeds int64",
                                              "b/cases.jsonl:3: field 'fixtures[2].args[1][1][1]': expected a number, "
                                              "string, boolean, null or list, got object",
                                              "b/cases.jsonl:3: field 'fixtures[5].expected': expected a number, "
                                              "string, boolean, null or list, got object"}));
}

TEST(Bundle, CaseTierNamedByFormatVersion) {
  // A member-tier case shown at the open tier: its record names the case's
  // access tier "case_tier" where a case file says "tier" (format_version 3),
  // and reads back as the case; each version refuses the other's name.
  Case c = seed_case_from_file();
  c.tier = Tier::Member;
  Json j = bundle_case_record(c, Tier::Open);
  const std::string line = dump_compact(j);
  EXPECT_EQ(line.find("\"tier\""), std::string::npos) << line;
  EXPECT_NE(
      line.find(
          ",\"title\":\"The final short batch is discarded from accumulation\",\"case_tier\":\"member\",\"summary\":"),
      std::string::npos)
      << line;
  std::vector<std::string> errors;
  Json v3 = j;
  ASSERT_TRUE(case_record_to_case_json(v3, 3, "b/cases.jsonl:1", &errors));
  EXPECT_EQ(dump_compact(v3), dump_compact(case_record(c, Tier::Open)));
  Case back;
  ASSERT_TRUE(case_from_json(v3, "b/cases.jsonl:1", &back, &errors)) << errors.at(0);
  EXPECT_EQ(back.tier, Tier::Member);

  Json v2 = case_record(c, Tier::Open);  // what format_version 1 and 2 wrote
  for (int version : {1, 2}) {
    Json copy = v2;
    EXPECT_TRUE(case_record_to_case_json(copy, version, "b/cases.jsonl:1", &errors));
    EXPECT_EQ(copy, v2);
  }
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(case_record_to_case_json(v2, 3, "b/cases.jsonl:1", &errors));
  Json wrong = j;
  EXPECT_FALSE(case_record_to_case_json(wrong, 2, "b/cases.jsonl:2", &errors));
  EXPECT_EQ(errors,
            (std::vector<std::string>{
                "b/cases.jsonl:1: field 'tier': a case record of bundle format_version 3 names the case's access "
                "tier 'case_tier'",
                "b/cases.jsonl:2: field 'case_tier': not in a bundle of format_version 2, whose case records "
                "name the case's access tier 'tier'"}));
}

TEST(CaseSchema, ProblemsGiveTheSameTextInEitherForm) {
  // case_from_json, case_record_to_case_json and read_case_file put their
  // problems in a ProblemSink: as Input problems at the place given, each
  // with its field, whose describe() is the text form's line.
  Json j = case_record(seed_case_from_file(), Tier::Open);
  j["params"]["N"] = std::uint64_t{18446744073709551615u};  // a value without a Python form
  Json schema = case_record(seed_case_from_file(), Tier::Open);
  schema["variant"] = "one";  // the JSON Schema
  Json registry = case_record(seed_case_from_file(), Tier::Open);
  registry["fixtures"][0]["label"] = "another label";  // validate_case
  Json tier = bundle_case_record(seed_case_from_file(), Tier::Open);
  tier["tier"] = "open";
  const fs::path d = temp_dir("case-problems");
  fs::create_directories(d);
  Json published = case_to_json(seed_case_from_file());
  published["published"]["runs"][0]["exit_status"] = 0;  // the broken strategy exits 1
  std::ofstream(d / "FA-98921.json", std::ios::binary) << published.dump();

  auto both = [&](const std::function<bool(ProblemSink)>& read) {
    std::vector<std::string> text;
    std::vector<InputProblem> problems;
    EXPECT_FALSE(read(&text));
    EXPECT_FALSE(read(&problems));
    EXPECT_EQ(text.size(), problems.size());
    for (std::size_t i = 0; i < text.size() && i < problems.size(); ++i) {
      EXPECT_EQ(text[i], describe(problems[i]));
      EXPECT_EQ(problems[i].kind, InputProblem::Kind::Input);
    }
    return problems;
  };
  Case c;
  auto value = both([&](ProblemSink s) { return case_from_json(j, "b/cases.jsonl:3", &c, s); });
  ASSERT_EQ(value.size(), 1u);
  EXPECT_EQ(value[0].file, "b/cases.jsonl:3");
  EXPECT_EQ(value[0].field, "params.N");
  EXPECT_EQ(value[0].message, "integer exceeds int64");
  auto schema_problems = both([&](ProblemSink s) { return case_from_json(schema, "x", &c, s); });
  ASSERT_FALSE(schema_problems.empty());
  EXPECT_EQ(schema_problems[0].field, "variant");
  auto registry_problems = both([&](ProblemSink s) { return case_from_json(registry, "", &c, s); });
  ASSERT_EQ(registry_problems.size(), 1u);
  EXPECT_EQ(registry_problems[0].file, "");
  EXPECT_EQ(registry_problems[0].field, "fixtures[0].label");
  auto tier_problems = both([&](ProblemSink s) {
    Json copy = tier;
    return case_record_to_case_json(copy, 3, "b/cases.jsonl:1", s);
  });
  ASSERT_EQ(tier_problems.size(), 1u);
  EXPECT_EQ(tier_problems[0].field, "tier");
  auto exit_problems = both([&](ProblemSink s) { return read_case_file(d / "FA-98921.json", &c, s); });
  ASSERT_EQ(exit_problems.size(), 1u);
  EXPECT_EQ(exit_problems[0].file, (d / "FA-98921.json").string());
  EXPECT_EQ(exit_problems[0].field, "published.runs[0].exit_status");
  auto missing = both([&](ProblemSink s) { return read_case_file(d / "missing.json", &c, s); });
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].file, "");  // the reader's message names the path
  fs::remove_all(d);
}
