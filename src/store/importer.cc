#include "store/importer.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "io/case_file.h"
#include "store/digests.h"

namespace fs = std::filesystem;

namespace failmap {

void collect_import_items(const std::vector<std::string>& paths, std::vector<ImportItem>* items,
                          std::vector<std::string>* errors, const ProgressFn& progress) {
  for (const std::string& p : paths) {
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      errors->push_back(p + ": no such file or folder");
      continue;
    }
    std::vector<fs::path> files;
    if (fs::is_directory(st)) {
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
      }
      if (ec) errors->push_back(p + ": " + ec.message());
      std::sort(files.begin(), files.end());
      if (files.empty()) errors->push_back(p + ": folder holds no *.json case files");
    } else if (fs::path(p).extension() == ".json") {
      files.emplace_back(p);
    } else {
      errors->push_back(p + ": not a case file (*.json) or folder");
    }
    for (const fs::path& f : files) {
      Case c;
      if (read_case_file(f, &c, errors)) items->push_back(ImportItem{std::move(c), f.string()});
      report_progress(progress, 1);
    }
  }
}

bool same_case_content(const Case& a, const Case& b) {
  return case_to_json(a).dump() == case_to_json(b).dump();
}

Result<ImportReport> import_items(Archive& archive, const std::vector<ImportItem>& items, OnConflict on_conflict,
                                  std::vector<std::string>* errors, const ProgressFn& progress) {
  std::size_t before = errors->size();
  std::map<std::string, const ImportItem*> seen;
  for (const ImportItem& item : items) {
    auto [it, inserted] = seen.emplace(item.record.id, &item);
    if (!inserted) errors->push_back(item.source + ": case id " + item.record.id + " is also given by " + it->second->source);
  }
  ImportReport report;
  enum class Action { Add, Skip, Replace };
  std::vector<Action> actions;
  actions.reserve(items.size());
  for (const ImportItem& item : items) {
    auto existing = archive.load_case(item.record.id);
    if (!existing) return existing.error();
    if (!*existing) {
      actions.push_back(Action::Add);
    } else if (same_case_content(**existing, item.record)) {
      actions.push_back(Action::Skip);
    } else if (on_conflict == OnConflict::Replace) {
      actions.push_back(Action::Replace);
    } else {
      errors->push_back(item.source + ": case " + item.record.id +
                        " already exists in the archive with different content (use --replace to overwrite)");
      actions.push_back(Action::Skip);
    }
    report_progress(progress, 1);
  }
  if (errors->size() != before)
    return input_error(std::to_string(errors->size() - before) + " problem(s); nothing was imported");

  Transaction tx(archive.db());
  if (auto s = tx.begin(); !s) return s.error();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Case& c = items[i].record;
    switch (actions[i]) {
      case Action::Skip:
        report.unchanged.push_back(c.id);
        report_progress(progress, 1);
        continue;
      case Action::Replace:
        if (auto s = archive.delete_case(c.id); !s) return s.error();
        report.replaced.push_back(c.id);
        break;
      case Action::Add: report.added.push_back(c.id); break;
    }
    if (auto s = archive.insert_case(c); !s) return input_error(items[i].source + ": " + s.error().message);
    if (auto s = refresh_case_digest(archive, c); !s) return input_error(items[i].source + ": " + s.error().message);
    report_progress(progress, 1);
  }
  if (auto s = tx.commit(); !s) return s.error();
  return report;
}

}  // namespace failmap
