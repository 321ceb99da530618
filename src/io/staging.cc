#include "io/staging.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <utility>

#include <sys/stat.h>

namespace failmap {

namespace fs = std::filesystem;

Result<StagingFolder> StagingFolder::create(const fs::path& given, std::string_view not_empty_hint) {
  std::error_code ec;
  fs::path out = given;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) return input_error(out.string() + ": exists and is not a folder");
    if (!fs::is_empty(out, ec))
      return input_error(out.string() + ": folder is not empty (" + std::string(not_empty_hint) + ")");
    out = fs::canonical(out, ec);  // through links, and no "." or ".." to rename onto
    if (ec) return input_error(out.string() + ": " + ec.message());
    // Renamed onto, the current folder would be a new one: the shell that
    // ran failmap would be left in a deleted folder.
    if (fs::path here = fs::current_path(ec); !ec && here == out)
      return input_error(given.string() +
                         ": the current folder: the output is written beside it and then moved into its "
                         "place, which would leave this shell in a deleted folder; name a new or empty folder instead");
  } else {
    out = fs::absolute(out, ec).lexically_normal();
    if (!out.has_filename()) out = out.parent_path();  // "dir/"
  }
  // The last folder of the path is made, never its parents: a mistyped
  // path must not become a tree of new folders.
  const fs::path parent = out.parent_path();
  if (!fs::is_directory(parent, ec)) {
    fs::path spelled = given.lexically_normal();
    if (!spelled.has_filename()) spelled = spelled.parent_path();  // "a/b/" names b
    spelled = spelled.parent_path();
    if (spelled.empty()) spelled = parent;
    if (fs::exists(parent, ec)) return input_error(given.string() + ": " + spelled.string() + " is not a folder");
    return input_error(given.string() + ": no such folder " + spelled.string() +
                       " (--out makes only the last folder of its path; create " + spelled.string() + " first)");
  }
  std::string pattern = (parent / ("." + out.filename().string() + ".failmap-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) {
    int err = errno;
    return input_error(out.string() + ": cannot create folder: " + std::strerror(err));
  }
  // mkdtemp makes the folder 0700: give it the mode the folder it replaces
  // had, else the one mkdir(2) would have given under the umask.
  fs::perms mode = fs::perms::all;
  if (fs::exists(out, ec)) {
    mode = fs::status(out, ec).permissions();
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode &= ~static_cast<fs::perms>(mask);
  }
  fs::permissions(pattern, mode, ec);
  return StagingFolder(given, std::move(out), fs::path(pattern));
}

StagingFolder::StagingFolder(StagingFolder&& other) noexcept
    : m_given(std::move(other.m_given)), m_out(std::move(other.m_out)), m_staging(std::exchange(other.m_staging, {})) {}

StagingFolder::~StagingFolder() {
  if (m_staging.empty()) return;
  std::error_code ec;
  fs::remove_all(m_staging, ec);
}

Status StagingFolder::commit(std::string_view what) {
  std::error_code ec;
  fs::rename(m_staging, m_out, ec);
  if (ec)
    return input_error(m_given.string() + ": cannot move the " + std::string(what) + " into place: " + ec.message());
  m_staging.clear();
  return ok_status();
}

}  // namespace failmap
