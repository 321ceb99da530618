// The syntax scanner behind every JSON syntax error (src/encoding/json_syntax.h):
// the byte it names and its words, for each kind of break of RFC 8259, and
// parse_json_strict's messages built from them (FILE:LINE:COL: what).
#include <gtest/gtest.h>

#include <string>

#include "encoding/json.h"
#include "encoding/json_syntax.h"

using namespace failmap;
using namespace std::string_literals;

namespace {

// "OFFSET: what" of the first syntax error, or "ok".
std::string scan(const std::string& text) {
  auto e = find_json_syntax_error(text);
  return e ? std::to_string(e->offset) + ": " + e->what : "ok";
}

}  // namespace

TEST(JsonSyntax, AcceptsWhatRfc8259Accepts) {
  for (const char* t : {"0", "-0", "1.5e-3", "-12E+4", "\"\"", " true ", "null", "[]", "{}", "[1, [2, {\"a\": [3]}]]",
                        "{\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\": \"\\ud83d\\ude00\"}", "\t\r\n[\n1\n]\n"})
    EXPECT_EQ(scan(t), "ok") << t;
}

TEST(JsonSyntax, NamesWhatWasExpectedAndWhatWasFound) {
  EXPECT_EQ(scan("{\"case\": \"FA-1\",\0 \"model\": 1}"s),
            "16: expected a member name in double quotes, found a NUL byte (U+0000); JSON text cannot hold one raw");
  EXPECT_EQ(scan("{\"a\": \"x\0y\"}"s),
            "8: a NUL byte (U+0000) inside a string; JSON text cannot hold one raw (write \\u0000)");
  EXPECT_EQ(
      scan("{\"a\": 1}\0junk"s),
      "8: expected the end of the text after the JSON value, found a NUL byte (U+0000); JSON text cannot hold one raw");
  EXPECT_EQ(scan("{\"a\" 1}"), "5: expected ':' after the member name, found \"1}\"");
  EXPECT_EQ(scan("{\"a\": 1 \"b\": 2}"), "8: expected ',' or '}' after a member, found \"\\\"b\\\": 2}\"");
  EXPECT_EQ(scan("[1 2]"), "3: expected ',' or ']' after an element, found \"2]\"");
  EXPECT_EQ(scan("[1,]"), "3: expected a JSON value, found \"]\" (JSON has no trailing comma)");
  EXPECT_EQ(scan("{\"a\": 1,}"),
            "8: expected a member name in double quotes, found \"}\" (JSON has no trailing comma)");
  EXPECT_EQ(scan("{'a': 1}"), "1: expected a member name in double quotes or '}', found \"'a': 1}\"");
  EXPECT_EQ(scan("[,1]"), "1: expected a JSON value or ']', found \",1]\"");
  EXPECT_EQ(scan("{\"a\": }"), "6: expected a JSON value, found \"}\"");
  EXPECT_EQ(scan("{\"a\": "), "6: expected a JSON value, found the end of the text");
  EXPECT_EQ(scan("[tru]"), "1: expected a JSON value or ']', found \"tru]\"");
  EXPECT_EQ(
      scan("[1, NaN]"),
      "4: expected a JSON value, found NaN, which JSON does not have (Python's json.dumps writes it; use null or a "
      "string)");
  EXPECT_EQ(
      scan("[-Infinity]"),
      "1: expected a JSON value or ']', found -Infinity, which JSON does not have (Python's json.dumps writes it; use "
      "null or a string)");
  EXPECT_EQ(scan("{\"a\": 1} x"), "9: expected the end of the text after the JSON value, found \"x\"");
  EXPECT_EQ(scan("\"abc"), "0: a string that is not closed before the end of the text (it starts \"abc\")");
  EXPECT_EQ(
      scan("[\"" + std::string(30, 'x')),
      "1: a string that is not closed before the end of the text (it starts \"" + std::string(24, 'x') + "\"...)");
  EXPECT_EQ(scan("\"a\tb\""), "2: the control character U+0009 inside a string; JSON text holds it only escaped (\\t)");
  EXPECT_EQ(scan("\"a\x01\""),
            "2: the control character U+0001 inside a string; JSON text holds it only escaped (\\u0001)");
  EXPECT_EQ(scan("[\x01]"), "1: expected a JSON value or ']', found the control character U+0001");
  EXPECT_EQ(scan("\"\\q\""),
            "1: expected an escape JSON has (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX) after the backslash, found "
            "\"q\"...");
  EXPECT_EQ(scan("\"\\u12x4\""), "1: expected four hex digits after \\u, found \"12x4\"...");
  EXPECT_EQ(scan("\"\\udc00\""),
            "1: the \\u escape of a lone low surrogate U+DC00, which is no character (it must follow a high surrogate "
            "U+D800..U+DBFF)");
  EXPECT_EQ(scan("\"\\ud800x\""),
            "7: expected the \\u escape of a low surrogate (\\udc00..\\udfff) after the high surrogate U+D800, found "
            "\"x\\\"\"");
  EXPECT_EQ(scan("-"), "1: expected a digit after '-', found the end of the text");
  EXPECT_EQ(scan("[01]"), "1: a number with a leading zero, found \"01]\" (JSON writes 7, not 07)");
  EXPECT_EQ(scan("1."), "2: expected a digit after the '.' of a number, found the end of the text");
  EXPECT_EQ(scan("1e+"), "3: expected a digit in the exponent of a number, found the end of the text");
}

TEST(JsonSyntax, DeepNestingTakesNoStack) {
  std::string deep(1 << 20, '[');
  EXPECT_EQ(scan(deep), std::to_string(deep.size()) + ": expected a JSON value or ']', found the end of the text");
}

TEST(JsonSyntax, StrictParserWordsSyntaxErrorsWithPlace) {
  // Line and column of the byte named; the parser's own words ("syntax error while parsing") never show.
  auto j = parse_json_strict("{\n  \"a\": [1,\n  2 3]}", "f.json");
  ASSERT_FALSE(j);
  EXPECT_EQ(j.error().message, "f.json:3:5: expected ',' or ']' after an element, found \"3]}\"");
  // A NUL byte after a whole value was the end of the text to nlohmann: what follows it was dropped.
  auto nul = parse_json_strict("{\"a\": 1}\0{\"b\": 2}"s, "p.jsonl:4");
  ASSERT_FALSE(nul);
  EXPECT_EQ(nul.error().message,
            "p.jsonl:4:1:9: expected the end of the text after the JSON value, found a NUL byte (U+0000); JSON text "
            "cannot hold one raw");
  // Not syntax: the strict reader's own refusals keep their words.
  auto overflow = parse_json_strict("[1e400]", "f");
  ASSERT_FALSE(overflow);
  EXPECT_NE(overflow.error().message.find("beyond the range of a 64-bit float"), std::string::npos)
      << overflow.error().message;
}
