// SHA-256 (FIPS 180-4) through OpenSSL's EVP interface.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>

namespace failmap {

/// Incremental SHA-256. Feed bytes with update(), read the digest once with
/// hex() or bytes(). Allocation failure inside OpenSSL aborts (out of memory).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  /// The 32-byte digest; the hasher is reset for reuse afterwards.
  std::array<unsigned char, 32> bytes();
  /// The digest as 64 lower-case hex characters; resets like bytes().
  std::string hex();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// A raw SHA-256 digest (32 bytes, FIPS 180-4 byte order).
using Sha256Bytes = std::array<unsigned char, 32>;

/// SHA-256 of `data`, raw.
Sha256Bytes sha256_bytes(std::string_view data);
/// SHA-256 of `data` as 64 lower-case hex characters.
std::string sha256_hex(std::string_view data);
/// Parses 64 lower-case hex characters (is_sha256_hex) into `out`; false
/// (and `out` unspecified) for anything else.
bool parse_sha256_hex(std::string_view hex, Sha256Bytes* out);
/// Lower-case hex of raw bytes.
std::string to_hex(const unsigned char* data, std::size_t size);
/// Writes the 2 * size lower-case hex digits of data[0, size) to `out`
/// (no terminator), for callers that reuse their buffer.
void write_hex(char* out, const unsigned char* data, std::size_t size);
/// True for exactly 64 characters of [0-9a-f] (failmap's digest spelling).
bool is_sha256_hex(std::string_view s);

}  // namespace failmap
