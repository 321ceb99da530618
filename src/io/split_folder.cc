#include "io/split_folder.h"

#include <algorithm>
#include <set>
#include <bit>
#include <cerrno>
#include <cstring>
#include <functional>
#include <fstream>
#include <string_view>
#include <system_error>
#include <tuple>

#include "encoding/file.h"
#include "encoding/json.h"
#include "encoding/jsonl.h"
#include "encoding/pyjson.h"
#include "encoding/sha256.h"
#include "encoding/text.h"
#include "io/hashed_folder.h"

namespace failmap {

namespace fs = std::filesystem;

Sha256Bytes case_content_digest(const Case& c) {
  std::string text;
  for (const Fixture& f : c.fixtures) {
    append_python_json(text, Value::list({Value::list(f.args), f.expected}));
    text.push_back('\n');
  }
  return sha256_bytes(text);
}

Result<std::vector<FolderClaim>> read_split_folder(const fs::path& dir, bool json_ids) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return input_error(dir.string() + ": no such folder");
  if (fs::exists(dir / "SHA256SUMS", ec)) FAILMAP_TRY(verify_sums(dir, "failmap-split"));
  // A failmap manifest also records each file's SHA-256 ("files"): a file
  // edited with SHA256SUMS redone (a record dropped, a digest zeroed) still
  // differs from it.
  if (fs::exists(dir / "manifest.json", ec))
    if (auto text = read_file(dir / "manifest.json"); text)
      if (auto m = parse_json_file(*text, (dir / "manifest.json").string());
          m && m->is_object() && m->value("format", "") == "failmap-split" && m->contains("files") &&
          (*m)["files"].is_object())
        for (const auto& [name, digest] : (*m)["files"].items()) {
          if (!digest.is_string() || name.find('/') != std::string::npos || name == "." || name == "..")
            return input_error((dir / "manifest.json").string() + ", field 'files." + name +
                               "': expected the SHA-256 of a file of the folder");
          FAILMAP_TRY_ASSIGN(auto hex, hash_file(dir / name));
          if (hex != digest.get<std::string>())
            return Error{
                (dir / name).string() + ": SHA-256 differs from manifest.json's files (file changed after the split)",
                Error::Kind::Mismatch};
        }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".jsonl") continue;
    // Every *.jsonl is read or the check fails: a claim file skipped would
    // leave its claims unaudited under a clean verdict.
    std::error_code type_ec;
    const fs::file_status st = fs::status(e.path(), type_ec);  // through links
    if (fs::is_regular_file(st)) {
      files.push_back(e.path());
      continue;
    }
    const char* what = fs::is_symlink(fs::symlink_status(e.path(), type_ec)) && !fs::exists(st)
                           ? "a link to nothing (dangling)"
                       : fs::is_directory(st) ? "a folder"
                       : fs::is_fifo(st)      ? "a FIFO (named pipe)"
                       : fs::is_socket(st)    ? "a socket"
                       : fs::exists(st)       ? "a device or other special file"
                                              : "unreadable";
    return input_error(e.path().string() + ": " + what + ", not a file: split check reads every *.jsonl of the " +
                       "folder (move it away, or rename it)");
  }
  if (ec) return input_error(dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) return input_error(dir.string() + ": no *.jsonl files to check");
  // The splits a failmap split folder's manifest names: each has its file.
  std::set<std::string> manifest_splits;
  if (fs::exists(dir / "manifest.json", ec))
    if (auto text = read_file(dir / "manifest.json"); text)
      if (auto m = parse_json_file(*text, (dir / "manifest.json").string()); m && m->is_object()) {
        auto format = m->find("format"), splits = m->find("splits");
        if (format != m->end() && *format == "failmap-split" && splits != m->end() && splits->is_array())
          for (const Json& sp : *splits)
            if (sp.is_object() && sp.contains("name") && sp["name"].is_string())
              manifest_splits.insert(sp["name"].get<std::string>());
      }
  std::vector<FolderClaim> claims;
  std::vector<std::string> errors;
  for (std::uint32_t file_index = 0; file_index < files.size(); ++file_index) {
    const fs::path& file = files[file_index];
    const std::string stem = file.stem().string();
    const std::string name = file.filename().string();
    const std::size_t first_claim = claims.size();
    std::set<std::string> named_splits;  // each line's "split", or the stem for a line without one
    // The file's own problems (syntax, encoding) follow those of its lines.
    std::vector<InputProblem> read_problems;
    read_jsonl(
        file,
        [&](std::uint64_t line_no, Json&& j) {
          const std::string where = name + ":" + std::to_string(line_no);
          if (!j.is_object()) return errors.push_back(where + ": expected a JSON object");
          if (j.contains("record") && j["record"] == "run") return;
          // A task record (schema/TASKS.md) names its case "task_id".
          const char* key = j.contains("id") ? "id" : j.contains("task_id") ? "task_id" : nullptr;
          if (!key) return errors.push_back(where + ": no \"id\" field");
          const Json& id = j[key];
          if (!id.is_string() && !id.is_number_integer())
            return errors.push_back(where + ": field '" + key + "' must be a string or an integer");
          FolderClaim c;
          c.claim.id = json_ids || !id.is_string() ? dump_compact(id) : id.get<std::string>();
          c.claim.split = stem;
          if (j.contains("split")) {
            if (!j["split"].is_string()) return errors.push_back(where + ": field 'split' must be a string");
            c.claim.split = j["split"].get<std::string>();
          }
          named_splits.insert(c.claim.split);
          c.where = where;
          c.file = file_index;
          claims.push_back(std::move(c));
        },
        &read_problems);
    append_described(read_problems, &errors);
    // A file one of whose lines is in the split its name says (test.jsonl
    // holding a "test" line, or a line without "split") is that split's
    // file: every line of it is in that split, whatever its "split" says
    // (else a case copied from train.jsonl into test.jsonl, with its
    // "split":"train", would hide the leak). Any other file is a listing
    // (failmap's assignments.jsonl, a hand-made list.jsonl) and places each
    // line by its "split". In failmap's own folders the manifest names the
    // splits, so test.jsonl is the test split's file even if every line of
    // it says "train".
    if (name != "assignments.jsonl" && (named_splits.count(stem) || manifest_splits.count(stem)))
      for (std::size_t i = first_claim; i < claims.size(); ++i) claims[i].claim.split = stem;
  }
  if (!errors.empty()) {
    std::string msg = errors[0];
    if (errors.size() > 1) msg += " (and " + std::to_string(errors.size() - 1) + " more problem(s))";
    return input_error(msg);
  }
  return claims;
}

