// Progress lines of long stages (common/progress.h): the text with its estimate, redrawn in place
// on a terminal, throttled to one line per interval elsewhere, and always a line at the end.
#include <gtest/gtest.h>

#include <thread>

#include "common/progress.h"

namespace {

TEST(Progress, TextGivesTheShareAndAnEstimateOfTheTimeLeft) {
  EXPECT_EQ(kaudit::progress_text("compile", 0, 4000, 0), "compile: 0/4000 (0%)");
  EXPECT_EQ(kaudit::progress_text("compile", 1000, 4000, 10), "compile: 1000/4000 (25%), about 30 s left");
  EXPECT_EQ(kaudit::progress_text("compile", 1000, 4000, 100), "compile: 1000/4000 (25%), about 5 min left");
  EXPECT_EQ(kaudit::progress_text("compile", 4000, 4000, 400), "compile: 4000/4000 (100%)");
  EXPECT_EQ(kaudit::progress_text("generate", 0, 0, 0), "generate: 0/0 (100%)");
}

TEST(Progress, ATerminalRedrawsEveryUpdateALogGetsALinePerIntervalAndTheEnd) {
  std::vector<std::pair<std::string, bool>> tty_lines, log_lines;
  kaudit::StageProgress tty([&](const std::string& t, bool in_place) { tty_lines.emplace_back(t, in_place); }, true);
  kaudit::StageProgress log([&](const std::string& t, bool in_place) { log_lines.emplace_back(t, in_place); }, false, 0.05);
  for (std::size_t done = 0; done <= 10; ++done) {
    tty.update("compile", done, 10);
    log.update("compile", done, 10);
  }
  ASSERT_EQ(tty_lines.size(), 11u);
  EXPECT_TRUE(tty_lines[5].second);
  EXPECT_FALSE(tty_lines.back().second);  // the end goes on a line of its own
  ASSERT_EQ(log_lines.size(), 1u);        // all within the interval: the end only
  EXPECT_EQ(log_lines[0].first, "compile: 10/10 (100%)");
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  log.update("compile", 10, 20);  // same stage, past the interval: a line
  log.update("compile", 11, 20);  // within it again: none
  ASSERT_EQ(log_lines.size(), 2u);
  EXPECT_NE(log_lines[1].first.find("10/20"), std::string::npos);
}

}  // namespace
