// Ed25519 signatures (RFC 8032) through OpenSSL's EVP_PKEY interface, for
// signed bundle manifests (schema/DIGESTS.md "Bundle digests").
//
// Keys are PEM files as OpenSSL writes them:
//   openssl genpkey -algorithm ed25519 -out KEY.pem        (PKCS#8 private key)
//   openssl pkey -in KEY.pem -pubout -out PUB.pem          (SubjectPublicKeyInfo)
// Signatures are the raw 64 bytes of "pure" Ed25519 over the message bytes
// (EVP_DigestSign with a NULL digest), the form
//   openssl pkeyutl -verify -rawin -pubin -inkey PUB.pem -in MSG -sigfile MSG.sig
// accepts.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace failmap {

/// Size of an Ed25519 signature in bytes.
inline constexpr std::size_t k_ed25519_signature_size = 64;

/// Signs `message` with the Ed25519 private key in PEM file `key_pem`.
/// Returns the 64 signature bytes. Input errors name the file: unreadable,
/// not a PEM private key, or a key of another algorithm.
Result<std::string> ed25519_sign(const std::filesystem::path& key_pem, std::string_view message);

/// Checks that `key_pem` holds a readable Ed25519 private key (before an
/// export writes anything); the same input Errors as ed25519_sign.
Status ed25519_check_private_key(const std::filesystem::path& key_pem);

/// A `--sign KEY.pem` option as the writers take it: none for "", else the
/// path, once ed25519_check_private_key accepts the key (so that a bad key
/// is refused before anything is read or written). Errors: that check's.
Result<std::optional<std::filesystem::path>> signing_key_option(const std::string& key_pem);

/// Checks `signature` over `message` against the Ed25519 public key in PEM
/// file `pub_pem`. A signature that does not verify (wrong key, changed
/// message, wrong length) is an Error of kind Mismatch; an unusable key file
/// is an input Error naming it.
Status ed25519_verify(const std::filesystem::path& pub_pem, std::string_view message, std::string_view signature);

}  // namespace failmap
