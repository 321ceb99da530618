// Hashing throughput of failmap's digests (bench/verify_bench.sh).
//
//   failmap_hash_bench ARCHIVE OUT
//
// Writes to OUT every message `failmap verify` hashes for the archive when
// nothing differs — per case the three replayed observation documents and the
// RFC 8785 text of the case digest document — back to back, then times
// failmap's SHA-256 (encoding/sha256.h) over those messages one by one, as verify
// does, and prints "failmap_sha256 BYTES CPU_SECONDS MBPS" (CPU time of this
// process, as the script measures the other tools, so a busy machine does not
// skew the ratio). The script hashes OUT with sha256sum and openssl.
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/evaluate.h"
#include "encoding/jcs.h"
#include "encoding/sha256.h"
#include "io/digest.h"
#include "io/observation.h"
#include "store/archive.h"

int main(int argc, char** argv) {
  using namespace failmap;
  if (argc != 3) {
    std::cerr << "usage: failmap_hash_bench ARCHIVE OUT\n";
    return 2;
  }
  auto archive = Archive::open(argv[1], Archive::Mode::ReadOnly);
  if (!archive) {
    std::cerr << archive.error().message << "\n";
    return 2;
  }
  std::string all;
  std::vector<std::size_t> lengths;
  auto add = [&](const std::string& m) {
    all += m;
    lengths.push_back(m.size());
  };
  auto s = archive->for_each_case([&](const Case& c) -> Status {
    std::vector<RunDigestInput> runs;
    for (StrategyKind k : k_all_strategies) {
      auto out = run_strategy(c, k);
      if (!out) return out.error();
      std::string doc = observation_document(c, *out);
      add(doc);
      runs.push_back(RunDigestInput{k, out->exit_status(), sha256_hex(doc)});
    }
    add(*canonical_json(case_digest_document(c, runs)));
    return ok_status();
  });
  if (!s) {
    std::cerr << s.error().message << "\n";
    return 2;
  }
  std::ofstream(argv[2], std::ios::binary).write(all.data(), static_cast<std::streamsize>(all.size()));
  std::clock_t t0 = std::clock();
  std::size_t offset = 0, check = 0;
  for (std::size_t n : lengths) {
    check += static_cast<unsigned char>(sha256_hex(std::string_view(all).substr(offset, n))[0]);
    offset += n;
  }
  double secs = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  std::printf("failmap_sha256 %zu %.3f %.1f messages=%zu (check %zu)\n", all.size(), secs, all.size() / secs / 1e6,
              lengths.size(), check);
  return 0;
}
