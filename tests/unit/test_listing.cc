// `split --input` listings (src/io/listing.h): the strict SAX pass over each
// line. Strings with escapes exercise the in situ parse (listing.cc parses a
// NUL-terminated copy of each line so RapidJSON 1.1's lazily allocated string
// stack, whose first push is `nullptr + n` under UBSan, is never used): the
// ids and link keys come out unescaped and re-spelled as json.dumps does,
// while the listing's lines stay the file's bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/listing.h"
#include "support.h"

namespace fs = std::filesystem;
using namespace failmap;

namespace {

fs::path write_listing(const std::string& name, const std::string& text) {
  fs::path p = ::failmap::testing_support::unit_temp_dir() /
               ("failmap-listing-" + std::to_string(::getpid()) + "-" + name + ".jsonl");
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

}  // namespace

TEST(Listing, EscapedStringsAreUnescapedAndLinesKeptVerbatim) {
  // Line 1: id a"b\é (escaped quote, backslash, \u00e9), group "x\ny" with an escaped newline.
  // Line 2: id 7, group in an array, sharing "x\ny" with line 1; a nested object and a float elsewhere are ignored.
  // Line 3: id "\ud83d\ude00" (a surrogate pair: U+1F600), a group of its own.
  const std::string line1 = R"({"id": "a\"b\\\u00e9", "group": "x\ny"})";
  const std::string line2 = R"({"id": 7, "meta": {"k": [1.5, "s"]}, "group": ["x\ny", "z"]})";
  const std::string line3 = R"({"group": "\u0041", "id": "\ud83d\ude00"})";
  fs::path p = write_listing("escapes", line1 + "\n" + line2 + "\r\n" + line3 + "\n");
  auto l = read_listing(p, {"group"});
  fs::remove(p);
  ASSERT_TRUE(l) << l.error().message;
  ASSERT_EQ(l->lines.size(), 3u);
  EXPECT_EQ(l->lines[0], line1);  // in situ unescaping happened in a copy
  EXPECT_EQ(l->lines[1], line2);  // "\r" of a CRLF line end dropped
  EXPECT_EQ(l->lines[2], line3);
  // json.dumps(..., ensure_ascii=False) spellings: é and U+1F600 raw UTF-8.
  EXPECT_EQ(l->id(0), "\"a\\\"b\\\\\xC3\xA9\"");
  EXPECT_EQ(l->id(1), "7");
  EXPECT_EQ(l->id(2), "\"\xF0\x9F\x98\x80\"");
  // Units: {line 1, line 2} via group="x\ny", {line 3} via group="A"; keys sorted byte-wise.
  ASSERT_EQ(l->partition.unit_count(), 2u);
  EXPECT_EQ(l->partition.unit_keys[0], "group=\"A\"");
  EXPECT_EQ(l->partition.unit_keys[1], "group=\"x\\ny\"");
  EXPECT_EQ(l->partition.unit_of[0], 1u);
  EXPECT_EQ(l->partition.unit_of[1], 1u);
  EXPECT_EQ(l->partition.unit_of[2], 0u);
}

