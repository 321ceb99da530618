// parse_json_strict's fast path (RapidJSON into the nlohmann document) against
// the reference reader alone (nlohmann's SAX parser with the strict checks):
// for every input below both accept with the same document — same kinds of
// numbers (int64, uint64, double), same keys in the same order — or both
// refuse with the same message.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encoding/json.h"
#include "encoding/json_reference.h"
#include "encoding/text.h"

using failmap::Json;

namespace {

// Same document, kind by kind (number_integer vs number_unsigned compare
// equal in nlohmann, so == alone would not tell them apart).
bool same_kinds(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    auto ib = b.begin();
    for (auto ia = a.begin(); ia != a.end(); ++ia, ++ib)
      if (ia.key() != ib.key() || !same_kinds(ia.value(), ib.value())) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_kinds(a[i], b[i])) return false;
    return true;
  }
  if (a.is_number_float())
    return a.get<double>() == b.get<double>() && std::signbit(a.get<double>()) == std::signbit(b.get<double>());
  return a == b;
}

void expect_same(const std::string& text) {
  SCOPED_TRACE("input: " + text);
  auto fast = failmap::parse_json_strict(text, "t");
  auto reference = failmap::parse_json_strict_reference(text, "t");
  ASSERT_EQ(fast.ok(), reference.ok()) << (fast ? reference.error().message : fast.error().message);
  if (fast.ok()) {
    EXPECT_TRUE(same_kinds(*fast, *reference)) << fast->dump() << " vs " << reference->dump();
    EXPECT_EQ(fast->dump(), reference->dump());
  } else {
    EXPECT_EQ(fast.error().message, reference.error().message);
  }
}

}  // namespace

TEST(JsonFastPath, SameDocumentsAsTheReference) {
  std::vector<std::string> inputs = {
      R"({"a":1,"b":[1,2,3],"c":{"d":null,"e":true,"f":false},"g":"x"})",
      R"({"record":"case","params":{"N":1},"fixtures":[{"label":"l","args":[[1,1,1],2],"expected":3}]})",
      "-0",
      "0",
      "-1",
      "7",
      "9223372036854775807",
      "-9223372036854775808",
      "1.0",
      "-0.0",
      "1e5",
      "1E+5",
      "2e-3",
      "0.1",
      "1e-400",
      "-1e-400",
      "[0.30000000000000004, 1e16, 5e-324, 1.7976931348623157e308]",
      "123456789012345678901234567890.5",
      "true",
      "null",
      R"("x")",
      " [ 1 , { \"a\" : [ ] } ] \r\n",
      R"({"a":{"b":1},"b":{"a":1}})",
      R"(["\n\t\"\\\/\b\f\r"])",
      "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"",
      R"({"":""})",
      "[[],{},[[]]]"};
  for (const std::string& s : inputs) expect_same(s);
}

TEST(JsonFastPath, SameRefusalsAsTheReference) {
  std::vector<std::string> inputs = {
      "9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e400", "-1e400", R"({"a":1,"a":2})",
      R"({"a":{"b":1,"b":2}})", R"("\u00e9")", R"("\udc00")", R"("\ud800")", R"("a\u0000b")", "[1,]", R"({"a":1,})",
      "01", "1.", ".5", "+1", "-", "NaN", "Infinity", "-Infinity", "[1] x", "", "   ",
      "\"a\x01"
      "b\"",
      "{\"a\":1}\x80", "[1,2", "{\"a\"}", "{1:2}", "'a'", "[true,fals]", "nul",
      // 0.000…1 with more digits than the fast path copies: the reference reads it
      "0." + std::string(80, '0') + "1", std::string("{\"a\":1}\0", 8), std::string("[\"a\0b\"]", 7)};
  for (const std::string& s : inputs) expect_same(s);
}

