//===- ParseNumberTest.cpp - byte counts from command-line text -----------===//

#include "nova/Support/ParseNumber.h"

#include <gtest/gtest.h>

using nova::parseByteSize;

namespace {

TEST(ParseByteSize, PlainAndBinarySuffixes) {
  uint64_t b = 0;
  ASSERT_TRUE(parseByteSize("0", b));
  EXPECT_EQ(b, 0u);
  ASSERT_TRUE(parseByteSize("1000", b));
  EXPECT_EQ(b, 1000u);
  ASSERT_TRUE(parseByteSize("3KiB", b));
  EXPECT_EQ(b, 3u * 1024);
  ASSERT_TRUE(parseByteSize("7MiB", b));
  EXPECT_EQ(b, 7u * 1024 * 1024);
  ASSERT_TRUE(parseByteSize("12GiB", b));
  EXPECT_EQ(b, 12ull * 1024 * 1024 * 1024);
  ASSERT_TRUE(parseByteSize("18446744073709551615", b));
  EXPECT_EQ(b, UINT64_MAX);
}

TEST(ParseByteSize, RefusesEverythingElse) {
  uint64_t b = 42;
  for (const char *bad :
       {"", "GiB", "12GB", "12 GiB", "12gib", "1.5GiB", "-1", "-1KiB", "12G",
        "KiB12", "12GiBx", " 12", "18446744073709551616",
        // 2^34 GiB = 2^64 bytes
        "17179869184GiB"})
    EXPECT_FALSE(parseByteSize(bad, b)) << "'" << bad << "'";
  EXPECT_EQ(b, 42u); // untouched on failure
  EXPECT_TRUE(parseByteSize("17179869183GiB", b));
}

} // namespace
