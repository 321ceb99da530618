// The progress bar's text (src/cli/progress_bar.h): hand-computed lines.
#include <gtest/gtest.h>

#include <cstdio>

#include "cli/progress_bar.h"

using failmap::cli::format_progress_line;
using failmap::cli::group_thousands;
using failmap::cli::Progress;

TEST(Progress, GroupsThousands) {
  EXPECT_EQ(group_thousands(0), "0");
  EXPECT_EQ(group_thousands(999), "999");
  EXPECT_EQ(group_thousands(1000), "1,000");
  EXPECT_EQ(group_thousands(1234567), "1,234,567");
}

TEST(Progress, KnownTotalShowsBarCountRateAndEta) {
  // 250 of 1,000 in 2 s: 125/s, 750 left -> 6 s.
  EXPECT_EQ(format_progress_line("run --all", 250, 1000, 2.0),
            "run --all [######..................]  250/1,000  25%  125/s  ETA 0:06");
  EXPECT_EQ(format_progress_line("x", 0, 10, 0.0), "x [........................]  0/10  0%");
  EXPECT_EQ(format_progress_line("x", 10, 10, 1.0), "x [########################]  10/10  100%  10/s  ETA 0:00");
  // 1 of 100,000 per second: about 27 h 46 min 39 s left.
  EXPECT_EQ(format_progress_line("x", 1, 100000, 1.0),
            "x [........................]  1/100,000  0%  1/s  ETA 27:46:39");
}

TEST(Progress, UnknownTotalShowsCountAndRate) {
  EXPECT_EQ(format_progress_line("reading", 12345, std::nullopt, 0.5), "reading 12,345  24,690/s");
}

TEST(Progress, DisabledDrawsNothing) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    Progress p(f, false, "x", 10);
    for (int i = 0; i < 100000; ++i) p.advance();
    EXPECT_EQ(p.done(), 100000u);
  }
  EXPECT_EQ(std::ftell(f), 0);
  std::fclose(f);
}
