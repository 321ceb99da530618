#include "io/hashed_folder.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "encoding/file.h"
#include "encoding/json.h"
#include "encoding/sha256.h"
#include "encoding/signature.h"
#include "encoding/text.h"
#include "io/bundle.h"

namespace failmap {

namespace fs = std::filesystem;

std::string manifest_text(const ManifestHeader& header, const std::map<std::string, std::string>& hashes) {
  Json counts = Json::object();
  for (const auto& [k, n] : header.counts) counts[k] = n;
  // One compact JSON object (schema/BUNDLE.md), its members in this order;
  // names are written by the same dump_compact as the values.
  std::string text = "{\"format\":" + dump_compact(Json(header.format)) +
                     ",\"format_version\":" + std::to_string(header.format_version) +
                     ",\"failmap_version\":" + dump_compact(Json(FAILMAP_VERSION));
  if (header.tier)
    text +=
        ",\"" + std::string(k_export_tier_member) + "\":" + dump_compact(Json(std::string(tier_name(*header.tier))));
  text += ",\"counts\":" + dump_compact(counts) + ",\"files\":[";
  bool first = true;
  for (const auto& [name, hex] : hashes) {
    if (!first) text += ',';
    first = false;
    text += dump_compact(Json(name));
  }
  text += "],\"sha256\":{";
  first = true;
  for (const auto& [name, hex] : hashes) {
    if (!first) text += ',';
    first = false;
    text += dump_compact(Json(name));
    text += ":\"";
    text += hex;
    text += '"';
  }
  text += "}}\n";
  return text;
}

Status seal_folder(const fs::path& dir, std::string_view manifest, std::map<std::string, std::string> hashes,
                   const std::optional<fs::path>& sign_key) {
  {
    std::ofstream out(dir / k_manifest_file, std::ios::binary | std::ios::trunc);
    out.write(manifest.data(), static_cast<std::streamsize>(manifest.size()));
    out.close();
    if (!out) return input_error((dir / k_manifest_file).string() + ": write error");
  }
  // SHA256SUMS in byte order of file name, manifest.json (and its signature) included.
  hashes[k_manifest_file] = sha256_hex(manifest);
  if (sign_key) {
    FAILMAP_TRY_ASSIGN(auto sig, ed25519_sign(*sign_key, manifest));
    std::ofstream out(dir / k_signature_file, std::ios::binary | std::ios::trunc);
    out << sig;
    out.close();
    if (!out) return input_error((dir / k_signature_file).string() + ": write error");
    hashes[k_signature_file] = sha256_hex(sig);
  }
  std::ofstream out(dir / k_sums_file, std::ios::binary | std::ios::trunc);
  for (const auto& [name, hex] : hashes) out << hex << "  " << name << "\n";
  out.close();
  if (!out) return input_error((dir / k_sums_file).string() + ": write error");
  return ok_status();
}

// One file filled by append(): its stream, the hash of what reached it, and
// the bytes not yet written.
struct HashedFolderWriter::Stream {
  std::string name;
  std::ofstream out;
  Sha256 hash;
  std::string pending;
  bool listed = true;  // in SHA256SUMS and the manifest
  static constexpr std::size_t k_block = std::size_t{1} << 20;
  // Hashes and writes `pending`; false when the stream failed.
  bool flush() {
    hash.update(pending);
    out.write(pending.data(), static_cast<std::streamsize>(pending.size()));
    pending.clear();
    return static_cast<bool>(out);
  }
};

HashedFolderWriter::HashedFolderWriter(StagingFolder staging, fs::path dir, std::string what)
    : m_staging(std::move(staging)), m_dir(std::move(dir)), m_what(std::move(what)) {}
HashedFolderWriter::HashedFolderWriter(HashedFolderWriter&&) noexcept = default;
HashedFolderWriter::~HashedFolderWriter() = default;

Result<HashedFolderWriter> HashedFolderWriter::create(const fs::path& dir, std::string what,
                                                      std::string_view not_empty_hint) {
  FAILMAP_TRY_ASSIGN(auto staging, StagingFolder::create(dir, not_empty_hint));
  return HashedFolderWriter(std::move(staging), dir, std::move(what));
}

Status HashedFolderWriter::check_name(const std::string& name) const {
  if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos || name.find('\0') != std::string::npos ||
      name == k_manifest_file || name == k_sums_file || name == k_signature_file)
    return input_error(shown(name) + ": not a name a data file of the folder may have");
  bool used = m_digests.count(name) != 0 || std::find(m_unlisted.begin(), m_unlisted.end(), name) != m_unlisted.end();
  for (const auto& s : m_streams) used = used || s->name == name;
  if (used) return input_error(shown(name) + ": written twice");
  return ok_status();
}

