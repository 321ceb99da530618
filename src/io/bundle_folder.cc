#include "io/bundle.h"

#include <algorithm>
#include <set>

#include "encoding/file.h"
#include "encoding/input_problem.h"
#include "encoding/sha256.h"
#include "encoding/text.h"
#include "io/split_folder.h"

namespace fs = std::filesystem;

namespace failmap {

BundleWriter::BundleWriter(HashedFolderWriter folder, Tier tier, std::string format)
    : m_folder(std::move(folder)), m_tier(tier), m_format(std::move(format)) {}

BundleWriter::~BundleWriter() = default;

Result<std::unique_ptr<BundleWriter>> BundleWriter::create(const fs::path& dir, Tier tier, std::string format) {
  FAILMAP_TRY_ASSIGN(auto folder,
                     HashedFolderWriter::create(dir, "export", "export writes into a new or empty folder"));
  return std::unique_ptr<BundleWriter>(new BundleWriter(std::move(folder), tier, std::move(format)));
}

Result<std::size_t> BundleWriter::open(const std::string& file) {
  auto it = m_handles.find(file);
  if (it != m_handles.end()) return it->second;
  FAILMAP_TRY_ASSIGN(std::size_t handle, m_folder.open(file));
  m_handles.emplace(file, handle);
  return handle;
}

Status BundleWriter::write_record(const std::string& file, const Json& record) {
  m_line = dump_compact(record);
  m_line.push_back('\n');
  auto kind = record.find("record");
  return write_line(file, m_line,
                    kind != record.end() && kind->is_string() ? kind->get_ref<const std::string&>() : "other");
}

Status BundleWriter::write_line(const std::string& file, std::string_view line, std::string_view kind) {
  FAILMAP_TRY_ASSIGN(std::size_t handle, open(file));
  FAILMAP_TRY(m_folder.append(handle, line));
  auto count = m_counts.find(kind);
  if (count == m_counts.end()) count = m_counts.emplace(std::string(kind), 0).first;
  ++count->second;
  return ok_status();
}

Status BundleWriter::write_file(const std::string& file, std::string_view content, const std::string& count_as) {
  FAILMAP_TRY(m_folder.write(file, content));
  ++m_counts[count_as];
  return ok_status();
}

Status BundleWriter::finish(const std::vector<std::string>& ensure, const std::function<Status()>& before_commit) {
  for (const std::string& name : ensure) FAILMAP_TRY(open(name));
  ManifestHeader header{m_format, k_bundle_format_version, m_tier, {}};
  for (const auto& [k, n] : m_counts) header.counts[k] = n;
  FAILMAP_TRY(m_folder.seal(header, m_sign_key));
  if (before_commit) FAILMAP_TRY(before_commit());
  return m_folder.commit();
}

const FolderKind* find_folder_kind(std::string_view format) {
  static const FolderKind kinds[] = {
      {"failmap-bundle", "bundle", k_bundle_format_version, true},
      {"failmap-pages", "page export", k_bundle_format_version, true},
      {"failmap-tasks", "task export", k_bundle_format_version, true},
      {"failmap-site", "site", k_bundle_format_version, true},
      {"failmap-split", "split folder", k_split_format_version, false},
      {"failmap-grading", "grading", k_grading_manifest_version, false},
  };
  for (const FolderKind& k : kinds)
    if (k.format == format) return &k;
  return nullptr;
}

namespace {

bool plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

// One check of a hashed folder's files (check_bundle_files): a member
// function per section of what it reads, in the order they are read: the
// folder's entries, manifest.json (its header, a split folder's own members,
// counts, files, sha256), then SHA256SUMS. Problems go to `problems` in that
// order.
class FolderCheck {
 public:
  FolderCheck(const fs::path& dir, ProblemSink problems, bool hash_files, bool any_kind)
      : m_dir(dir),
        m_d(dir.string()),
        m_manifest_path((dir / k_manifest_file).string()),
        m_sums_path((dir / k_sums_file).string()),
        m_problems(problems),
        m_hash_files(hash_files),
        m_any_kind(any_kind),
        m_digests(dir) {}

  std::optional<BundleManifest> run() {
    if (!list_entries()) return std::nullopt;
    if (!read_manifest()) return std::nullopt;
    check_sums();
    if (m_unusable || m_m.format_version == 0) return std::nullopt;
    return std::move(m_m);
  }

 private:
  using Kind = InputProblem::Kind;

