// Which --listen hosts `failmap serve` takes without a token
// (src/serve/service.h is_loopback_host): every address the host stands for
// must be a loopback one (RFC 4291 2.5.3 and 2.5.5.2 for IPv6).
#include <gtest/gtest.h>

#include "serve/service.h"

namespace failmap::serve {
namespace {

TEST(ServeListen, NumericLoopbackAddressesAreLoopback) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.255.3.4"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_TRUE(is_loopback_host("::ffff:127.0.0.1"));
}

TEST(ServeListen, EveryOtherAddressIsNot) {
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("::"));
  EXPECT_FALSE(is_loopback_host("[::]"));
  EXPECT_FALSE(is_loopback_host("128.0.0.1"));
  EXPECT_FALSE(is_loopback_host("10.0.0.1"));
  EXPECT_FALSE(is_loopback_host("::ffff:10.0.0.1"));
  EXPECT_FALSE(is_loopback_host("::2"));
  EXPECT_FALSE(is_loopback_host(""));
  EXPECT_FALSE(is_loopback_host("[]"));
  // A name that does not resolve (RFC 6761 6.4: .invalid never does).
  EXPECT_FALSE(is_loopback_host("failmap-test.invalid"));
}

}  // namespace
}  // namespace failmap::serve
