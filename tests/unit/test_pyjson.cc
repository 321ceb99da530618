// The Python-compatible JSON writer against CPython 3's own output:
// each expected string below is what `json.dumps(v, ensure_ascii=False)`
// printed (Python 3.11.7), copied verbatim.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "io/pyjson.h"

using failmap::python_json;
using failmap::Value;

namespace {
std::string dumps_float(double d) { return python_json(Value::floating(d)); }
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
  Value nested = Value::list({Value::integer(1), Value::floating(2.5), Value::list({Value::boolean(true), Value::none()})});
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
  FILE* p = popen(
      "python3 -c 'import json; "
      "[print(json.dumps(v, ensure_ascii=False)) for v in [0.1, 4.0, -0.0, 1e16, 1e-05, 105.62744, "
      "0.6000000000000001, 1431756631463478.0, float(\"nan\"), float(\"inf\"), \"\\u20ac\", \"\\x1f\\t\", "
      "[1, 2.5, [True, None]]]]; "
      "print(json.dumps({\"check\": \"x\", \"actual\": 1, \"expected\": 1.0, \"passed\": True}, ensure_ascii=False))' "
      "2>/dev/null",
      "r");
  ASSERT_NE(p, nullptr);
  std::string got;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) got.append(buf, n);
  if (pclose(p) != 0) GTEST_SKIP() << "python3 not available";
  using V = Value;
  std::vector<V> values = {V::floating(0.1), V::floating(4.0), V::floating(-0.0), V::floating(1e16), V::floating(1e-05),
                           V::floating(105.62744), V::floating(0.6000000000000001), V::floating(1431756631463478.0),
                           V::floating(std::nan("")), V::floating(INFINITY), V::str("€"), V::str("\x1f\t"),
                           V::list({V::integer(1), V::floating(2.5), V::list({V::boolean(true), V::none()})})};
  std::string want;
  for (const V& v : values) want += python_json(v) + "\n";
  // Key order check, check/actual/expected/passed, as observation_document writes it.
  want += "{\"check\": \"x\", \"actual\": 1, \"expected\": 1.0, \"passed\": true}\n";
  EXPECT_EQ(got, want);
}
