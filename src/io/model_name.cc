#include "io/model_name.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <cstdio>

namespace failmap {

namespace {

// "U+XXXX NAME" (ICU's character name). Not core/case.h code_point_text, which
// gives no name: a different name, so that a unity build that puts this file
// beside another using that one (io/page.cc) cannot bind the other's calls here.
std::string code_point_with_name(UChar32 c) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c));
  std::string out = hex;
  UErrorCode e = U_ZERO_ERROR;
  char name[128];
  std::int32_t n = u_charName(c, U_UNICODE_CHAR_NAME, name, sizeof name, &e);
  if (U_SUCCESS(e) && n > 0) out += " " + std::string(name, static_cast<std::size_t>(n));
  return out;
}

// Why `c` may not stand in a model name at all, or nullptr.
const char* refused(UChar32 c) {
  switch (u_charType(c)) {
    case U_CONTROL_CHAR:
      return "a control character";
    case U_FORMAT_CHAR:
      return "an invisible format character";
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
      return "a line or paragraph separator";
    case U_UNASSIGNED:
      return "a code point Unicode assigns no character";
    case U_PRIVATE_USE_CHAR:
      return "a private-use character";
    case U_SURROGATE:
      return "a surrogate";
    default:
      break;
  }
  if (u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) return "a default-ignorable (invisible) character";
  if (c != 0x20 && u_isUWhiteSpace(c)) return "white space other than U+0020 SPACE";
  return nullptr;
}

}  // namespace

Result<std::string> normalize_model_name(std::string_view name) {
  if (name.empty()) return input_error("expected a model name of 1 to 200 bytes");
  if (name.size() > k_model_name_max_bytes)
    return input_error("expected a model name of 1 to 200 bytes, got " + std::to_string(name.size()) + " bytes");
  UErrorCode e = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(e);
  if (U_FAILURE(e)) return input_error(std::string("model name: ICU has no NFC data: ") + u_errorName(e));
  icu::UnicodeString text =
      icu::UnicodeString::fromUTF8(icu::StringPiece(name.data(), static_cast<std::int32_t>(name.size())));
  icu::UnicodeString normal = nfc->normalize(text, e);
  if (U_FAILURE(e)) return input_error(std::string("model name: NFC normalisation failed: ") + u_errorName(e));
  std::string out;
  normal.toUTF8String(out);
  std::int32_t i = 0, count = 0;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(out.data());
  const auto length = static_cast<std::int32_t>(out.size());
  UChar32 first = -1, last = -1;
  while (i < length) {
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    ++count;
    if (c < 0)
      return input_error("expected a model name in UTF-8, got an invalid byte sequence at character " +
                         std::to_string(count));
    if (const char* why = refused(c))
      return input_error(code_point_with_name(c) + " (" + why + ") at character " + std::to_string(count) +
                         ": a model name shows every character it holds (schema/GRADING.md \"predictions.jsonl\")");
    if (first < 0) first = c;
    last = c;
  }
  if (first == 0x20 || last == 0x20)
    return input_error(std::string("a space at the ") + (first == 0x20 ? "start" : "end") +
                       " of the model name: it would print like the name without it");
  if (out.size() > k_model_name_max_bytes)
    return input_error("expected a model name of 1 to 200 bytes, got " + std::to_string(out.size()) +
                       " bytes in Normalization Form C");
  return out;
}

}  // namespace failmap
