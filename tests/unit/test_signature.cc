// Ed25519 through OpenSSL: failmap's signatures verify with the openssl
// command line and the other way round; wrong keys and changed messages fail.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "encoding/file.h"
#include "encoding/signature.h"
#include "support.h"

namespace failmap {
namespace {

namespace fs = std::filesystem;

struct Keys : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = ::failmap::testing_support::unit_temp_dir() / ("failmap-sig-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string d = dir.string();
    ASSERT_EQ(std::system(("openssl genpkey -algorithm ed25519 -out " + d +
                           "/key.pem 2>/dev/null && "
                           "openssl pkey -in " +
                           d + "/key.pem -pubout -out " + d +
                           "/pub.pem && "
                           "openssl genpkey -algorithm ed25519 -out " +
                           d +
                           "/other.pem 2>/dev/null && "
                           "openssl pkey -in " +
                           d + "/other.pem -pubout -out " + d +
                           "/other_pub.pem && "
                           "openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out " +
                           d + "/ec.pem 2>/dev/null")
                              .c_str()),
              0);
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
  }
  int openssl_verify(const std::string& msg, const std::string& sig, const std::string& pub) {
    std::string d = dir.string();
    return std::system(("openssl pkeyutl -verify -rawin -pubin -inkey " + d + "/" + pub + " -in " + d + "/" + msg +
                        " -sigfile " + d + "/" + sig + " >/dev/null 2>&1")
                           .c_str());
  }
};

TEST_F(Keys, OpensslAcceptsFailmapSignatures) {
  std::string msg = "{\"format\":\"failmap-bundle\"}\n";
  write("manifest.json", msg);
  auto sig = ed25519_sign(dir / "key.pem", msg);
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  EXPECT_EQ(sig->size(), 64u);
  write("manifest.json.sig", *sig);
  EXPECT_EQ(openssl_verify("manifest.json", "manifest.json.sig", "pub.pem"), 0);
  EXPECT_NE(openssl_verify("manifest.json", "manifest.json.sig", "other_pub.pem"), 0);
  EXPECT_TRUE(ed25519_verify(dir / "pub.pem", msg, *sig).ok());
}

TEST_F(Keys, FailmapAcceptsOpensslSignatures) {
  write("m", "hello");
  std::string d = dir.string();
  ASSERT_EQ(std::system(
                ("openssl pkeyutl -sign -rawin -inkey " + d + "/key.pem -in " + d + "/m -out " + d + "/m.sig").c_str()),
            0);
  auto sig = read_file(dir / "m.sig");
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(ed25519_verify(dir / "pub.pem", "hello", *sig).ok());
}

TEST_F(Keys, WrongKeyChangedMessageAndBadFilesFail) {
  auto sig = ed25519_sign(dir / "key.pem", "payload");
  ASSERT_TRUE(sig.ok());
  auto wrong = ed25519_verify(dir / "other_pub.pem", "payload", *sig);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, Error::Kind::Mismatch);
  EXPECT_NE(wrong.error().message.find("does not verify with the public key"), std::string::npos);
  EXPECT_FALSE(ed25519_verify(dir / "pub.pem", "payloaD", *sig).ok());
  auto short_sig = ed25519_verify(dir / "pub.pem", "payload", sig->substr(0, 63));
  ASSERT_FALSE(short_sig.ok());
  EXPECT_EQ(short_sig.error().kind, Error::Kind::Mismatch);
  auto ec = ed25519_sign(dir / "ec.pem", "payload");
  ASSERT_FALSE(ec.ok());
  EXPECT_EQ(ec.error().kind, Error::Kind::Input);
  EXPECT_NE(ec.error().message.find("ec.pem: not an Ed25519 private key"), std::string::npos) << ec.error().message;
  auto pub_as_private = ed25519_sign(dir / "pub.pem", "payload");
  ASSERT_FALSE(pub_as_private.ok());
  EXPECT_NE(pub_as_private.error().message.find("pub.pem: not a PEM private key"), std::string::npos);
  auto missing = ed25519_verify(dir / "nope.pem", "payload", *sig);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, Error::Kind::Input);
  EXPECT_NE(missing.error().message.find("nope.pem: cannot open"), std::string::npos);
}

}  // namespace
}  // namespace failmap
