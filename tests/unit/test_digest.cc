// Case digests: the direct RFC 8785 writer equals the generic one, and the
// digest tells apart what Python tells apart.
#include <gtest/gtest.h>

#include "support.h"

#include "encoding/jcs.h"
#include "encoding/sha256.h"
#include "io/digest.h"

namespace failmap {
namespace {

using testing_support::seed_case_from_file;

const std::vector<RunDigestInput> k_runs = {
    {StrategyKind::Unsuccessful, 1, "c68294d1a5b8a95e0ea1f83769fa7c0ea4218b82eb18c73480bc0ef98be4c9c7"},
    {StrategyKind::Broken, 1, "a378d6ff06041f516e6a464753268da9846e841d91153f083e4c1990d69d8c68"},
    {StrategyKind::Repaired, 0, "b699e64495b8f9be96c9d904c987575df8bf9f95d8c4ad44b47a88d7e7a75394"},
};

TEST(CaseDigest, DirectWriterEqualsGenericCanonicalForm) {
  Case c = seed_case_from_file();
  for (const auto& runs : {std::vector<RunDigestInput>{}, k_runs}) {
    auto direct = case_digest_text(c, runs);
    ASSERT_TRUE(direct.ok());
    EXPECT_EQ(*direct, *canonical_json(case_digest_document(c, runs)));
  }
  // Escapes, non-ASCII and non-BMP text, several parameters out of order.
  c.prose.summary = "tab\there \"quoted\" \\ \x01 caf\xc3\xa9 \xf0\x9f\x98\x80 \xef\xac\xb3";
  c.title = "\x7f\xe2\x80\xa8";
  c.params = {{"\xef\xac\xb3", Value::floating(-0.0)},
              {"\xf0\x9f\x98\x80", Value::integer(3)},
              {"B", Value::none()},
              {"a", Value::str("x")}};
  c.fixtures[0].expected = Value::floating(3.0);
  c.evaluation_group = {"z", "\xc3\xa9"};
  EXPECT_EQ(*case_digest_text(c, k_runs), *canonical_json(case_digest_document(c, k_runs)));
}

TEST(CaseDigest, FieldDigestsAreEachMembersCanonicalForm) {
  // compute_case_digests hashes each member's bytes inside the one document
  // text; they must be the member's own RFC 8785 form (schema/DIGESTS.md).
  Case c = seed_case_from_file();
  Case odd = c;
  odd.prose.summary = "tab\there \"quoted\" caf\xc3\xa9 \xf0\x9f\x98\x80";
  odd.params = {{"\xef\xac\xb3", Value::floating(-0.0)}, {"B", Value::none()}, {"a", Value::str("x")}};
  odd.fixtures[1].args = {Value::list({Value::floating(1.5), Value::str("\n")}), Value::boolean(true)};
  for (const Case& k : {c, odd}) {
    auto d = compute_case_digests(k, k_runs);
    ASSERT_TRUE(d.ok());
    Json record = case_digest_record(k);
    ASSERT_EQ(d->fields.size(), record.size());
    for (const auto& [name, value] : record.items())
      EXPECT_EQ(d->fields.at(name), sha256_hex(*canonical_json(value))) << name;
    EXPECT_EQ(d->case_digest, sha256_hex(*canonical_json(case_digest_document(k, k_runs))));
    // The packed forms the archive stores are those digests' bytes in the
    // order of the name arrays; FieldDigests::Packed gives the same bytes
    // without the map.
    auto text = pack_field_digests(d->fields, k_text_digest_fields);
    auto row = pack_field_digests(d->fields, k_row_digest_fields);
    ASSERT_TRUE(text.ok() && row.ok());
    EXPECT_EQ(d->text_packed.size(), 256u);
    EXPECT_EQ(d->text_packed, *text);
    EXPECT_EQ(d->row_packed, *row);
    Sha256Bytes title{};
    ASSERT_TRUE(parse_sha256_hex(sha256_hex(*canonical_json(record["title"])), &title));
    EXPECT_EQ(d->text_packed.substr(5 * 32, 32), std::string(title.begin(), title.end()));  // "title" is 6th
    auto packed_only = compute_case_digests(k, k_runs, FieldDigests::Packed);
    ASSERT_TRUE(packed_only.ok());
    EXPECT_TRUE(packed_only->fields.empty());
    EXPECT_EQ(packed_only->text_packed, *text);
    EXPECT_EQ(packed_only->row_packed, *row);
    EXPECT_EQ(packed_only->case_digest, d->case_digest);
  }
}

TEST(CaseDigest, FieldDigestsOfRepeatedTextsFollowEveryChange) {
  // compute_case_digests reuses, per thread and member, the digest of the
  // bytes it hashed last when they are equal. A run of cases that repeat,
  // alternate and change one member at a time, among them a same-length edit
  // of one character deep inside the prose: every field digest is still the
  // member's own canonical form, and the tier's the hand-computed one.
  Case c = seed_case_from_file();
  Case member = c;
  member.tier = Tier::Member;
  Case edited = c;
  ASSERT_GT(edited.prose.root_cause.size(), 100u);
  edited.prose.root_cause[100] = edited.prose.root_cause[100] == 'x' ? 'y' : 'x';
  Case retitled = c;
  retitled.title += " ";
  Case other = c;
  other.id = "FA-00001";
  other.params = {{"N", Value::integer(7)}};
  const std::string open_tier =
      "35ff74aeea25311f4fe759a6b762c8cd41a79adb23dd5615b92cf215175a63e5";  // sha256 of "\"open\""
  const std::string member_tier =
      "68884b2d004b2e093caf976b47c84ff35072d9c46f4864bd4620faa22ec9f415";  // of "\"member\""
  std::vector<std::string> root_causes;
  for (const Case* k : {&c, &c, &member, &c, &edited, &c, &edited, &edited, &retitled, &other, &c, &member, &member}) {
    auto d = compute_case_digests(*k, {});
    ASSERT_TRUE(d.ok());
    Json record = case_digest_record(*k);
    ASSERT_EQ(d->fields.size(), 16u);
    for (const auto& [name, value] : record.items())
      EXPECT_EQ(d->fields.at(name), sha256_hex(*canonical_json(value))) << name;
    EXPECT_EQ(d->fields.at("tier"), k->tier == Tier::Open ? open_tier : member_tier);
    EXPECT_EQ(d->case_digest, sha256_hex(*canonical_json(case_digest_document(*k, {}))));
    root_causes.push_back(d->fields.at("root_cause"));
  }
  EXPECT_EQ(root_causes[4], root_causes[6]);
  EXPECT_NE(root_causes[4], root_causes[5]);
}

TEST(RepairCommitment, CanonicalRepairedRecordIsTheGenericCanonicalForm) {
  FAILMAP_NEEDS_REPAIRS();
  Case c = seed_case_from_file();
  RepairedRun run{0, "b699e64495b8f9be96c9d904c987575df8bf9f95d8c4ad44b47a88d7e7a75394"};
  const Mechanism* m = find_mechanism(c.mechanism);
  ASSERT_NE(m, nullptr);
  Json record = Json{{"scheme", "failmap-repair"},
                     {"version", k_repair_record_version},
                     {"case", c.id},
                     {"strategy", "repaired"},
                     {"source", std::string(m->strategy(StrategyKind::Repaired).python)},
                     {"exit_status", run.exit_status},
                     {"observation_digest", run.observation_digest}};
  EXPECT_EQ(*canonical_repaired_record(c, run), *canonical_json(record));
}

TEST(CaseDigest, WorkedExampleValues) {
  // schema/DIGESTS.md; tests/e2e/digest_worked_example.sh recomputes them with Python.
  Case c = seed_case_from_file();
  EXPECT_EQ(compute_case_digests(c, {})->case_digest,
            "e4aab36f4f741b4b6d08b1cd6e161957049fc54ec34f67b10f32fd795b3a84bf");
  EXPECT_EQ(compute_case_digests(c, k_runs)->case_digest,
            "e080487c568db265b0041b4fbb6ea30a56c710e18b63f8bf98e92ae57bce3f67");
}

TEST(CaseDigest, PythonDistinctionsChangeTheDigest) {
  Case c = seed_case_from_file();
  std::string base = compute_case_digests(c, k_runs)->case_digest;
  Case f = c;
  f.fixtures[0].expected = Value::floating(3.0);  // RFC 8785 alone would print 3 for both
  EXPECT_NE(compute_case_digests(f, k_runs)->case_digest, base);
  Case z = c;
  z.params[0].second = Value::floating(1.0);
  EXPECT_NE(compute_case_digests(z, k_runs)->case_digest, base);
  Case p = c;
  p.published.case_digest = "changed";  // published digests are not covered
  p.published.runs.clear();
  EXPECT_EQ(compute_case_digests(p, k_runs)->case_digest, base);
}

TEST(CaseDigest, FieldDigestsRoundTrip) {
  auto d = compute_case_digests(seed_case_from_file(), k_runs);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->fields.size(), 16u);
  // A string field's digest is SHA-256 of its quoted RFC 8785 text.
  EXPECT_EQ(d->fields.at("tier"),
            "35ff74aeea25311f4fe759a6b762c8cd41a79adb23dd5615b92cf215175a63e5");  // sha256 of "\"open\""
  auto back = parse_field_digests(field_digests_text(*d), "t");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, d->fields);
  auto bad = parse_field_digests("{\"tier\": \"ABC\"}", "db: case X, field field_digests");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "db: case X, field field_digests: field 'tier' is not a SHA-256 hex digest (64 lower-case hex characters)");
}

