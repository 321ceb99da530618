#include "io/hashed_folder.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

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

Status verify_sums(const fs::path& dir, std::string_view changed) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (st.type() == fs::file_type::not_found) return input_error(dir.string() + ": no such folder");
  if (!fs::is_directory(st)) return input_error(dir.string() + ": not a folder");
  FAILMAP_TRY_ASSIGN(auto sums, read_file(dir / "SHA256SUMS"));
  const std::string sums_path = (dir / "SHA256SUMS").string();
  FAILMAP_TRY_ASSIGN(std::string_view rest, skip_file_bom(sums, sums_path));
  int line_no = 0;
  while (!rest.empty()) {
    ++line_no;
    std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const std::string at = sums_path + ":" + std::to_string(line_no) + ": ";
    if (line.starts_with(k_utf8_bom)) return input_error(at + std::string(k_bom_refused));
    if (line.size() < 67 || line.substr(64, 2) != "  " || !is_sha256_hex(line.substr(0, 64)))
      return input_error(at + "expected 'SHA256  NAME' (coreutils format)");
    std::string name(line.substr(66));
    if (name.find('/') != std::string::npos || name == "." || name == "..")
      return input_error(at + "file name '" + name + "' leaves the folder");
    FAILMAP_TRY_ASSIGN(auto hex, hash_file(dir / name));
    if (hex != line.substr(0, 64))
      return Error{(dir / name).string() + ": SHA-256 differs from SHA256SUMS (" + std::string(changed) + ")",
                   Error::Kind::Mismatch};
  }
  return ok_status();
}

}  // namespace failmap