  void add(Kind kind, std::string file, std::uint64_t line, std::string field, std::string message,
           std::string expected = {}, std::string found = {}, std::uint64_t column = 0) {
    m_problems.add(InputProblem{kind, std::move(file), line, std::move(field), std::move(message), std::move(expected),
                                std::move(found), column});
  }
  // A problem that leaves nothing to check (the manifest's format, version
  // or tier unknown, manifest.json or SHA256SUMS unreadable).
  void add_unusable(std::string file, std::uint64_t line, std::string field, std::string message,
                    std::uint64_t column = 0) {
    m_unusable = true;
    add(Kind::Input, std::move(file), line, std::move(field), std::move(message), {}, {}, column);
  }
  bool is_not_plain(const std::string& name) const {
    return std::find(m_not_plain.begin(), m_not_plain.end(), name) != m_not_plain.end();
  }

  // The folder's entries: plain files in m_present, the others (links
  // included) each a problem. False when nothing further can be checked: no
  // such folder, an unreadable one, or no manifest.json.
  bool list_entries() {
    std::vector<std::string> links;
    std::error_code ec;
    if (!fs::is_directory(m_dir, ec)) {
      add(Kind::Input, m_d, 0, "",
          fs::exists(m_dir, ec) ? "not a bundle folder (a file)" : "not a bundle folder (no such folder)");
      return false;
    }
    for (auto it = fs::directory_iterator(m_dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      std::string name = it->path().filename().string();
      // A link is refused too, also one to a plain file: verify-bundle and
      // import would read, and quote, whatever it points to outside the folder.
      std::error_code type_ec;
      const bool link = it->is_symlink(type_ec);
      if (link) links.push_back(name);
      if (link || !it->is_regular_file(type_ec)) m_not_plain.push_back(std::move(name));
      else m_present.insert(name);
    }
    if (ec) {
      add(Kind::Input, m_d, 0, "", ec.message());
      return false;
    }
    // A folder without manifest.json is not a bundle: one problem, not one
    // for each of its sub-folders (`verify-bundle /etc`) and SHA256SUMS.
    if (!m_present.count(k_manifest_file)) {
      add(Kind::Input, m_manifest_path, 0, "",
          is_not_plain(k_manifest_file) ? "not a plain file (not a bundle)" : "missing (not a bundle)");
      return false;
    }
    std::sort(m_not_plain.begin(), m_not_plain.end());
    for (const std::string& name : m_not_plain)
      add(Kind::Mismatch, m_d + "/" + name, 0, "",
          std::find(links.begin(), links.end(), name) != links.end()
              ? "a bundle holds only plain files, not symbolic links"
              : "a bundle holds only plain files");
    return true;
  }

  // The SHA-256 of the folder's file `name`, computed once; nullptr when the
  // files are not hashed or this one cannot be read (a problem, once).
  const std::string* hash_of(const std::string& name) {
    return m_hash_files ? m_digests.of(name, m_problems) : nullptr;
  }

  // What member `key` of the manifest holds, for "expected X, got FOUND".
  static std::string found(const Json& j, const char* key) {
    auto it = j.find(key);
    return it == j.end() ? std::string("nothing (missing)") : describe_json_value(*it);
  }
  // The string member `key`, or a problem (one that leaves nothing to check
  // when `needed`).
  std::optional<std::string> str(const Json& j, const char* key, bool needed) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) {
      add(Kind::Input, m_manifest_path, 0, key, "expected a string, got " + found(j, key));
      m_unusable = m_unusable || needed;
      return std::nullopt;
    }
    return it->get<std::string>();
  }

  // manifest.json, section by section. False when it is another kind of
  // folder than the caller reads: one problem, not the follow-on ones of
  // reading it as a bundle.
  bool read_manifest() {
    auto text = read_file(m_dir / k_manifest_file);
    JsonParseError syntax;
    if (!text) {
      add_unusable(m_manifest_path, 0, "", text.error().message);
    } else if (auto j = parse_json_file(*text, m_manifest_path, &syntax); !j) {
      add_unusable(m_manifest_path, syntax.line, "", syntax.what, syntax.column);
    } else if (!j->is_object()) {
      add_unusable(m_manifest_path, 0, "", "expected a JSON object");
    } else {
      if (!read_header(*j)) return false;
      const bool split = m_m.format == "failmap-split";
      if (split) read_split_members(*j);
      read_counts(*j, split);
      read_files(*j);
      read_digests(*j);
    }
    return true;
  }

