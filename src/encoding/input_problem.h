// One problem found in an input — a bundle, a page, a predictions file, a
// listing, a grading —, with its place given structurally (file, line,
// column, field) so a command can report it as a record or as text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace failmap {

/// One problem found in an input: where (file, line when it is about a line
/// of a text file, column when the reader knows it, field when about a JSON
/// member), what, and for value mismatches what a valid input holds there
/// and what this one holds. Readers report their problems in this form so a
/// command (verify-bundle, grade --check) can give the place structurally;
/// their string-error forms are describe() of it.
struct InputProblem {
  enum class Kind {
    Mismatch,  ///< the input is readable but differs from what it claims (exit 1)
    Input,     ///< the input (or a key) is unusable: missing, unparseable, newer format (exit 2)
  };
  Kind kind = Kind::Mismatch;
  std::string file;        ///< path as given (DIR/name); "" when the message names it
  std::uint64_t line = 0;  ///< 1-based; 0 when not about one line
  std::string field;       ///< JSON member path, "" when not about a field
  std::string message;
  std::string expected;  ///< "" when not a value mismatch
  std::string found;
  std::uint64_t column = 0;  ///< 1-based byte column within the line; 0 when not known
};

/// "FILE[:LINE[:COLUMN]]: [field 'F': ]MESSAGE[: expected X, found Y]".
std::string describe(const InputProblem& p);

/// An Input problem at `file`:`line` (line 0: the whole file), about
/// `field` ("" when about no one field), with no expected/found values.
InputProblem input_problem(std::string file, std::uint64_t line, std::string field, std::string message);

/// Appends describe() of each of `problems` to `errors`: the string-error
/// form of a reader's problems.
void append_described(const std::vector<InputProblem>& problems, std::vector<std::string>* errors);

/// Where a reader puts the problems it finds in an input: one parameter type
/// for every reader, made from what the caller keeps.
///  - `&problems` (a std::vector<InputProblem>): every problem, in the order found;
///  - `&errors` (a std::vector<std::string>): describe() of every problem,
///    appended in the order found (the text form);
///  - first_only(&first): the first problem only; the reader may stop there.
/// A reader takes a ProblemSink by value and hands it on by reference; its
/// add() appends at once, so a caller that also writes to the same vector
/// sees the problems interleaved with its own.
class ProblemSink {
 public:
  ProblemSink(std::vector<InputProblem>* problems) : m_problems(problems) {}  // NOLINT: implicit by design
  ProblemSink(std::vector<std::string>* text) : m_text(text) {}               // NOLINT: implicit by design
  /// A sink that keeps the first problem added in `*first` (through it or
  /// any copy of it, whichever adds first) and drops the rest.
  static ProblemSink first_only(std::optional<InputProblem>* first);

  /// Records one problem.
  void add(InputProblem p);
  /// How many problems were added through this sink (kept or dropped).
  std::size_t count() const { return m_count; }
  /// True when the sink keeps only the first problem and has it (from any
  /// copy): reading on would find nothing it keeps.
  bool stopped() const { return m_first && m_first->has_value(); }

 private:
  ProblemSink() = default;
  std::vector<InputProblem>* m_problems = nullptr;
  std::vector<std::string>* m_text = nullptr;
  std::optional<InputProblem>* m_first = nullptr;
  std::size_t m_count = 0;
};

}  // namespace failmap
