#include "grade/completion.h"

#include <vector>

namespace failmap {
namespace {

struct Line {
  std::string_view text;  // without its '\n' (and a '\r' before it)
  std::string_view raw;   // with its '\n'
};

std::vector<Line> completion_lines(std::string_view s) {
  std::vector<Line> out;
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t nl = s.find('\n', at);
    std::size_t end = nl == std::string_view::npos ? s.size() : nl + 1;
    std::string_view raw = s.substr(at, end - at);
    std::string_view text = raw;
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    out.push_back({text, raw});
    at = end;
  }
  return out;
}

// An opening fence: indentation (0-3 spaces), the fence character and its
// run length, and the info string's first word.
struct Fence {
  std::size_t indent = 0;
  char ch = 0;
  std::size_t length = 0;
  std::string language;
};

bool opening_fence(std::string_view line, Fence* f) {
  std::size_t i = 0;
  while (i < line.size() && i < 4 && line[i] == ' ') ++i;
  if (i > 3 || i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  const char ch = line[i];
  std::size_t n = 0;
  while (i + n < line.size() && line[i + n] == ch) ++n;
  if (n < 3) return false;
  std::string_view info = line.substr(i + n);
  if (ch == '`' && info.find('`') != std::string_view::npos) return false;  // CommonMark: an inline code span
  std::size_t b = 0;
  while (b < info.size() && (info[b] == ' ' || info[b] == '\t')) ++b;
  std::size_t e = b;
  while (e < info.size() && info[e] != ' ' && info[e] != '\t' && info[e] != '{') ++e;
  f->indent = i;
  f->ch = ch;
  f->length = n;
  f->language.clear();
  for (char c : info.substr(b, e - b))
    f->language.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  return true;
}

bool closing_fence(std::string_view line, const Fence& f) {
  std::size_t i = 0;
  while (i < line.size() && i < 4 && line[i] == ' ') ++i;
  if (i > 3) return false;
  std::size_t n = 0;
  while (i + n < line.size() && line[i + n] == f.ch) ++n;
  if (n < f.length) return false;
  for (std::size_t k = i + n; k < line.size(); ++k)
    if (line[k] != ' ' && line[k] != '\t') return false;
  return true;
}

bool python_language(const std::string& lang) {
  return lang.empty() || lang == "python" || lang == "py" || lang == "python3";
}

// A line that defines `solve` at top level: "def", white space, "solve", optional white space, "(".
bool defines_solve(std::string_view line) {
  if (line.substr(0, 3) != "def") return false;
  std::size_t i = 3;
  if (i >= line.size() || (line[i] != ' ' && line[i] != '\t')) return false;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (line.substr(i, 5) != "solve") return false;
  i += 5;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i < line.size() && line[i] == '(';
}

}  // namespace

Extraction extract_solution(std::string_view completion) {
  Extraction out;
  const std::vector<Line> lines = completion_lines(completion);
  std::size_t i = 0;
  while (i < lines.size()) {
    Fence f;
    if (!opening_fence(lines[i].text, &f)) {
      ++i;
      continue;
    }
    ++out.blocks;
    std::string body;
    bool solve = false;
    std::size_t j = i + 1;
    for (; j < lines.size() && !closing_fence(lines[j].text, f); ++j) {
      std::string_view raw = lines[j].raw;
      std::size_t strip = 0;
      while (strip < f.indent && strip < raw.size() && raw[strip] == ' ') ++strip;
      raw.remove_prefix(strip);
      solve = solve || defines_solve(lines[j].text.substr(strip));
      body.append(raw);
    }
    if (solve && python_language(f.language)) {
      out.source = std::move(body);
      out.block = out.blocks;
    }
    i = j + 1;  // past the closing fence (or the end: an unclosed block runs to the end of the text)
  }
  if (out.block == 0) out.source = std::string(completion);
  return out;
}

void resolve_completion(Prediction& p) {
  if (!p.completion) return;
  Extraction e = extract_solution(*p.completion);
  p.source = std::move(e.source);
  p.extraction = SourceExtraction{e.block, e.blocks};
}

Json extraction_json(const SourceExtraction& e) {
  Json j = Json::object();
  j["from"] = e.block ? "block" : "text";
  j["block"] = e.block ? Json(e.block) : Json(nullptr);
  j["blocks"] = e.blocks;
  return j;
}

}  // namespace failmap
