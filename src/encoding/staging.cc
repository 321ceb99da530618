#include "encoding/staging.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace failmap {

namespace fs = std::filesystem;

namespace {

// The pid a staging folder's name ".<name>.failmap-<pid>-XXXXXX" records,
// given the part after "failmap-"; 0 when it is not of that pattern.
pid_t staging_pid(std::string_view rest) {
  if (rest.size() < 8 || rest[rest.size() - 7] != '-') return 0;
  std::string_view digits = rest.substr(0, rest.size() - 7);
  if (digits.empty() || digits.size() > 9 || digits[0] == '0') return 0;
  pid_t pid = 0;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') return 0;
    pid = pid * 10 + (ch - '0');
  }
  return pid;
}

// Removes the staging folders of `name` in `parent` whose process is gone
// (see staging.h): kill(pid, 0) says there is no such process, and the
// folder's flock is free. Errors leave the folder where it is.
void remove_stale_staging(const fs::path& parent, const std::string& name) {
  const std::string prefix = "." + name + ".failmap-";
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (entry.compare(0, prefix.size(), prefix) != 0) continue;
    const pid_t pid = staging_pid(std::string_view(entry).substr(prefix.size()));
    if (pid == 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code type_ec;
    if (!it->is_directory(type_ec) || it->is_symlink(type_ec)) continue;
    const int fd = open(it->path().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code rm_ec;
      fs::remove_all(it->path(), rm_ec);
    }
    close(fd);  // releases the lock
  }
}

}  // namespace

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
  remove_stale_staging(parent, out.filename().string());
  std::string pattern =
      (parent / ("." + out.filename().string() + ".failmap-" + std::to_string(getpid()) + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data())) {
    int err = errno;
    return input_error(out.string() + ": cannot create folder: " + std::strerror(err));
  }
  // Held until commit() or the destructor; a descriptor that cannot be had
  // leaves the folder to the pid check alone.
  int lock = open(pattern.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lock >= 0 && flock(lock, LOCK_EX | LOCK_NB) != 0) {
    close(lock);
    lock = -1;
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
  return StagingFolder(given, std::move(out), fs::path(pattern), lock);
}

StagingFolder::StagingFolder(StagingFolder&& other) noexcept
    : m_given(std::move(other.m_given)),
      m_out(std::move(other.m_out)),
      m_staging(std::exchange(other.m_staging, {})),
      m_lock(std::exchange(other.m_lock, -1)) {}

void StagingFolder::unlock() {
  if (m_lock >= 0) close(m_lock);
  m_lock = -1;
}

StagingFolder::~StagingFolder() {
  if (!m_staging.empty()) {
    std::error_code ec;
    fs::remove_all(m_staging, ec);
  }
  unlock();
}

Status StagingFolder::commit(std::string_view what) {
  std::error_code ec;
  fs::rename(m_staging, m_out, ec);
  if (ec)
    return input_error(m_given.string() + ": cannot move the " + std::string(what) + " into place: " + ec.message());
  m_staging.clear();
  unlock();
  return ok_status();
}

}  // namespace failmap
