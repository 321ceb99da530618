#include "grade/identity.h"

#include <elf.h>
#include <link.h>

#include <cstring>
#include <filesystem>

#include "encoding/file.h"
#include "encoding/sha256.h"

namespace failmap {

namespace {

// The GNU build-id of the main program (the first object dl_iterate_phdr
// reports), as hex; "" when it has none.
int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
  auto* out = static_cast<std::string*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) n;
      std::memcpy(&n, p, sizeof n);
      const unsigned char* name = p + sizeof n;
      const unsigned char* desc = name + ((n.n_namesz + 3) & ~3u);
      if (desc + n.n_descsz > end) break;
      if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
        *out = to_hex(desc, n.n_descsz);
        return 1;
      }
      p = desc + ((n.n_descsz + 3) & ~3u);
    }
  }
  return 1;  // only the main program
}

}  // namespace

Result<std::string> interpreter_identity() {
  static const Result<std::string> identity = []() -> Result<std::string> {
    std::error_code ec;
    auto path = std::filesystem::canonical("/usr/bin/python3", ec);
    if (ec)
      return input_error("/usr/bin/python3: " + ec.message() +
                         " (Debian package python3: the sandbox runs candidates with it)");
    FAILMAP_TRY_ASSIGN(auto hex, hash_file(path));
    return path.string() + " sha256:" + hex;
  }();
  return identity;
}

Result<std::string> build_identity() {
  static const Result<std::string> identity = []() -> Result<std::string> {
    std::string id;
    dl_iterate_phdr(find_build_id, &id);
    if (!id.empty()) return "gnu-build-id:" + id;
    FAILMAP_TRY_ASSIGN(auto hex, hash_file("/proc/self/exe"));
    return "sha256:" + hex;
  }();
  return identity;
}

}  // namespace failmap