Result<std::size_t> HashedFolderWriter::open(const std::string& name, bool listed) {
  FAILMAP_TRY(check_name(name));
  auto s = std::make_unique<Stream>();
  s->name = name;
  s->listed = listed;
  s->out.open(m_staging.path() / name, std::ios::binary | std::ios::trunc);
  if (!s->out) return input_error(shown(name) + ": cannot write: " + std::strerror(errno));
  s->pending.reserve(Stream::k_block);
  m_streams.push_back(std::move(s));
  return m_streams.size() - 1;
}

Status HashedFolderWriter::append(std::size_t handle, std::string_view bytes) {
  Stream& s = *m_streams[handle];
  s.pending.append(bytes);
  if (s.pending.size() >= Stream::k_block && !s.flush()) return input_error(shown(s.name) + ": write failed");
  return ok_status();
}

Status HashedFolderWriter::close_files() {
  for (auto& s : m_streams) {
    if (!s->out.is_open()) continue;
    bool ok = s->flush();
    s->out.close();
    if (!ok || !s->out) return input_error(shown(s->name) + ": write failed");
    if (s->listed) m_digests.emplace(s->name, s->hash.hex());
  }
  return ok_status();
}

Status HashedFolderWriter::write(const std::string& name, std::string_view bytes) {
  FAILMAP_TRY(check_name(name));
  std::ofstream out(m_staging.path() / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return input_error(shown(name) + ": write failed");
  m_digests.emplace(name, sha256_hex(bytes));
  return ok_status();
}

Status HashedFolderWriter::write_unlisted(const std::string& name, std::string_view bytes) {
  FAILMAP_TRY(check_name(name));
  std::ofstream out(m_staging.path() / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return input_error(shown(name) + ": write failed");
  m_unlisted.push_back(name);
  return ok_status();
}

std::vector<std::pair<std::string, std::string>> HashedFolderWriter::digests() const {
  return {m_digests.begin(), m_digests.end()};
}

Status HashedFolderWriter::seal(const ManifestHeader& header, const std::optional<fs::path>& sign_key) {
  FAILMAP_TRY(close_files());
  return seal(manifest_text(header, m_digests), sign_key);
}

Status HashedFolderWriter::seal(std::string_view manifest, const std::optional<fs::path>& sign_key) {
  FAILMAP_TRY(close_files());
  // The digests move into SHA256SUMS: one copy of them at the peak.
  if (Status s = seal_folder(m_staging.path(), manifest, std::move(m_digests), sign_key); !s) {
    // Named as the user named DIR, not by the hidden staging folder.
    std::string message = s.error().message;
    const std::string staged = m_staging.path().string();
    if (message.starts_with(staged)) message = m_dir.string() + message.substr(staged.size());
    return input_error(message);
  }
  return ok_status();
}

Status HashedFolderWriter::commit() { return m_staging.commit(m_what); }

Status HashedFolderWriter::finish(const ManifestHeader& header, const std::optional<fs::path>& sign_key) {
  FAILMAP_TRY(seal(header, sign_key));
  return commit();
}

Status HashedFolderWriter::finish(std::string_view manifest, const std::optional<fs::path>& sign_key) {
  FAILMAP_TRY(seal(manifest, sign_key));
  return commit();
}

bool unlisted_note(std::string_view format, std::string_view name) {
  return format == "failmap-grading" && (name == "record.json" || name == "cpu.jsonl");
}

const std::string* FolderDigests::of(const std::string& name, ProblemSink& problems) {
  auto it = m_hex.find(name);
  if (it == m_hex.end()) {
    auto hex = hash_file(m_dir / name);
    if (!hex) problems.add(input_problem((m_dir / name).string(), 0, "", hex.error().message));
    it = m_hex.emplace(name, hex ? std::optional<std::string>(*hex) : std::nullopt).first;
  }
  return it->second ? &*it->second : nullptr;
}

namespace {

using Kind = InputProblem::Kind;

void add(ProblemSink& problems, Kind kind, std::string file, std::uint64_t line, std::string message,
         std::string expected = {}, std::string found = {}) {
  problems.add(
      InputProblem{kind, std::move(file), line, "", std::move(message), std::move(expected), std::move(found)});
}

// A name SHA256SUMS may list: a file of the folder itself, not SHA256SUMS.
bool listable(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos && name != k_sums_file;
}

}  // namespace

bool check_sums(const fs::path& dir, const SumsCheck& check, ProblemSink problems) {
  const std::string d = dir.string(), sums_path = (dir / k_sums_file).string();
  // The folder's plain files, and its other entries (named only when listed).
  std::set<std::string> listed_here, not_plain;
  if (!check.files) {
    std::error_code ec;
    const fs::file_status st = fs::status(dir, ec);
    if (st.type() == fs::file_type::not_found || !fs::is_directory(st)) {
      add(problems, Kind::Input, d, 0, st.type() == fs::file_type::not_found ? "no such folder" : "not a folder");
      return false;
    }
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      std::error_code type_ec;
      const bool plain = !it->is_symlink(type_ec) && it->is_regular_file(type_ec);
      (plain ? listed_here : not_plain).insert(it->path().filename().string());
    }
    if (ec) {
      add(problems, Kind::Input, d, 0, ec.message());
      return false;
    }
  }
  const std::set<std::string>& files = check.files ? *check.files : listed_here;
  if (!files.count(k_sums_file)) {
    add(problems, Kind::Input, sums_path, 0, not_plain.count(k_sums_file) ? "not a plain file" : "missing");
    return false;
  }
  auto sums = read_file(dir / k_sums_file);
  if (!sums) {
    add(problems, Kind::Input, sums_path, 0, sums.error().message);
    return false;
  }
  std::optional<FolderDigests> own;
  FolderDigests* digests = check.digests;
  if (!digests && check.hash_files) digests = &own.emplace(dir);
  std::set<std::string> listed;
  std::size_t line_no = 0, pos = 0;
  if (auto body = skip_file_bom(*sums, sums_path); !body) {
    add(problems, Kind::Input, sums_path, 1, std::string(k_second_bom));
    pos = 2 * k_utf8_bom.size();  // the lines are read on, past both
  } else {
    pos = sums->size() - body->size();
  }
  while (pos < sums->size() && !problems.stopped()) {
    std::size_t nl = sums->find('\n', pos);
    std::string line = sums->substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? sums->size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with(k_utf8_bom)) {  // refused; the line is read on without it (no follow-on problems)
      add(problems, Kind::Input, sums_path, line_no, std::string(k_bom_refused));
      line.erase(0, k_utf8_bom.size());
    }
    // coreutils: "<64 hex>  <name>" (text mode) or "<64 hex> *<name>" (binary mode).
    if (line.size() < 67 || !is_sha256_hex(line.substr(0, 64)) || line[64] != ' ' ||
        (line[65] != ' ' && line[65] != '*')) {
      add(problems, Kind::Input, sums_path, line_no, "expected '<sha256 hex>  <file name>'");
      continue;
    }
    std::string name = line.substr(66);
    if (!listable(name)) {
      add(problems, Kind::Mismatch, sums_path, line_no, "'" + name + "' is not a file SHA256SUMS may list");
      continue;
    }
    if (!listed.insert(name).second)
      add(problems, Kind::Mismatch, sums_path, line_no, "'" + name + "' is listed twice");
    if (!files.count(name)) {
      add(problems, Kind::Mismatch, sums_path, line_no,
          "'" + name + (not_plain.count(name) ? "' is not a plain file" : "' is missing from the folder"));
      continue;
    }
    if (!digests) continue;
    if (const std::string* got = digests->of(name, problems); got && *got != line.substr(0, 64))
      add(problems, Kind::Mismatch, sums_path, line_no,
          "'" + name + "': SHA-256 does not match (" + std::string(check.changed) + ")", line.substr(0, 64), *got);
  }
  for (const std::string& name : files) {
    if (problems.stopped()) break;
    if (name != k_sums_file && !listed.count(name) && !unlisted_note(check.format, name))
      add(problems, Kind::Mismatch, d + "/" + name, 0, "not listed in SHA256SUMS");
  }
  return true;
}

Status verify_sums(const fs::path& dir, std::string_view format) {
  SumsCheck check;
  check.format = format;
  check.changed = format == "failmap-grading" ? "file changed since the grading wrote it"
                  : format == "failmap-split" ? "file changed after the split"
                                              : "file changed or corrupt";
  std::optional<InputProblem> first;
  check_sums(dir, check, ProblemSink::first_only(&first));
  if (!first) return ok_status();
  return Error{describe(*first), first->kind == Kind::Mismatch ? Error::Kind::Mismatch : Error::Kind::Input};
}

}  // namespace failmap
