// How `failmap serve` judges a request head's framing before it reads a body
// (src/serve/request.h framing_problem): RFC 9112 §6.1 and §6.3, and
// --max-body.
#include <gtest/gtest.h>

#include "serve/request.h"

namespace failmap::serve {
namespace {

int status_of(const std::vector<std::string>& lengths, bool chunked, std::uint64_t max_body) {
  auto p =
      framing_problem(lengths, chunked ? std::vector<std::string>{"chunked"} : std::vector<std::string>{}, max_body);
  return p ? p->status : 0;
}

TEST(ServeFraming, ALengthAboveTheLimitIsRefusedBeforeTheBody) {
  EXPECT_EQ(status_of({"1000"}, false, 1000), 0);
  EXPECT_EQ(status_of({"1001"}, false, 1000), 413);
  EXPECT_EQ(status_of({" 0001000 , 1000"}, false, 1000), 0);
  EXPECT_EQ(status_of({"1001", "01001"}, false, 1000), 413);
  // More digits than any 64-bit length.
  EXPECT_EQ(status_of({"99999999999999999999999"}, false, UINT64_MAX), 413);
  EXPECT_EQ(status_of({"18446744073709551615"}, false, UINT64_MAX), 0);
  auto p = framing_problem({"0123456"}, {}, 8);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->message,
            "the request body is larger than 8 bytes (--max-body; header 'Content-Length': 123456); split the batch");
}

TEST(ServeFraming, TransferEncodingBesideContentLengthIsRefused) {
  EXPECT_EQ(status_of({}, true, 10), 0);  // chunked alone: the body is counted as it is read
  EXPECT_EQ(status_of({"5"}, true, 10), 400);
  EXPECT_EQ(status_of({"0"}, true, 10), 400);
  auto p = framing_problem({"5"}, {"chunked"}, 10);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->message,
            "headers 'Transfer-Encoding' and 'Content-Length' together: a request is framed by one of them (RFC "
            "9112 §6.1)");
}

TEST(ServeFraming, ChunkedAloneIsTheTransferCodingUnderstood) {
  EXPECT_FALSE(framing_problem({}, {" Chunked "}, 0));
  for (std::vector<std::string> codings :
       std::vector<std::vector<std::string>>{{"gzip"}, {"gzip, chunked"}, {"chunked", "chunked"}, {"xyz"}, {""}}) {
    auto p = framing_problem({}, codings, 100);
    ASSERT_TRUE(p) << codings.front();
    EXPECT_EQ(p->status, 501) << codings.front();
  }
  EXPECT_EQ(framing_problem({}, {"gzip, chunked"}, 100)->message,
            "header 'Transfer-Encoding': 'gzip, chunked'; this server understands chunked alone (RFC 9112 §6.1)");
}

TEST(ServeFraming, AnInvalidContentLengthIsA400WhateverTheLimit) {
  EXPECT_EQ(status_of({"-5"}, false, 10), 400);
  EXPECT_EQ(status_of({"5", "6"}, true, 10), 400);
  EXPECT_EQ(status_of({"99999999999999999999999x"}, false, 10), 400);
  auto p = framing_problem({"+5"}, {}, 10);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->message, "header 'Content-Length': expected a length in decimal digits, got '+5' (RFC 9112 §6.3)");
  EXPECT_EQ(status_of({}, false, 0), 0);
}

}  // namespace
}  // namespace failmap::serve

namespace failmap::serve {
namespace {

int coding_status(const std::vector<std::string>& codings) {
  auto p = content_coding_problem(codings);
  return p ? p->status : 0;
}

TEST(ServeFraming, OnlyBodiesInACodingTheLibraryDecodesAreRead) {
  EXPECT_EQ(coding_status({}), 0);
  EXPECT_EQ(coding_status({"gzip"}), 0);
  EXPECT_EQ(coding_status({"deflate"}), 0);
  EXPECT_EQ(coding_status({"br"}), 0);
  EXPECT_EQ(coding_status({"identity"}), 0);
  EXPECT_EQ(coding_status({" gzip "}), 0);
  // Passed on undecoded by the library: refused before the body is read.
  EXPECT_EQ(coding_status({"zstd"}), 415);
  EXPECT_EQ(coding_status({"GZIP"}), 415);
  EXPECT_EQ(coding_status({"gzip, gzip"}), 415);
  EXPECT_EQ(coding_status({"identity, gzip"}), 415);
  EXPECT_EQ(coding_status({"gzip", "gzip"}), 415);
  EXPECT_EQ(coding_status({""}), 415);
  auto p = content_coding_problem({"zstd"});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->message,
            "header 'Content-Encoding': 'zstd'; this server decodes one coding, named in lower case: gzip, deflate, br "
            "or identity");
}

}  // namespace
}  // namespace failmap::serve