// A byte-order mark at a line start and invalid UTF-8 in one text: both
// readers name whichever comes first, at its line and column (found by
// fuzz_json; tests/data/fuzz/fuzz_json/crash_bom_*).
TEST(JsonFastPath, BomAndInvalidUtf8NamedInTextOrder) {
  const std::string bom = "\xEF\xBB\xBF";
  auto invalid_first = failmap::parse_json_strict("\xFF\n" + bom + "1", "t");
  ASSERT_FALSE(invalid_first.ok());
  EXPECT_EQ(invalid_first.error().message, "t:1:1: invalid UTF-8");
  auto bom_first = failmap::parse_json_strict("\n" + bom + "\xFF", "t");
  ASSERT_FALSE(bom_first.ok());
  EXPECT_EQ(bom_first.error().message, "t:2:1: " + std::string(failmap::k_bom_refused));
  for (const std::string& s : {"\xFF\n" + bom + "1", "\n" + bom + "\xFF", "[1,\n" + bom + "2]\xFF", bom + "\xFF"})
    expect_same(s);
}

TEST(JsonFastPath, NestingAndWideObjects) {
  expect_same(std::string(64, '[') + std::string(64, ']'));
  expect_same(std::string(65, '[') + std::string(65, ']'));
  expect_same(std::string(1000, '['));
  std::string wide = "{", dup = "{";
  for (int i = 0; i < 70; ++i) {
    std::string member = (i ? "," : "") + std::string("\"k") + std::to_string(i) + "\":" + std::to_string(i);
    wide += member;
    dup += member;
  }
  expect_same(wide + "}");
  expect_same(dup + ",\"k69\":0}");  // a duplicate past the fast path's key check
}

TEST(JsonFastPath, NumberKinds) {
  auto j = failmap::parse_json_strict("[0, -0, 5, -5, 1.5, -0.0]", "t");
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE((*j)[0].is_number_unsigned());
  EXPECT_TRUE((*j)[1].is_number_integer() && !(*j)[1].is_number_unsigned());
  EXPECT_EQ((*j)[1].get<std::int64_t>(), 0);
  EXPECT_TRUE((*j)[2].is_number_unsigned());
  EXPECT_EQ((*j)[3].get<std::int64_t>(), -5);
  EXPECT_EQ((*j)[4].get<double>(), 1.5);
  EXPECT_TRUE(std::signbit((*j)[5].get<double>()));
}

// parse_int_value_text (the integer fast path of stored values): every digit
// count up to int64's limit, read exactly as Python's int() reads it; past
// the limit, leading zeros and other spellings it leaves to the strict reader.
TEST(IntFastPath, DigitCountsAndInt64Limits) {
  using failmap::parse_int_value_text;
  std::int64_t n = 0;
  std::string digits;
  for (int count = 1; count <= 18; ++count) {  // 1, 12, 123, ... (digit k is k % 10)
    digits += static_cast<char>('0' + count % 10);
    n = n * 10 + count % 10;
    auto v = parse_int_value_text(digits);
    ASSERT_TRUE(v && v->is_int()) << digits;
    EXPECT_EQ(v->as_int(), n) << digits;
    auto negative = parse_int_value_text("-" + digits);
    ASSERT_TRUE(negative && negative->is_int()) << digits;
    EXPECT_EQ(negative->as_int(), -n) << digits;
  }
  const std::pair<const char*, std::int64_t> exact[] = {
      {"999999999999999999", 999999999999999999},    // 18 digits, the unchecked loop's largest
      {"1000000000000000000", 1000000000000000000},  // 19 digits
      {"9223372036854775807", INT64_MAX},           {"-9223372036854775807", -INT64_MAX},
      {"[0, -1, 9223372036854775807]", 0},
  };
  for (const auto& [text, value] : exact) {
    auto v = parse_int_value_text(text);
    ASSERT_TRUE(v) << text;
    if (v->is_int()) EXPECT_EQ(v->as_int(), value) << text;
    else EXPECT_EQ(v->as_list().at(2).as_int(), INT64_MAX) << text;
  }
  // Left to the strict reader: int64 overflow (and INT64_MIN, whose digits
  // overflow before the sign applies), 20 digits, leading zeros, no digits.
  for (const char* text : {"9223372036854775808", "-9223372036854775808", "99999999999999999999", "01", "-",
                           "0000000000000000001", "[1, 2,3]", "1.0"})
    EXPECT_FALSE(parse_int_value_text(text)) << text;
}
