// RFC 8785 canonical JSON against the RFC's own test vectors.
//
// Sources, copied verbatim:
//  - RFC 8785 Appendix B (IEEE 754 bit patterns → ECMAScript number strings),
//    as vendored in lattice-substrate/json-canon
//    conformance/official/rfc8785/appendix_b.csv;
//  - RFC 8785 §3.2.2 (the sample object) and §3.2.3 (sorting of properties);
//  - the RFC authors' reference test data,
//    https://github.com/cyberphone/json-canonicalization testdata/input/*.json
//    and testdata/output/*.json (arrays, french, structures, unicode, values,
//    weird).
#include <gtest/gtest.h>

#include <cstring>

#include "encoding/jcs.h"
#include "encoding/text.h"

namespace failmap {
namespace {

double from_bits(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

std::string canon(std::string_view input) {
  auto j = parse_json_strict(input, "test");
  EXPECT_TRUE(j.ok()) << (j.ok() ? "" : j.error().message);
  auto c = canonical_json(*j);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return c.ok() ? *c : std::string();
}

TEST(Jcs, AppendixBNumbers) {
  struct Vector {
    std::uint64_t bits;
    const char* text;
  };
  const Vector k_vectors[] = {
      {0x0000000000000000, "0"},
      {0x8000000000000000, "0"},
      {0x0000000000000001, "5e-324"},
      {0x8000000000000001, "-5e-324"},
      {0x7fefffffffffffff, "1.7976931348623157e+308"},
      {0xffefffffffffffff, "-1.7976931348623157e+308"},
      {0x4340000000000000, "9007199254740992"},
      {0xc340000000000000, "-9007199254740992"},
      {0x4430000000000000, "295147905179352830000"},
      {0x44b52d02c7e14af5, "9.999999999999997e+22"},
      {0x44b52d02c7e14af6, "1e+23"},
      {0x44b52d02c7e14af7, "1.0000000000000001e+23"},
      {0x444b1ae4d6e2ef4e, "999999999999999700000"},
      {0x444b1ae4d6e2ef4f, "999999999999999900000"},
      {0x444b1ae4d6e2ef50, "1e+21"},
      {0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
      {0x3eb0c6f7a0b5ed8d, "0.000001"},
      {0x41b3de4355555553, "333333333.3333332"},
      {0x41b3de4355555554, "333333333.33333325"},
      {0x41b3de4355555555, "333333333.3333333"},
      {0x41b3de4355555556, "333333333.3333334"},
      {0x41b3de4355555557, "333333333.33333343"},
      {0xbecbf647612f3696, "-0.0000033333333333333333"},
      {0x43143ff3c1cb0959, "1424953923781206.2"},
  };
  for (const Vector& v : k_vectors) EXPECT_EQ(ecmascript_number(from_bits(v.bits)), v.text) << std::hex << v.bits;
}

TEST(Jcs, NumberBoundaries) {
  EXPECT_EQ(ecmascript_number(1e21), "1e+21");
  EXPECT_EQ(ecmascript_number(1e20), "100000000000000000000");
  EXPECT_EQ(ecmascript_number(1e-7), "1e-7");
  EXPECT_EQ(ecmascript_number(1e-6), "0.000001");
  EXPECT_EQ(ecmascript_number(-0.0), "0");
  EXPECT_EQ(ecmascript_number(5e-324), "5e-324");
  EXPECT_EQ(ecmascript_number(4.5), "4.5");
  EXPECT_EQ(ecmascript_number(56.0), "56");
  EXPECT_EQ(ecmascript_number(0.1), "0.1");
  EXPECT_EQ(ecmascript_number(-1.5e-9), "-1.5e-9");
  EXPECT_EQ(ecmascript_number(123456789012345680000.0), "123456789012345680000");
}

// RFC 8785 §3.2.2: the sample object and its canonical form.
TEST(Jcs, Rfc8785Section322) {
  const char* input = R"({
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
})";
  EXPECT_EQ(canon(input),
            "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
            "\"string\":\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

// RFC 8785 §3.2.3: properties sorted by UTF-16 code units; the emoji key
// (U+1F600, surrogates D83D DE00) sorts before U+FB33.
TEST(Jcs, Rfc8785Section323Sorting) {
  const char* input = R"({
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
})";
  EXPECT_EQ(canon(input),
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\xc2\x80\":\"Control\","
            "\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\",\"\xe2\x82\xac\":\"Euro Sign\","
            "\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\",\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}");
  // Code-point (UTF-8 byte) order would put U+FB33 first; UTF-16 order does not.
  EXPECT_TRUE(utf16_less("\xf0\x9f\x98\x80", "\xef\xac\xb3"));
  EXPECT_FALSE(utf16_less("\xef\xac\xb3", "\xf0\x9f\x98\x80"));
  EXPECT_TRUE(utf16_less("a", "ab"));
  EXPECT_FALSE(utf16_less("ab", "ab"));
}

// cyberphone/json-canonicalization testdata: input → output.
TEST(Jcs, CyberphoneTestData) {
  EXPECT_EQ(canon("[\n  56,\n  {\n    \"d\": true,\n    \"10\": null,\n    \"1\": [ ]\n  }\n]"),
            "[56,{\"1\":[],\"10\":null,\"d\":true}]");  // arrays.json
  EXPECT_EQ(canon("{\n  \"peach\": \"This sorting order\",\n  \"p\xc3\xa9"
                  "ch\xc3\xa9\": \"is wrong according to French\",\n"
                  "  \"p\xc3\xaa"
                  "che\": \"but canonicalization MUST\",\n  \"sin\":   \"ingnore locale\"\n}\n"),
            "{\"peach\":\"This sorting order\",\"p\xc3\xa9"
            "ch\xc3\xa9\":\"is wrong according to French\","
            "\"p\xc3\xaa"
            "che\":\"but canonicalization MUST\",\"sin\":\"ingnore locale\"}");  // french.json
  EXPECT_EQ(
      canon("{\n  \"1\": {\"f\": {\"f\": \"hi\",\"F\": 5} ,\"\\n\": 56.0},\n  \"10\": { },\n  \"\": \"empty\",\n"
            "  \"a\": { },\n  \"111\": [ { } ],\n  \"A\": { }\n}"),
      "{\"\":\"empty\",\"1\":{\"\\n\":56,\"f\":{\"F\":5,\"f\":\"hi\"}},\"10\":{},\"111\":[{}],\"A\":{},\"a\":{}}");
  EXPECT_EQ(canon("{\n  \"Unnormalized Unicode\":\"\\u1e0d\\u0307\"\n}\n"),
            "{\"Unnormalized Unicode\":\"\xe1\xb8\x8d\xcc\x87\"}");  // unicode.json: no normalization
  EXPECT_EQ(canon("{\n  \"numbers\": [1E30, 4.50, 333333333.33333329, 2e-3, 0.000000000000000000000000001],\n"
                  "  \"escaping\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n"
                  "  \"literals\": [null, true, false]\n}"),
            "{\"escaping\":\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\",\"literals\":[null,true,false],"
            "\"numbers\":[1e+30,4.5,333333333.3333333,0.002,1e-27]}");  // values.json
  EXPECT_EQ(canon("{\n  \"\\u20ac\": \"Euro Sign\",\n  \"1\": \"One\",\n  \"\\u0080\": \"Control\\u007f\",\n"
                  "  \"\\ud83d\\ude02\": \"Smiley\",\n  \"\\u00f6\": \"Latin Small Letter O With Diaeresis\",\n"
                  "  \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\",\n  \"</script>\": \"Browser Challenge\"\n}\n"),
            "{\"1\":\"One\",\"</script>\":\"Browser Challenge\",\"\xc2\x80\":\"Control\x7f\","
            "\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\",\"\xe2\x82\xac\":\"Euro Sign\","
            "\"\xf0\x9f\x98\x82\":\"Smiley\",\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}");  // weird.json
}

TEST(Jcs, IntegersBeyond2To53AreRefusedNamingTheField) {
  EXPECT_EQ(canon("[9007199254740992, -9007199254740992]"), "[9007199254740992,-9007199254740992]");
  auto j = parse_json_strict(R"({"a": {"b": [1, 9007199254740993]}})", "test");
  ASSERT_TRUE(j.ok());
  auto c = canonical_json(*j);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "$.a.b[1]: integer 9007199254740993 is outside ±2^53 and has no exact I-JSON (double) form; RFC 8785 "
            "cannot canonicalize it");
  Json nan = Json::array({std::nan("")});
  auto n = canonical_json(nan);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().message, "$[0]: NaN and infinities have no JSON form");
}

