#include "encoding/jsonl.h"

#include <cerrno>
#include <cstring>

#include "encoding/file.h"
#include "encoding/input_problem.h"
#include "encoding/text.h"

namespace fs = std::filesystem;

namespace failmap {

Result<JsonlLines> JsonlLines::open(const fs::path& file, std::size_t max_line) {
  FAILMAP_TRY(check_not_a_folder(file));
  auto in = std::make_unique<std::ifstream>(file, std::ios::binary);
  if (!*in) return input_error(file.string() + ": cannot open: " + std::strerror(errno));
  return JsonlLines(std::move(in), file.string(), max_line);
}

LineRead JsonlLines::read_line(std::string& line) {
  constexpr std::size_t k_block = std::size_t{1} << 18;
  line.clear();
  bool any = false, too_long = false;
  for (;;) {
    if (m_pos == m_end) {
      if (m_buf.size() != k_block) m_buf.resize(k_block);
      if (!*m_in) break;
      m_in->read(m_buf.data(), static_cast<std::streamsize>(k_block));
      m_pos = 0;
      m_end = static_cast<std::size_t>(m_in->gcount());
      if (m_end == 0) break;
      if (m_digest) m_digest->update(std::string_view(m_buf.data(), m_end));
    }
    const char* start = m_buf.data() + m_pos;
    std::size_t avail = m_end - m_pos;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', avail));
    std::size_t take = nl ? static_cast<std::size_t>(nl - start) : avail;
    any = true;
    if (!too_long && take > m_max_line - line.size()) {
      too_long = true;
      std::string().swap(line);  // give the memory back while skipping the rest
    }
    if (!too_long) line.append(start, take);
    m_pos += take + (nl ? 1 : 0);
    if (nl) break;
  }
  if (!any) return LineRead::End;
  return too_long ? LineRead::TooLong : LineRead::Line;
}

bool JsonlLines::next(Item* item) {
  item->problem.clear();
  if (m_has_deferred) {
    m_has_deferred = false;
    item->line = m_line;
    item->text.swap(m_deferred);
    return true;
  }
  if (m_done) return false;
  for (;;) {
    LineRead got = read_line(item->text);
    if (got == LineRead::End) {
      m_done = true;
      if (!m_in->bad()) return false;
      item->line = 0;
      item->what = "read error";
      item->problem = m_where + ": " + item->what;
      return true;
    }
    ++m_line;
    if (got == LineRead::TooLong) {
      m_empty_line = 0;
      item->line = m_line;
      item->what = line_too_long_text(m_max_line);
      item->problem = m_where + ":" + std::to_string(m_line) + ": " + item->what;
      return true;
    }
    std::string& text = item->text;
    if (m_line == 1 && text.starts_with(k_utf8_bom)) {  // one BOM at the file's start is skipped (skip_file_bom)
      text.erase(0, k_utf8_bom.size());
      if (text.starts_with(k_utf8_bom)) {
        m_empty_line = 0;
        item->line = 1;
        item->what = std::string(k_second_bom);
        item->problem = m_where + ":1: " + item->what;
        return true;
      }
    }
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (m_empty_line != 0) {  // a non-empty or empty line follows an empty one: report that one
      item->line = m_empty_line;
      item->what = "empty line (one JSON object per line)";
      item->problem = m_where + ":" + std::to_string(m_empty_line) + ": " + item->what;
      m_empty_line = text.empty() ? m_line : 0;
      if (!text.empty()) {
        m_deferred.swap(text);
        m_has_deferred = true;
      }
      return true;
    }
    if (text.empty()) {
      m_empty_line = m_line;
      continue;
    }
    item->line = m_line;
    return true;
  }
}

Result<Json> parse_jsonl_line(std::string_view text, const std::string& file, std::uint64_t line,
                              InputProblem* problem) {
  JsonParseError e;
  auto j = parse_json_strict(text, file, &e);
  if (j) return j;
  // parse_json_strict counts lines within `text` (always 1): the file's line goes in.
  InputProblem p = input_problem(file, line, "", e.what);
  p.column = e.column;
  std::string message = describe(p);
  if (problem) *problem = std::move(p);
  return input_error(std::move(message));
}

bool read_jsonl(const fs::path& file, const std::function<void(std::uint64_t, Json&&)>& fn, ProblemSink problems,
                std::size_t max_line, Sha256* digest) {
  auto lines = JsonlLines::open(file, max_line);
  if (!lines) {
    problems.add(input_problem("", 0, "", lines.error().message));
    return false;
  }
  lines->digest_into(digest);
  bool ok = true;
  JsonlLines::Item item;
  while (!problems.stopped() && lines->next(&item)) {
    if (!item.problem.empty()) {
      ok = ok && item.line != 0;  // a read error
      problems.add(input_problem(lines->where(), item.line, "", std::move(item.what)));
      continue;
    }
    InputProblem problem;
    auto j = parse_jsonl_line(item.text, lines->where(), item.line, &problem);
    if (!j) problems.add(std::move(problem));
    else fn(item.line, std::move(*j));
  }
  return ok;
}

}  // namespace failmap
