#include "encoding/sha256.h"

// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP;
// sha256_bytes uses them while the build has them (the same implementation,
// less overhead per message) and EVP otherwise.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace failmap {
namespace {

// SHA-256 fetched once: EVP_sha256() in EVP_DigestInit_ex makes OpenSSL 3
// fetch the algorithm on every init, which dominates for small messages.
EVP_MD* sha256_md() {
  static EVP_MD* const k_md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return k_md;
}

}  // namespace

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : m_impl(std::make_unique<Impl>()) {
  m_impl->ctx = EVP_MD_CTX_new();
  if (!m_impl->ctx || !sha256_md() || EVP_DigestInit_ex2(m_impl->ctx, sha256_md(), nullptr) != 1) std::abort();
}

Sha256::~Sha256() { EVP_MD_CTX_free(m_impl->ctx); }

void Sha256::update(std::string_view data) {
  if (EVP_DigestUpdate(m_impl->ctx, data.data(), data.size()) != 1) std::abort();
}

std::array<unsigned char, 32> Sha256::bytes() {
  std::array<unsigned char, 32> out{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(m_impl->ctx, out.data(), &len) != 1 || len != 32) std::abort();
  if (EVP_DigestInit_ex2(m_impl->ctx, sha256_md(), nullptr) != 1) std::abort();
  return out;
}

std::string Sha256::hex() {
  auto b = bytes();
  return to_hex(b.data(), b.size());
}

Sha256Bytes sha256_bytes(std::string_view data) {
  Sha256Bytes out{};
#ifndef OPENSSL_NO_DEPRECATED_3_0
  // SHA256_Update is the block function the EVP digest calls, without
  // EVP's per-message init and dispatch (OpenSSL 3's one-shot SHA256() goes
  // through EVP_Q_digest, slower still).
  SHA256_CTX ctx;
  if (SHA256_Init(&ctx) != 1 || SHA256_Update(&ctx, data.data(), data.size()) != 1 ||
      SHA256_Final(out.data(), &ctx) != 1)
    std::abort();
#else
  // Without the low-level interface: one fetched algorithm and one context
  // per thread (EVP_Digest() would fetch and allocate on every call).
  EVP_MD* const k_md = sha256_md();
  struct Ctx {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    ~Ctx() { EVP_MD_CTX_free(ctx); }
  };
  thread_local Ctx t;
  unsigned int len = 0;
  if (!k_md || !t.ctx || EVP_DigestInit_ex2(t.ctx, k_md, nullptr) != 1 ||
      EVP_DigestUpdate(t.ctx, data.data(), data.size()) != 1 || EVP_DigestFinal_ex(t.ctx, out.data(), &len) != 1 ||
      len != out.size())
    std::abort();
#endif
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256Bytes d = sha256_bytes(data);
  return to_hex(d.data(), d.size());
}

namespace {

// The value of each lower-case hex digit, -1 for every other byte.
constexpr std::array<std::int8_t, 256> k_hex_value = [] {
  std::array<std::int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 16; ++i) t[static_cast<unsigned char>("0123456789abcdef"[i])] = static_cast<std::int8_t>(i);
  return t;
}();

}  // namespace

bool parse_sha256_hex(std::string_view hex, Sha256Bytes* out) {
  if (hex.size() != 64) return false;
  // One pass: decode every pair, and OR the values so that any -1 (a byte
  // that is no lower-case hex digit) shows in the sign; *out is only
  // meaningful when true is returned.
  int bad = 0;
  for (std::size_t i = 0; i < out->size(); ++i) {
    int hi = k_hex_value[static_cast<unsigned char>(hex[2 * i])];
    int lo = k_hex_value[static_cast<unsigned char>(hex[2 * i + 1])];
    bad |= hi | lo;
    (*out)[i] = static_cast<unsigned char>((hi << 4) | (lo & 15));
  }
  return bad >= 0;
}

namespace {

// The two lower-case hex digits of every byte value: one 2-byte copy per
// byte instead of two nibble lookups.
constexpr std::array<char, 512> k_hex_pairs = [] {
  std::array<char, 512> t{};
  for (int b = 0; b < 256; ++b) {
    t[2 * b] = "0123456789abcdef"[b >> 4];
    t[2 * b + 1] = "0123456789abcdef"[b & 15];
  }
  return t;
}();

}  // namespace

void write_hex(char* out, const unsigned char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) std::memcpy(out + 2 * i, &k_hex_pairs[2 * data[i]], 2);
}

std::string to_hex(const unsigned char* data, std::size_t size) {
  std::string out(size * 2, '0');
  write_hex(out.data(), data, size);
  return out;
}

bool is_sha256_hex(std::string_view s) {
  if (s.size() != 64) return false;
  int bad = 0;  // no early exit: one branch for the 64 characters
  for (char c : s) bad |= k_hex_value[static_cast<unsigned char>(c)];
  return bad >= 0;
}

}  // namespace failmap