TEST(Jcs, ControlCharactersAndRawUnicode) {
  Json j = std::string("\x01\x1f\x7f\xe2\x80\xa8/");
  EXPECT_EQ(*canonical_json(j), "\"\\u0001\\u001f\x7f\xe2\x80\xa8/\"");
}

// append_canonical_string and valid_utf8 test 16 or 8 bytes at a time: every
// byte that needs an escape (RFC 8785 §3.2.2.2: the seven named escapes, other
// controls as \u00xx) and every byte that breaks UTF-8, placed at every offset
// of 40 bytes of 'a' (16- and 8-byte blocks, their boundaries and tails).
TEST(Jcs, EscapesAndUtf8ErrorsAtEveryOffsetOfAWord) {
  const std::pair<char, std::string> named[] = {
      {'"', "\\\""}, {'\\', "\\\\"},      {'\b', "\\b"},       {'\t', "\\t"},       {'\n', "\\n"},      {'\f', "\\f"},
      {'\r', "\\r"}, {'\x01', "\\u0001"}, {'\x1f', "\\u001f"}, {'\x00', "\\u0000"}, {'\x0b', "\\u000b"}};
  for (std::size_t at = 0; at < 40; ++at) {
    for (const auto& [byte, escaped] : named) {
      std::string s(40, 'a');
      s[at] = byte;
      std::string out;
      append_canonical_string(out, s);
      EXPECT_EQ(out, "\"" + std::string(at, 'a') + escaped + std::string(39 - at, 'a') + "\"") << at;
    }
    for (std::string_view copied : {std::string_view("\x7f"), std::string_view(" "), std::string_view("\xc3\xa9")}) {
      std::string s(40, 'a');  // DEL, space and UTF-8 sequences (bytes from 0x80) are copied
      s.replace(at, copied.size(), copied);
      std::string out;
      append_canonical_string(out, s);
      EXPECT_EQ(out, "\"" + s + "\"") << at;
    }
    for (std::string_view bad : {std::string_view("\x80"), std::string_view("\xc3"), std::string_view("\xff"),
                                 std::string_view("\xed\xa0\x80")}) {
      std::string t(40, 'a');
      t.replace(at, bad.size(), bad);
      EXPECT_FALSE(valid_utf8(t)) << at;
    }
    std::string ok(40, 'a');
    ok.replace(at, 2, "\xc3\xa9");  // é (the last offset makes it 41 bytes)
    EXPECT_TRUE(valid_utf8(ok)) << at;
  }
}