  // "format" (false: a kind the caller does not read), "format_version",
  // "failmap_version" and the tier the folder was written at.
  bool read_header(const Json& j) {
    m_m.format = str(j, "format", true).value_or("");
    const FolderKind* kind = find_folder_kind(m_m.format);
    const bool importable = m_m.format == "failmap-bundle" || m_m.format == "failmap-pages";
    if (!m_m.format.empty() && (!kind || (!m_any_kind && !importable))) {
      add_unusable(m_manifest_path, 0, "format",
                   "'" + m_m.format + "' is not a failmap bundle" +
                       (kind ? " (a " + std::string(kind->noun) + ": `failmap verify-bundle " + m_d + "` checks it" +
                                   (m_m.format == "failmap-split" ? ", `failmap split check` audits it" : "") + ")"
                             : std::string()));
      return false;
    }
    const int newest = kind ? kind->newest_version : k_bundle_format_version;
    auto v = j.find("format_version");
    if (v == j.end() || !v->is_number_integer() || v->get<std::int64_t>() < 1) {
      add_unusable(m_manifest_path, 0, "format_version",
                   "expected a positive integer, got " + found(j, "format_version"));
    } else if (v->get<std::int64_t>() > newest) {
      add_unusable(m_manifest_path, 0, "format_version",
                   std::to_string(v->get<std::int64_t>()) + " is newer than this failmap reads (" +
                       std::to_string(newest) + "); upgrade failmap");
    } else {
      m_m.format_version = v->get<int>();
    }
    m_m.tiered = !kind || kind->tiered;
    // A split folder's manifest names no failmap_version (its bytes depend
    // on the input and the options only).
    if (m_m.format != "failmap-split") m_m.failmap_version = str(j, "failmap_version", false).value_or("");
    const char* tier_member = m_m.format_version == 1 ? k_export_tier_member_v1 : k_export_tier_member;
    if (!m_m.tiered) {
      // No one tier: a split names one per split ("splits"[].export_tier).
    } else if (auto text = str(j, tier_member, true)) {  // a missing tier is one problem, not also an unknown one
      auto tier = parse_tier(*text);
      if (!tier) add_unusable(m_manifest_path, 0, tier_member, tier.error().message);
      else m_m.tier = *tier;
    }
    return true;
  }

  // A split folder's manifest: its splits' sizes, and its files as an object
  // of name → SHA-256, rewritten in place as "files" and "sha256" for
  // read_files and read_digests.
  void read_split_members(Json& j) {
    if (auto splits = j.find("splits"); splits != j.end() && splits->is_array())
      for (const Json& sp : *splits)
        if (sp.is_object() && sp.contains("name") && sp["name"].is_string() && sp.contains("items") &&
            sp["items"].is_number_unsigned())
          m_m.split_items.emplace_back(sp["name"].get<std::string>(), sp["items"].get<std::uint64_t>());
    auto f = j.find("files");
    if (f != j.end() && f->is_object()) {
      Json split_files = Json::array();
      for (const auto& [name, hex] : f->items()) split_files.push_back(name);
      j["sha256"] = *f;
      j["files"] = split_files;
    }  // else: "files" is reported by read_files as not a list of files
  }

  // "counts": per record type (none in a split folder, which counts its
  // items per split).
  void read_counts(const Json& j, bool split) {
    auto counts = j.find("counts");
    if (split && counts == j.end()) return;
    if (counts == j.end() || !counts->is_object()) {
      add(Kind::Input, m_manifest_path, 0, "counts", "expected an object, got " + found(j, "counts"));
      return;
    }
    for (const auto& [k, n] : counts->items()) {
      if (!n.is_number_unsigned()) add(Kind::Input, m_manifest_path, 0, "counts." + k, "expected a count");
      else m_m.counts[k] = n.get<std::uint64_t>();
    }
  }

