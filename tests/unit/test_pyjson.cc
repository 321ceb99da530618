// The Python-compatible JSON writer against CPython 3's own output:
// each expected string below is what `json.dumps(v, ensure_ascii=False)`
// printed (Python 3.11.7), copied verbatim.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "encoding/pyjson.h"
#include "io/observation.h"

using failmap::python_json;
using failmap::Value;

namespace {
std::string dumps_float(double d) { return python_json(Value::floating(d)); }

// What the shell command prints on stdout, into `*out`; false when it fails.
bool shell_output(const char* command, std::string* out) {
  FILE* p = popen(command, "r");
  if (!p) return false;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out->append(buf, n);
  return pclose(p) == 0;
}
}  // namespace

TEST(PythonJson, FloatsMatchCPythonRepr) {
  EXPECT_EQ(dumps_float(0.1), "0.1");
  EXPECT_EQ(dumps_float(4.0), "4.0");
  EXPECT_EQ(dumps_float(-0.0), "-0.0");
  EXPECT_EQ(dumps_float(1e16), "1e+16");
  EXPECT_EQ(dumps_float(1e-05), "1e-05");
  EXPECT_EQ(dumps_float(105.62744), "105.62744");
  EXPECT_EQ(dumps_float(0.6000000000000001), "0.6000000000000001");
  EXPECT_EQ(dumps_float(1431756631463478.0), "1431756631463478.0");
  EXPECT_EQ(dumps_float(1e22), "1e+22");
  EXPECT_EQ(dumps_float(1.5e-7), "1.5e-07");
  EXPECT_EQ(dumps_float(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(dumps_float(5e-324), "5e-324");
  EXPECT_EQ(dumps_float(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(dumps_float(0.0001), "0.0001");
  EXPECT_EQ(dumps_float(9999999999999998.0), "9999999999999998.0");
}

TEST(PythonJson, NonFiniteSpelledAsPython) {
  EXPECT_EQ(dumps_float(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(dumps_float(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(dumps_float(-std::numeric_limits<double>::infinity()), "-Infinity");
}

TEST(PythonJson, StringsRawUtf8WithPythonEscapes) {
  EXPECT_EQ(python_json(Value::str("€")), "\"€\"");
  EXPECT_EQ(python_json(Value::str("\x1f\t")), "\"\\u001f\\t\"");
  EXPECT_EQ(python_json(Value::str("a\"b\\c\n\r\b\f\x7f")), "\"a\\\"b\\\\c\\n\\r\\b\\f\x7f\"");
}

TEST(PythonJson, IntsListsAndConstants) {
  EXPECT_EQ(python_json(Value::integer(INT64_MAX)), "9223372036854775807");
  EXPECT_EQ(python_json(Value::integer(INT64_MIN)), "-9223372036854775808");
  Value nested =
      Value::list({Value::integer(1), Value::floating(2.5), Value::list({Value::boolean(true), Value::none()})});
  EXPECT_EQ(python_json(nested), "[1, 2.5, [true, null]]");
  EXPECT_EQ(python_json(Value::list({})), "[]");
}

TEST(PythonJson, ReprForSourceText) {
  EXPECT_EQ(failmap::python_str_repr("short final batch"), "'short final batch'");
  EXPECT_EQ(failmap::python_str_repr("it's"), "\"it's\"");
  EXPECT_EQ(failmap::python_str_repr("a'b\"c"), "'a\\'b\"c'");
  EXPECT_EQ(failmap::python_repr(Value::list({Value::boolean(false), Value::floating(1e16)})), "[False, 1e+16]");
}

// The same values printed by the python3 on this machine at test time.
TEST(PythonJson, MatchesLivePython3) {
  std::string got;
  bool ran = shell_output(
      "python3 -c 'import json; "
      "[print(json.dumps(v, ensure_ascii=False)) for v in [0.1, 4.0, -0.0, 1e16, 1e-05, 105.62744, "
      "0.6000000000000001, 1431756631463478.0, float(\"nan\"), float(\"inf\"), \"\\u20ac\", \"\\x1f\\t\", "
      "[1, 2.5, [True, None]]]]; "
      "print(json.dumps({\"check\": \"x\", \"actual\": 1, \"expected\": 1.0, \"passed\": True}, ensure_ascii=False))' "
      "2>/dev/null",
      &got);
  if (!ran) GTEST_SKIP() << "python3 not available";
  using V = Value;
  std::vector<V> values = {V::floating(0.1),
                           V::floating(4.0),
                           V::floating(-0.0),
                           V::floating(1e16),
                           V::floating(1e-05),
                           V::floating(105.62744),
                           V::floating(0.6000000000000001),
                           V::floating(1431756631463478.0),
                           V::floating(std::nan("")),
                           V::floating(INFINITY),
                           V::str("€"),
                           V::str("\x1f\t"),
                           V::list({V::integer(1), V::floating(2.5), V::list({V::boolean(true), V::none()})})};
  std::string want;
  for (const V& v : values) want += python_json(v) + "\n";
  // Key order check, check/actual/expected/passed, as observation_document writes it.
  want += "{\"check\": \"x\", \"actual\": 1, \"expected\": 1.0, \"passed\": true}\n";
  EXPECT_EQ(got, want);
}

// One ObservationFrame reused across cases of other labels, lengths and value
// kinds gives, for each, the bytes python3 on this machine prints at test time
// for the same document (labels with escapes and non-ASCII, int64 bounds,
// negative numbers, floats, nested lists, bools, None, no checks at all).
TEST(PythonJson, ObservationFrameReusedMatchesLivePython3) {
  std::string got;
  bool ran = shell_output(
      "python3 - 2>/dev/null <<'EOF'\n"
      "import json\n"
      "def doc(rows):\n"
      "    obs = [{'check': l, 'actual': a, 'expected': e, 'passed': p} for l, a, e, p in rows]\n"
      "    print(json.dumps({'observations': obs, 'passed': all(o['passed'] for o in obs)}, ensure_ascii=False))\n"
      "doc([('short \"q\"\\n\u20ac', 9223372036854775807, -9223372036854775808, False), ('f', 2.5, 2.5, True),\n"
      "     ('l', [1, [-2, 3]], [1, [-2, 3]], True)])\n"
      "doc([('x', -7, -7, True), ('\\\\\\t', None, True, False)])\n"
      "doc([])\n"
      "doc([('a', 1, 1.0, True)])\n"
      "EOF\n",
      &got);
  if (!ran) GTEST_SKIP() << "python3 not available";
  using V = Value;
  struct Row {
    std::string label;
    V actual, expected;
    bool passed;
  };
  std::vector<std::vector<Row>> cases = {
      {{"short \"q\"\n\u20ac", V::integer(INT64_MAX), V::integer(INT64_MIN), false},
       {"f", V::floating(2.5), V::floating(2.5), true},
       {"l", V::list({V::integer(1), V::list({V::integer(-2), V::integer(3)})}),
        V::list({V::integer(1), V::list({V::integer(-2), V::integer(3)})}), true}},
      {{"x", V::integer(-7), V::integer(-7), true}, {"\\\t", V::none(), V::boolean(true), false}},
      {},
      {{"a", V::integer(1), V::floating(1.0), true}}};
  failmap::ObservationFrame frame;
  std::string want;
  for (const auto& rows : cases) {
    failmap::Case c;
    failmap::RunOutcome run;
    for (const Row& r : rows) {
      c.fixtures.push_back(failmap::Fixture{r.label, {}, r.expected});
      run.actuals.push_back(r.actual);
      run.passed.push_back(r.passed);
      run.all_passed = run.all_passed && r.passed;
    }
    frame.assign(c);
    std::string document;
    frame.append_document(document, run);
    EXPECT_EQ(document, failmap::observation_document(c, run));
    want += document + "\n";
  }
  EXPECT_EQ(got, want);
}

// parse_python_json reads back what json.dumps printed: this text is Python
// 3.11's json.dumps({"observations": [{"actual": float("nan")}, {"actual":
// {"b": 1, "a": [-0.0, 1e16, float("-inf"), True, None]}}], "s":
// "\x1b\u00e9"}, ensure_ascii=False), which json.loads accepts.
TEST(PythonJson, ReadsBackWhatJsonDumpsPrints) {
  const std::string text =
      "{\"observations\": [{\"actual\": NaN}, {\"actual\": {\"b\": 1, \"a\": [-0.0, 1e+16, -Infinity, true, null]}}], "
      "\"s\": \"\\u001b\xc3\xa9\"}";
  auto v = failmap::parse_python_json(text, "doc");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(python_json(*v), text);
  const auto& obs = v->as_dict().at(0).second.as_list();
  EXPECT_TRUE(std::isnan(obs.at(0).as_dict().at(0).second.as_float()));
  const auto& d = obs.at(1).as_dict().at(0).second.as_dict();
  EXPECT_EQ(d.at(0).first, "b");  // insertion order kept, as json.loads keeps it
  EXPECT_TRUE(d.at(1).second.as_list().at(0).is_float());
  EXPECT_TRUE(std::signbit(d.at(1).second.as_list().at(0).as_float()));
  EXPECT_TRUE(d.at(0).second.is_int());
}

TEST(PythonJson, ReaderRefusesWhatJsonDumpsNeverPrints) {
  auto message = [](std::string_view text) {
    auto v = failmap::parse_python_json(text, "doc");
    return v ? std::string("accepted") : v.error().message;
  };
  EXPECT_EQ(message("{\"a\": 1, \"a\": 2}"),
            "doc: byte 9: the key \"a\" twice in one object (expected JSON as Python's json.dumps prints it)");
  EXPECT_EQ(message("[1] x"), "doc: byte 4: text after the value (expected JSON as Python's json.dumps prints it)");
  EXPECT_EQ(message("[1, nan]"),
            "doc: byte 4: no JSON value starts here (expected JSON as Python's json.dumps prints it)");
  EXPECT_EQ(message("[\"open"),
            "doc: byte 1: a string that is not closed (expected JSON as Python's json.dumps prints it)");
  EXPECT_NE(message("[9223372036854775808]"), "accepted");  // beyond int64, as every reader of values
  EXPECT_NE(message("[01]"), "accepted");
  EXPECT_NE(message("[\"\x01\"]"), "accepted");  // a raw control character
  std::string deep(65, '[');
  deep += std::string(65, ']');
  EXPECT_EQ(message(deep),
            "doc: byte 64: nested deeper than 64 levels (expected JSON as Python's json.dumps prints it)");
  EXPECT_EQ(message(std::string(64, '[') + std::string(64, ']')), "accepted");
}
