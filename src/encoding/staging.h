// Output folders that appear whole or not at all: written under a hidden
// temporary name beside the destination, renamed into place once complete
// (rename(2) of a folder is atomic on one file system). What export, split
// and grade write their folders through.
//
// A command killed by SIGKILL (or a power cut) cannot remove its staging
// folder. The name records the process that made it,
// ".<name>.failmap-<pid>-XXXXXX", and the process holds an flock(2) on it
// while it writes; the next StagingFolder for the same output removes every
// folder of that pattern whose process is gone: kill(pid, 0) fails with
// ESRCH, and the folder's lock can be taken (the lock speaks for a process
// in another pid namespace or on another host sharing the file system).
// Folders of another output, of a live process, or not of this pattern
// (no pid in the name) are left as they are.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/result.h"

namespace failmap {

/// A new hidden sibling "<parent>/.<name>.failmap-<pid>-XXXXXX" (mkdtemp,
/// locked with flock(2) while this object lives) of an output folder `out`,
/// to be renamed to `out` by commit(). Until then, or
/// when commit() fails, the destructor removes it, so a failed or
/// interrupted command leaves nothing at `out` (an empty folder that was
/// there stays as it was, mode included). Move-only.
class StagingFolder {
 public:
  /// Checks `out`: absent, or an empty folder (stale files would break the
  /// folder's SHA256SUMS). A non-empty one is an Input error
  /// "OUT: folder is not empty (" + `not_empty_hint` + ")"; a file, or a
  /// folder that cannot be made (permissions), an Input error naming OUT;
  /// so is a parent of `out` that does not exist ("OUT: no such folder
  /// PARENT (...)", PARENT spelled as in OUT): only `out` itself is made;
  /// so is the current folder ("OUT: the current folder: ..."), which the
  /// rename would replace under the shell that ran failmap. The staging
  /// folder gets the mode `out` has, else the one mkdir(2) would give under
  /// the umask (mkdtemp's is 0700). Before making it, removes the stale
  /// staging folders of `out` (see the top of this file); one that cannot be
  /// removed is left, without an error.
  static Result<StagingFolder> create(const std::filesystem::path& out, std::string_view not_empty_hint);
  StagingFolder(StagingFolder&& other) noexcept;
  StagingFolder& operator=(StagingFolder&& other) = delete;
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  ~StagingFolder();

  /// Where to write the folder's files meanwhile.
  const std::filesystem::path& path() const { return m_staging; }
  /// Renames the staging folder to `out`. rename(2) replaces an empty folder
  /// at `out`; one that became non-empty meanwhile is refused (ENOTEMPTY),
  /// never merged into: an Input error "OUT: cannot move the " + `what` +
  /// " into place: REASON", and the destructor then removes the staging
  /// folder. OUT is spelled as given to create().
  Status commit(std::string_view what);

 private:
  StagingFolder(std::filesystem::path given, std::filesystem::path out, std::filesystem::path staging, int lock)
      : m_given(std::move(given)), m_out(std::move(out)), m_staging(std::move(staging)), m_lock(lock) {}
  void unlock();
  std::filesystem::path m_given;    ///< `out` as given (for messages)
  std::filesystem::path m_out;      ///< absolute, through links
  std::filesystem::path m_staging;  ///< empty once committed or moved from
  int m_lock = -1;                  ///< descriptor of the staging folder holding its flock, or -1
};

}  // namespace failmap