// schema/007 stores the 16 field digests as two 256-byte blobs: the text
// members' (shared case_texts row) and the row members', in name order.
TEST(CaseDigest, FieldDigestsPackIntoTwoBlobs) {
  auto d = compute_case_digests(seed_case_from_file(), k_runs);
  ASSERT_TRUE(d.ok());
  auto text = pack_field_digests(d->fields, k_text_digest_fields);
  auto row = pack_field_digests(d->fields, k_row_digest_fields);
  ASSERT_TRUE(text.ok() && row.ok());
  ASSERT_EQ(text->size(), 256u);
  ASSERT_EQ(row->size(), 256u);
  // "tier" is the 7th row member: bytes 192..223 are SHA-256("\"open\"").
  EXPECT_EQ(to_hex(reinterpret_cast<const unsigned char*>(row->data()) + 6 * 32, 32),
            "35ff74aeea25311f4fe759a6b762c8cd41a79adb23dd5615b92cf215175a63e5");
  std::map<std::string, std::string> back;
  ASSERT_TRUE(unpack_field_digests(*text, k_text_digest_fields, "t", &back).ok());
  ASSERT_TRUE(unpack_field_digests(*row, k_row_digest_fields, "t", &back).ok());
  EXPECT_EQ(back, d->fields);
  EXPECT_EQ(field_digests_text(back), field_digests_text(*d));

  auto short_blob =
      unpack_field_digests(row->substr(0, 255), k_row_digest_fields, "db: case X, field field_digests", &back);
  ASSERT_FALSE(short_blob.ok());
  EXPECT_EQ(short_blob.error().message,
            "db: case X, field field_digests: expected 8 SHA-256 digests (256 bytes), got 255 bytes");
  auto missing = d->fields;
  missing.erase("scope");
  auto no_scope = pack_field_digests(missing, k_text_digest_fields);
  ASSERT_FALSE(no_scope.ok());
  EXPECT_EQ(no_scope.error().message, "field digests: no SHA-256 digest of member 'scope'");
  auto upper = d->fields;
  upper["variant"][5] = 'A';
  EXPECT_FALSE(pack_field_digests(upper, k_row_digest_fields).ok());
  EXPECT_TRUE(pack_field_digests(upper, k_text_digest_fields).ok());  // variant is not a text member
}

