// The text rules every reader shares (src/encoding/text.h): one byte-order mark at
// the very start of a file (schema/BUNDLE.md "Byte-order marks"), and quoted
// excerpts that are always valid UTF-8 and never hold a raw U+FEFF.
#include <gtest/gtest.h>

#include <string>

#include "encoding/json.h"
#include "encoding/text.h"

using namespace failmap;

namespace {

const std::string k_bom = "\xEF\xBB\xBF";
const std::string k_euro = "\xE2\x82\xAC";  // U+20AC, 3 bytes

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST(Text, QuoteExcerptCutsAtACharacterAndShowsWhatIsInvisible) {
  EXPECT_EQ(quote_excerpt("abc", 10), "\"abc\"");
  EXPECT_EQ(quote_excerpt("a\"b\\", 10), "\"a\\\"b\\\\\"");
  // 5 bytes hold one euro sign and two thirds of the next: the second is left out whole.
  EXPECT_EQ(quote_excerpt(repeat(k_euro, 3), 5), "\"" + k_euro + "\"...");
  EXPECT_EQ(quote_excerpt(repeat(k_euro, 3), 6), "\"" + k_euro + k_euro + "\"...");
  EXPECT_EQ(quote_excerpt(repeat(k_euro, 3), 9), "\"" + repeat(k_euro, 3) + "\"");
  EXPECT_EQ(quote_excerpt("a" + k_bom + "b", 10), "\"a\\ufeffb\"");
  EXPECT_EQ(quote_excerpt("a\xFF"
                          "b\xC3",
                          10),
            "\"a\\xffb\\xc3\"");
  EXPECT_EQ(quote_excerpt("a\x1b", 10), "\"a\\u001b\"");
  EXPECT_EQ(quote_excerpt("hello world", 5, 6), "...\"world\"");
  EXPECT_EQ(quote_excerpt("hello world", 3, 6), "...\"wor\"...");
  // `from` inside a character moves back to its start.
  EXPECT_EQ(quote_excerpt("x" + k_euro, 3, 2), "...\"" + k_euro + "\"");
  EXPECT_EQ(describe_json_value(Json(repeat(k_euro, 30))), "the string \"" + repeat(k_euro, 19) + "\"...");
  EXPECT_EQ(describe_json_value(Json(k_bom + "1")), "the string \"\\ufeff1\"");
}

TEST(Text, Utf8CharLength) {
  EXPECT_EQ(utf8_char_length("a", 0), 1u);
  EXPECT_EQ(utf8_char_length(k_euro, 0), 3u);
  EXPECT_EQ(utf8_char_length(k_euro, 1), 0u);               // a continuation byte
  EXPECT_EQ(utf8_char_length(k_euro.substr(0, 2), 0), 0u);  // cut short
  EXPECT_EQ(utf8_char_length("\xED\xA0\x80", 0), 0u);       // a surrogate
  EXPECT_EQ(utf8_char_length("\xC0\x80", 0), 0u);           // overlong
  EXPECT_EQ(utf8_char_length("\xF0\x9F\x98\x80", 0), 4u);
  EXPECT_EQ(first_invalid_utf8("ab\xFF"
                               "c"),
            2u);
  EXPECT_EQ(first_invalid_utf8("abc"), std::string_view::npos);
}

TEST(Text, OneBomAtTheStartOfAFileIsSkipped) {
  EXPECT_EQ(skip_file_bom("x", "f").value(), "x");
  EXPECT_EQ(skip_file_bom(k_bom + "x", "f").value(), "x");
  EXPECT_EQ(skip_file_bom(k_bom, "f").value(), "");
  auto two = skip_file_bom(k_bom + k_bom + "x", "f");
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().message,
            "f:1: a second UTF-8 byte-order mark (U+FEFF) at the start of the file: only one is "
            "skipped (schema/BUNDLE.md \"Byte-order marks\")");
}

TEST(Text, JsonRefusesEveryBomButAFilesFirst) {
  const std::string refused =
      "a UTF-8 byte-order mark (U+FEFF), which only the very start of a file may hold "
      "(schema/BUNDLE.md \"Byte-order marks\")";
  // A JSON text that is not a file (a JSONL line, a stored value) holds none.
  auto line = parse_json_strict(k_bom + "{}", "w");
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().message, "w:1:1: " + refused);
  EXPECT_EQ(parse_json_file(k_bom + "{\"a\": 1}", "w").value(), Json({{"a", 1}}));
  auto second = parse_json_file(k_bom + k_bom + "{}", "w");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message,
            "w:1:4: a second UTF-8 byte-order mark (U+FEFF) at the start of the file: only one "
            "is skipped (schema/BUNDLE.md \"Byte-order marks\")");
  auto later = parse_json_file("{\n" + k_bom + "\"a\": 1}", "w");
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error().message, "w:2:1: " + refused);
  // Inside a string it is a character like any other.
  EXPECT_EQ(parse_json_strict("[\"" + k_bom + "\"]", "w").value(), Json::array({k_bom}));
}
