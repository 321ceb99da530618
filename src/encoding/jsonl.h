// JSON Lines files (one JSON object per line) read as every reader of
// failmap's JSONL formats reads them: streaming, each line capped
// (encoding/limits.h), one leading byte-order mark skipped, CRLF accepted,
// and every problem reported with its file, line and column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "encoding/input_problem.h"
#include "encoding/json.h"
#include "encoding/limits.h"
#include "encoding/sha256.h"

namespace failmap {

/// The line-level half of read_jsonl, without parsing, for callers that parse
/// lines elsewhere (import parses them on worker threads): yields each line's
/// text, or a problem, in file order. One UTF-8 BOM at the start is removed
/// and a second one there is a problem (schema/BUNDLE.md "Byte-order marks";
/// one at the start of a later line is left for parse_jsonl_line, which
/// refuses it), a CRLF line end loses its '\r'; an empty line is a problem
/// ("FILE:LINE: empty line …") reported when a later line follows it (an
/// empty last line is ignored: "Blank lines"); a line beyond
/// k_max_line_bytes is a problem.
class JsonlLines {
 public:
  /// Opens `file`; an Error "FILE: cannot open: …" when it cannot. A line
  /// longer than `max_line` bytes is a problem (k_max_result_line_bytes for
  /// a grading's files, encoding/limits.h).
  static Result<JsonlLines> open(const std::filesystem::path& file, std::size_t max_line = k_max_line_bytes);
  /// One line or one problem.
  struct Item {
    std::uint64_t line = 0;  ///< 1-based line number (0 for a problem about the whole file)
    std::string text;        ///< the line without BOM and line end; unused for a problem
    std::string problem;     ///< non-empty: this item is a problem message (file and line named)
    std::string what;        ///< the problem without its place (`problem` after "FILE[:LINE]: ")
  };
  /// Fills `item` with the next line or problem; false at the end. A read
  /// error is the last problem ("FILE: read error").
  bool next(Item* item);
  /// The file as given (the prefix of every message).
  const std::string& where() const { return m_where; }
  /// Feeds every byte read from the file from now on to `digest` (null:
  /// none), so that a caller reading the file to its end has its SHA-256
  /// without reading it again: the digest is of exactly the bytes the lines
  /// came from.
  void digest_into(Sha256* digest) { m_digest = digest; }

 private:
  JsonlLines(std::unique_ptr<std::ifstream> in, std::string where, std::size_t max_line)
      : m_in(std::move(in)), m_where(std::move(where)), m_max_line(max_line) {}
  /// The next raw line into `line` (read_line_capped's contract), found with
  /// memchr in m_buf rather than byte by byte.
  LineRead read_line(std::string& line);
  std::unique_ptr<std::ifstream> m_in;
  std::string m_where;
  std::size_t m_max_line;  // longer lines are a problem
  std::string m_buf;       // a block of the file; [m_pos, m_end) not yet read
  std::size_t m_pos = 0, m_end = 0;
  std::uint64_t m_line = 0;
  std::uint64_t m_empty_line = 0;  // a pending empty line, reported when a non-empty one follows
  std::string m_deferred;          // a line read after reporting the pending empty line
  bool m_has_deferred = false;
  bool m_done = false;
  Sha256* m_digest = nullptr;
};

/// Parses one line's text (from JsonlLines) with parse_json_strict; syntax
/// errors read "FILE:LINE:COL: what" with the file's line number. With
/// `problem`, an error is also stored there as an Input problem at its file,
/// line and column.
Result<Json> parse_jsonl_line(std::string_view text, const std::string& file, std::uint64_t line,
                              InputProblem* problem = nullptr);

/// Calls `fn(line_number, json)` for each line of a JSONL file, streaming.
/// One UTF-8 BOM at the start is skipped (any other refused), CRLF line ends
/// are accepted, an empty last line is ignored; other empty lines, syntax errors ("FILE:LINE:COL:"),
/// invalid UTF-8 and duplicate keys go to `problems` as Input problems (file,
/// line, column) and reading continues with the next line (a first_only sink
/// ends the reading at its problem). Returns false when the file cannot be read.
/// With `digest`, the file's bytes read are fed to it (JsonlLines::digest_into):
/// after a read to the end it holds the SHA-256 of the whole file.
bool read_jsonl(const std::filesystem::path& file, const std::function<void(std::uint64_t, Json&&)>& fn,
                ProblemSink problems, std::size_t max_line = k_max_line_bytes, Sha256* digest = nullptr);

}  // namespace failmap
