#include "encoding/signature.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>

#include "encoding/file.h"

namespace failmap {
namespace {

using PKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

enum class KeyKind { Private, Public };

// The pass phrase callback of every PEM read: none. Without it OpenSSL asks
// on the terminal ("Enter PEM pass phrase:") for an encrypted key, blocking a
// command that reads keys it did not ask for (export --sign's advice tries
// the .pem files beside the key).
int no_pass_phrase(char*, int, int, void*) { return -1; }

Result<PKey> read_key(const std::filesystem::path& path, KeyKind kind) {
  FAILMAP_TRY_ASSIGN(auto text, read_file(path));
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free);
  if (!bio) return input_error(path.string() + ": out of memory");
  PKey key(kind == KeyKind::Private ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_pass_phrase, nullptr)
                                    : PEM_read_bio_PUBKEY(bio.get(), nullptr, no_pass_phrase, nullptr),
           &EVP_PKEY_free);
  const char* what = kind == KeyKind::Private ? "private" : "public";
  if (!key && text.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos)
    return input_error(path.string() +
                       ": an encrypted PEM private key; failmap reads unencrypted keys only (`openssl pkey -in " +
                       path.string() + " -out PLAIN.pem` writes it decrypted)");
  if (!key) return input_error(path.string() + ": not a PEM " + what + " key");
  if (EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519)
    return input_error(path.string() + ": not an Ed25519 " + what +
                       " key (make one with `openssl genpkey -algorithm ed25519`)");
  return key;
}

}  // namespace

Result<std::string> ed25519_sign(const std::filesystem::path& key_pem, std::string_view message) {
  FAILMAP_TRY_ASSIGN(auto key, read_key(key_pem, KeyKind::Private));
  MdCtx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::string sig(k_ed25519_signature_size, '\0');
  std::size_t len = sig.size();
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      len != k_ed25519_signature_size)
    return input_error(key_pem.string() + ": Ed25519 signing failed");
  return sig;
}

Status ed25519_check_private_key(const std::filesystem::path& key_pem) {
  FAILMAP_TRY(read_key(key_pem, KeyKind::Private));
  return ok_status();
}

Result<std::optional<std::filesystem::path>> signing_key_option(const std::string& key_pem) {
  if (key_pem.empty()) return std::optional<std::filesystem::path>();
  FAILMAP_TRY(ed25519_check_private_key(key_pem));
  return std::optional<std::filesystem::path>(key_pem);
}

Status ed25519_verify(const std::filesystem::path& pub_pem, std::string_view message, std::string_view signature) {
  FAILMAP_TRY_ASSIGN(auto key, read_key(pub_pem, KeyKind::Public));
  if (signature.size() != k_ed25519_signature_size)
    return Error{"signature is " + std::to_string(signature.size()) + " bytes, an Ed25519 signature is 64",
                 Error::Kind::Mismatch};
  MdCtx ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
    return input_error(pub_pem.string() + ": cannot use this key");
  if (EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                       reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1)
    return Error{"the signature does not verify with the public key " + pub_pem.string(), Error::Kind::Mismatch};
  return ok_status();
}

}  // namespace failmap