TEST(Listing, ErrorsNameLineAndColumn) {
  struct Bad {
    std::string text, message;
  };
  const Bad bad[] = {
      // Column of the first byte RapidJSON could not take (1-based).
      {"{\"id\": 1, \"group\": \"g\"}\n{\"id\": 2, \"group\": \"g\",}\n",
       ":2: column 24: expected a member name in double quotes, found \"}\""},
      {"{\"id\": \"\xC3\x28\", \"group\": \"g\"}\n", ":1: column 9: a string that is not valid UTF-8"},
      // A lone low surrogate: RapidJSON 1.1 decodes it into bytes that are not UTF-8 (they were written out).
      {"{\"id\": \"b\\udc00\", \"group\": \"g\"}\n",
       ":1: field 'id': a \\u escape of a lone or unpaired UTF-16 surrogate (no character)"},
      {"{\"id\": \"b\", \"x\": {\"y\": [\"\\udfff\"]}, \"group\": \"g\"}\n",
       ":1: field 'x': a \\u escape of a lone or unpaired UTF-16 surrogate (no character)"},
      {"{\"id\": \"b\", \"\\udc00\": 1, \"group\": \"g\"}\n",
       ":1: a member name with a \\u escape of a lone or unpaired UTF-16 surrogate (no character)"},
      {"{\"id\": \"\\ud800\", \"group\": \"g\"}\n",
       ":1: column 9: a \\u escape of a lone or unpaired UTF-16 surrogate (no character)"},
      {"{\"id\": 1, \"group\": [1, 1e400]}\n",
       ":1: column 24: field 'group': a number beyond the range of a double (about 1.8e308)"},
      {"{\"id\": \"a\\q\", \"group\": \"g\"}\n", ":1: column 10: an escape JSON does not have, found \"\\\\q\"..."},
      // What was found, in failmap's words (RapidJSON said "Invalid value." for each).
      {"{\"id\": 1, \"group\": NaN}\n",
       ":1: column 20: expected a JSON value, found NaN, which JSON does not have (Python's json.dumps writes it; use "
       "null or a string)"},
      {"{\"id\": 1, \"group\": \xEF\xBB\xBF\"g\"}\n",
       ":1: column 20: expected a JSON value, found a UTF-8 byte-order mark (U+FEFF)"},
      {"{\"id\": 1, \"group\": \"g\"}\n\xEF\xBB\xBF{\"id\": 2, \"group\": \"g\"}\n",
       ":2: a UTF-8 byte-order mark (U+FEFF), which only the very start of a file may hold (schema/BUNDLE.md "
       "\"Byte-order marks\")"},
      {"{\"id\": 1, \"group\": \"g\"}\n\n\n", ":2: blank line"},
      {"{\"id\": \"a\x1b\", \"group\": \"g\"}\n",
       ":1: column 10: a raw control character (U+001B) in a string; JSON requires it escaped, as \\u001b"},
      {"{\"id\": 1, \"group\": \"g\"} {}\n",
       ":1: column 25: text after the line's JSON object (one object per line): found \"{}\""},
      {"{\"id\": 1.5, \"group\": \"g\"}\n", ":1: field 'id' holds the float 1.5; expected a string or an integer"},
      {"{\"id\": -2.5E-7 , \"group\": \"g\"}\n",
       ":1: field 'id' holds the float -2.5E-7; expected a string or an integer"},
      {"{\"id\": 99999999999999999999, \"group\": \"g\"}\n",
       ":1: field 'id' holds 99999999999999999999, an integer beyond int64; expected a string or an integer"},
      {"{\"id\": \"a\", \"group\": [1, 9223372036854775808]}\n",
       ":1: field 'group' holds 9223372036854775808, an integer beyond int64; expected a string or an integer (or an "
       "array "
       "of them, or null)"},
      {"{\"id\": 1, \"group\": \"g\", \"id\": 2}\n", ":1: duplicate key \"id\""},
      {"{\"id\": \"a\\u0041\", \"group\": \"g\"}\n{\"id\": \"aA\", \"group\": \"h\"}\n",
       ":2: duplicate id \"aA\" (first on line 1)"},
  };
  for (const Bad& b : bad) {
    fs::path p = write_listing("bad", b.text);
    auto l = read_listing(p, {"group"});
    fs::remove(p);
    ASSERT_FALSE(l) << b.text;
    EXPECT_EQ(l.error().message, p.string() + b.message) << b.text;
  }
}

// fuzz_listing (after the in situ change): a line ending inside a UTF-8 sequence ("… A \xF3") made
// RapidJSON's validator read 3 bytes past the line's terminating NUL (ASan heap-buffer-overflow). The
// crashing input, then the same ending for every lead-byte length.
TEST(Listing, FuzzLineEndingInAUtf8LeadByteIsRefused) {
  const std::string crash = "{" + std::string(25, ' ') + "\"i6, tA \xF3\n";
  for (const std::string& text : {crash, std::string("{\"id\": \"\xC3\n"), std::string("{\"id\": \"\xE2\x82\n"),
                                  std::string("{\"id\": \"a\xF0\x9F\x98")}) {
    fs::path p = write_listing("lead", text);
    auto l = read_listing(p, {"group"});
    fs::remove(p);
    ASSERT_FALSE(l) << text;
    EXPECT_NE(l.error().message.find(":1: column "), std::string::npos) << l.error().message;
    EXPECT_NE(l.error().message.find("a string that is not valid UTF-8"), std::string::npos) << l.error().message;
  }
}
