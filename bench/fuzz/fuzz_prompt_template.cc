// libFuzzer target: the prompt-template reader (src/io/task.h) on arbitrary
// bytes. Must never crash or hang; a template it accepts must hold its text
// exactly: the literals and the placeholders, joined again, give the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "io/task.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = failmap::parse_prompt_template(text, "fuzz.txt");
  if (!t) return 0;
  if (t->literals.size() != t->fields.size() + 1) std::abort();
  std::string joined = t->literals[0];
  for (std::size_t i = 0; i < t->fields.size(); ++i) {
    if (t->fields[i] >= std::size(failmap::k_prompt_placeholders)) std::abort();
    joined += "{{" + std::string(failmap::k_prompt_placeholders[t->fields[i]]) + "}}" + t->literals[i + 1];
  }
  if (joined != text) std::abort();
  return 0;
}