std::vector<DuplicateClaim> duplicate_claims(const std::vector<FolderClaim>& claims) {
  // Claims with the same id in the same file are chained (next_same[c], in
  // line order) through an open-addressing table of each file's ids (no node
  // per claim: a million-line folder costs one probe per line). Only chains of
  // two or more are then sorted by split to find repeats.
  constexpr std::uint32_t k_none = UINT32_MAX;
  std::vector<std::uint32_t> next_same(claims.size(), k_none);
  std::vector<std::uint32_t> repeated;     // first claim of each id a file claims twice or more, in line order
  std::vector<std::uint32_t> first, last;  // per slot: the id's first and latest claim (k_none: free slot)
  for (std::size_t begin = 0, end = 0; begin < claims.size(); begin = end) {
    while (end < claims.size() && claims[end].file == claims[begin].file) ++end;
    const std::size_t mask = std::bit_ceil(2 * (end - begin)) - 1;  // at most half full
    first.assign(mask + 1, k_none);
    last.resize(mask + 1);
    for (auto c = static_cast<std::uint32_t>(begin); c < end; ++c) {
      const std::string_view id = claims[c].claim.id;
      std::size_t h = std::hash<std::string_view>{}(id)&mask;
      while (first[h] != k_none && claims[first[h]].claim.id != id) h = (h + 1) & mask;
      if (first[h] == k_none) {
        first[h] = last[h] = c;
        continue;
      }
      next_same[last[h]] = c;
      last[h] = c;
      if (next_same[first[h]] == c) repeated.push_back(first[h]);  // c is its second claim
    }
  }
  std::vector<DuplicateClaim> out;
  std::vector<std::uint32_t> chain;
  for (std::uint32_t head : repeated) {
    chain.clear();
    for (std::uint32_t c = head; c != k_none; c = next_same[c]) chain.push_back(c);
    std::stable_sort(chain.begin(), chain.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return claims[a].claim.split < claims[b].claim.split; });
    for (std::size_t i = 0; i < chain.size();) {
      std::size_t j = i + 1;
      while (j < chain.size() && claims[chain[j]].claim.split == claims[chain[i]].claim.split) ++j;
      if (j - i > 1) {
        DuplicateClaim d{claims[head].claim.id, claims[chain[i]].claim.split, {}};
        for (std::size_t k = i; k < j; ++k) d.where.push_back(claims[chain[k]].where);
        out.push_back(std::move(d));
      }
      i = j;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const DuplicateClaim& a, const DuplicateClaim& b) {
    return std::tie(a.split, a.id) < std::tie(b.split, b.id);  // equal pairs: different files, kept in file order
  });
  return out;
}

}  // namespace failmap
