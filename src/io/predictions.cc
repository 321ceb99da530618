#include "io/predictions.h"

#include <algorithm>
#include <unordered_map>

#include "core/case.h"
#include "encoding/input_problem.h"
#include "encoding/jsonl.h"
#include "encoding/sha256.h"
#include "io/model_name.h"

namespace failmap {

namespace {

// The first 16 bytes of a SHA-256, big-endian, as two integers.
struct Key128 {
  std::uint64_t hi = 0, lo = 0;
  bool operator==(const Key128&) const = default;
};

struct Key128Hash {
  std::size_t operator()(const Key128& k) const {
    return static_cast<std::size_t>(k.hi ^ (k.lo * 0x9e3779b97f4a7c15ull));
  }
};

Key128 key128(std::string_view text) {
  Sha256Bytes d = sha256_bytes(text);
  Key128 k;
  for (int i = 0; i < 8; ++i) {
    k.hi = k.hi << 8 | d[static_cast<std::size_t>(i)];
    k.lo = k.lo << 8 | d[static_cast<std::size_t>(i) + 8];
  }
  return k;
}

}  // namespace

bool prediction_from_json(const Json& j, const std::string& file, std::uint64_t line, Prediction* out,
                          std::vector<InputProblem>* problems) {
  std::size_t before = problems->size();
  auto error = [&](std::string field, std::string message) {
    problems->push_back(input_problem(file, line, std::move(field), std::move(message)));
  };
  if (!j.is_object()) {
    error("", "expected a JSON object (a prediction: case, model, sample, source or completion), got " +
                  describe_json_value(j));
    return false;
  }
  for (const auto& [k, v] : j.items())
    if (k != "case" && k != "model" && k != "sample" && k != "source" && k != "completion" && k != "meta")
      error(k, "not a prediction field (case, model, sample, source, completion, meta)");
  Prediction p;
  p.line = line;
  auto text = [&](const char* key, std::string* dest) {
    auto it = j.find(key);
    if (it == j.end()) return error(key, "missing (expected a string)");
    if (!it->is_string()) return error(key, "expected a string, got " + describe_json_value(*it));
    *dest = it->get<std::string>();
  };
  text("case", &p.case_id);
  text("model", &p.model);
  const bool has_source = j.contains("source"), has_completion = j.contains("completion");
  if (has_source && has_completion) {
    error("completion", "give either source (the code) or completion (a model's raw answer), not both");
  } else if (has_completion) {
    p.completion.emplace();
    text("completion", &*p.completion);
  } else if (!has_source) {
    error("source",
          "missing (expected a string: the candidate's Python source; or give completion, a model's raw answer)");
  } else {
    text("source", &p.source);
  }
  if (auto it = j.find("case"); it != j.end() && it->is_string() && !valid_case_id(p.case_id))
    error("case", "'" + p.case_id + "' is not a valid case id");
  if (auto it = j.find("model"); it != j.end() && it->is_string()) {
    // Compared, counted and written in NFC; nothing invisible (io/model_name.h).
    auto name = normalize_model_name(p.model);
    if (!name) {
      // The reason may already say what it got ("got 201 bytes"): the value follows it then.
      const std::string& why = name.error().message;
      error("model", why + (why.find(", got ") == std::string::npos ? ", got " : ": ") + describe_json_value(*it));
    } else p.model = std::move(*name);
  }
  if (auto it = j.find("sample"); it != j.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > 0x7fffffff)
      error("sample", "expected an integer from 0 to 2147483647, got " + describe_json_value(*it));
    else p.sample = it->get<std::int64_t>();
  }
  if (problems->size() != before) {
    // In the order of the fields on the line (a missing field after those present).
    auto position = [&](const InputProblem& q) {
      std::size_t i = 0;
      for (const auto& [k, v] : j.items()) {
        if (k == q.field) return i;
        ++i;
      }
      return i;
    };
    std::stable_sort(problems->begin() + static_cast<std::ptrdiff_t>(before), problems->end(),
                     [&](const InputProblem& a, const InputProblem& b) { return position(a) < position(b); });
    return false;
  }
  *out = std::move(p);
  return true;
}

bool read_predictions(const std::filesystem::path& file, const std::function<void(Prediction&&)>& fn,
                      std::vector<InputProblem>* problems, bool check_duplicates, Sha256* digest) {
  std::size_t before = problems->size();
  const std::string name = file.string();
  // (case, model, sample) → first line, by the first 16 bytes of the
  // key's SHA-256 held as two integers: 32 bytes a node, no string per
  // prediction (a file of 100,000 predictions keeps a few MiB here).
  std::unordered_map<Key128, std::uint64_t, Key128Hash> seen;
  read_jsonl(
      file,
      [&](std::uint64_t line, Json&& j) {
        Prediction p;
        if (!prediction_from_json(j, name, line, &p, problems)) return;
        if (!check_duplicates) return fn(std::move(p));
        std::string key = p.case_id;
        key.push_back('\0');
        key += p.model;
        key.push_back('\0');
        key += std::to_string(p.sample);
        auto [it, fresh] = seen.emplace(key128(key), line);
        if (!fresh) {
          problems->push_back(input_problem(name, line, "sample",
                                            "case " + p.case_id + ", model " + dump_compact(Json(p.model)) +
                                                ", sample " + std::to_string(p.sample) +
                                                " is given twice (first on line " + std::to_string(it->second) + ")"));
          return;
        }
        fn(std::move(p));
      },
      problems, k_max_line_bytes, digest);
  return problems->size() == before;
}

}  // namespace failmap
