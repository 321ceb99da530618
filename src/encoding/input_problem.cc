#include "encoding/input_problem.h"

#include <utility>

namespace failmap {

InputProblem input_problem(std::string file, std::uint64_t line, std::string field, std::string message) {
  return InputProblem{InputProblem::Kind::Input, std::move(file), line, std::move(field), std::move(message), {}, {}};
}

std::string describe(const InputProblem& p) {
  std::string out = p.file;
  if (p.line) out += ":" + std::to_string(p.line);
  if (p.line && p.column) out += ":" + std::to_string(p.column);
  if (!out.empty()) out += ": ";
  if (!p.field.empty()) out += "field '" + p.field + "': ";
  out += p.message;
  if (!p.expected.empty() || !p.found.empty()) out += ": expected " + p.expected + ", found " + p.found;
  return out;
}

void append_described(const std::vector<InputProblem>& problems, std::vector<std::string>* errors) {
  for (const InputProblem& p : problems) errors->push_back(describe(p));
}

ProblemSink ProblemSink::first_only(std::optional<InputProblem>* first) {
  ProblemSink sink;
  sink.m_first = first;
  return sink;
}

void ProblemSink::add(InputProblem p) {
  ++m_count;
  if (m_problems) m_problems->push_back(std::move(p));
  else if (m_text) m_text->push_back(describe(p));
  else if (m_first && !m_first->has_value()) *m_first = std::move(p);
}

}  // namespace failmap