  // "files": exactly the folder's data files (m_data: every plain file but
  // manifest.json, its signature, SHA256SUMS and the unlisted notes).
  void read_files(const Json& j) {
    m_data = m_present;
    m_data.erase(k_manifest_file);
    m_data.erase(k_sums_file);
    m_data.erase(k_signature_file);
    // A grading's record.json (which lines came from the archive's record)
    // and cpu.jsonl (the CPU time each candidate took) differ between runs
    // that write the same results, so the manifest (and the signature over
    // it) leaves them out (schema/GRADING.md "Recording", "cpu.jsonl").
    std::erase_if(m_data, [&](const std::string& name) { return unlisted_note(m_m.format, name); });
    auto files = j.find("files");
    m_files_read = files != j.end() && files->is_array();
    if (!m_files_read) {
      add(Kind::Input, m_manifest_path, 0, "files", "expected an array of file names, got " + found(j, "files"));
      return;
    }
    for (const Json& f : *files) {
      if (!f.is_string() || !plain_name(f.get<std::string>()))
        add(Kind::Input, m_manifest_path, 0, "files", "expected plain file names");
      else m_m.files.push_back(f.get<std::string>());
    }
    std::sort(m_m.files.begin(), m_m.files.end());
    for (const std::string& f : m_m.files)
      if (!m_data.count(f))
        add(Kind::Mismatch, m_manifest_path, 0, "files", "lists '" + f + "', which is not in the folder");
    for (const std::string& f : m_data)
      if (!std::binary_search(m_m.files.begin(), m_m.files.end(), f))
        add(Kind::Mismatch, m_d + "/" + f, 0, "", "not listed in manifest.json");
  }

  // "sha256": the data files' digests, so the signature over the manifest
  // covers their bytes.
  void read_digests(const Json& j) {
    auto sha = j.find("sha256");
    if (sha == j.end() || !sha->is_object()) {
      add(Kind::Input, m_manifest_path, 0, "sha256",
          "expected an object of file name: SHA-256 hex, got " + found(j, "sha256"));
      return;
    }
    for (const auto& [name, hex] : sha->items()) {
      std::string field = "sha256." + name;
      if (!hex.is_string() || !is_sha256_hex(hex.get_ref<const std::string&>())) {
        add(Kind::Input, m_manifest_path, 0, field, "expected 64 lower-case hex characters");
      } else if (!std::binary_search(m_m.files.begin(), m_m.files.end(), name)) {
        if (!m_files_read) continue;  // already the problem of "files"
        add(Kind::Mismatch, m_manifest_path, 0, field, "names a file the manifest does not list");
      } else if (m_data.count(name)) {
        if (const std::string* got = hash_of(name); got && *got != hex.get<std::string>())
          add(Kind::Mismatch, m_manifest_path, 0, field,
              "SHA-256 of '" + name + "' does not match (file changed or corrupt)", hex.get<std::string>(), *got);
      }
    }
    for (const std::string& f : m_m.files)
      if (!sha->contains(f)) add(Kind::Mismatch, m_manifest_path, 0, "sha256", "no digest of '" + f + "'");
  }

  // SHA256SUMS (check_sums): well-formed coreutils text listing exactly the
  // folder's plain files (the unlisted notes aside), each with its SHA-256.
  void check_sums() {
    // Read only when it is a plain file: a FIFO would block the open forever
    // (it is already a problem of list_entries, as is a link or a folder).
    if (!m_present.count(k_sums_file)) {
      m_unusable = true;
      if (!is_not_plain(k_sums_file)) add(Kind::Input, m_sums_path, 0, "", "missing (not a bundle)");
      return;
    }
    SumsCheck check;
    check.format = m_m.format;
    check.files = &m_present;
    check.hash_files = m_hash_files;
    check.digests = &m_digests;
    if (!failmap::check_sums(m_dir, check, m_problems)) m_unusable = true;
  }

  const fs::path& m_dir;
  const std::string m_d, m_manifest_path, m_sums_path;
  ProblemSink m_problems;
  const bool m_hash_files, m_any_kind;
  BundleManifest m_m;
  bool m_unusable = false;
  std::set<std::string> m_present;       // the plain files of the folder
  std::vector<std::string> m_not_plain;  // its other entries, sorted
  FolderDigests m_digests;
  std::set<std::string> m_data;  // the data files "files" must list
  bool m_files_read = false;     // "files" is an array
};

}  // namespace

std::optional<BundleManifest> check_bundle_files(const fs::path& dir, ProblemSink problems, bool hash_files,
                                                 bool any_kind) {
  return FolderCheck(dir, problems, hash_files, any_kind).run();
}

Result<BundleManifest> check_bundle(const fs::path& dir, ProblemSink problems, bool hash_files) {
  // Kept here first: a ProblemSink handed on by value counts its problems apart.
  std::vector<InputProblem> found;
  auto m = check_bundle_files(dir, &found, hash_files);
  const bool flawless = found.empty();
  for (InputProblem& p : found) problems.add(std::move(p));
  if (!m || !flawless) return input_error(dir.string() + ": not a valid bundle");
  return *m;
}

}  // namespace failmap