// fuzz_jcs, first 60 s pass: "1e20". Its canonical form is the integer literal ECMAScript prints below 1e21;
// read back as I-JSON (every number a double, RFC 7493) it canonicalizes to the same bytes. (The harness had
// re-read it with parse_json_strict, which refuses integers beyond int64 by policy.) 1e19 likewise, whose
// literal fits a uint64 but not the ±2^53 that canonical_json accepts for integers.
TEST(Jcs, FuzzCanonicalFormOfLargeFloatsIsIdempotentAsIJson) {
  const auto as_double = [](int, Json::parse_event_t event, Json& v) {
    if (event == Json::parse_event_t::value && v.is_number()) v = v.get<double>();
    return true;
  };
  for (auto [input, want] : {std::pair{"1e20", "100000000000000000000"}, std::pair{"1e19", "10000000000000000000"},
                             std::pair{"[1e20, 3, 2.5e15]", "[100000000000000000000,3,2500000000000000]"}}) {
    EXPECT_EQ(canon(input), want);
    auto again = canonical_json(Json::parse(want, as_double));
    ASSERT_TRUE(again.ok()) << input;
    EXPECT_EQ(*again, want);
  }
  EXPECT_FALSE(parse_json_strict("100000000000000000000", "x").ok());  // the strict reader's policy, unchanged
}

}  // namespace
}  // namespace failmap