TEST(CaseDigest, InvalidUtf8IsAnErrorNamingTheField) {
  Case c = seed_case_from_file();
  c.prose.scope = "bad \xff";
  auto d = compute_case_digests(c, {});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("case FA-98921, field scope"), std::string::npos) << d.error().message;
}

}  // namespace
}  // namespace failmap

namespace failmap {
namespace {

TEST(Sha256, HexSpellingIsExactly64LowerCaseDigits) {
  const std::string empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";  // SHA-256 of ""
  EXPECT_EQ(sha256_hex(""), empty);
  EXPECT_TRUE(is_sha256_hex(empty));
  EXPECT_TRUE(is_sha256_hex(std::string(64, '0')));
  EXPECT_TRUE(is_sha256_hex(std::string(64, 'f')));
  EXPECT_FALSE(is_sha256_hex(empty.substr(1)));
  EXPECT_FALSE(is_sha256_hex(empty + "0"));
  EXPECT_FALSE(is_sha256_hex(""));
  // The neighbours of the digit and letter ranges, upper case, NUL and a non-ASCII byte, at either end.
  for (char bad : {'/', ':', '`', 'g', 'A', 'F', '@', '\0', '\x80', ' '}) {
    std::string first = empty, last = empty;
    first.front() = bad;
    last.back() = bad;
    EXPECT_FALSE(is_sha256_hex(first)) << int(bad);
    EXPECT_FALSE(is_sha256_hex(last)) << int(bad);
    Sha256Bytes ignored{};
    EXPECT_FALSE(parse_sha256_hex(first, &ignored)) << int(bad);
    EXPECT_FALSE(parse_sha256_hex(last, &ignored)) << int(bad);
  }
  // parse_sha256_hex decodes what sha256_bytes gives, pair by pair.
  Sha256Bytes bytes{};
  ASSERT_TRUE(parse_sha256_hex(empty, &bytes));
  EXPECT_EQ(bytes, sha256_bytes(""));
  EXPECT_EQ(bytes.front(), 0xe3);
  EXPECT_EQ(bytes.back(), 0x55);
  EXPECT_FALSE(parse_sha256_hex(empty.substr(1), &bytes));
  EXPECT_FALSE(parse_sha256_hex(empty + "0", &bytes));
}

}  // namespace
}  // namespace failmap
