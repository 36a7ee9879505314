#include "common/progress.h"

#include <cmath>
#include <cstdio>

namespace kaudit {

std::string progress_text(std::string_view stage, std::size_t done, std::size_t total, double elapsed_seconds) {
  char buf[160];
  const double pct = total ? 100.0 * double(done) / double(total) : 100.0;
  std::snprintf(buf, sizeof buf, "%.*s: %zu/%zu (%.0f%%)", static_cast<int>(stage.size()), stage.data(), done, total, pct);
  std::string text = buf;
  if (done > 0 && done < total && elapsed_seconds > 0) {
    const double left = elapsed_seconds * double(total - done) / double(done);
    if (left < 90) std::snprintf(buf, sizeof buf, ", about %.0f s left", std::ceil(left));
    else std::snprintf(buf, sizeof buf, ", about %.0f min left", std::ceil(left / 60));
    text += buf;
  }
  return text;
}

StageProgress::StageProgress(std::function<void(const std::string&, bool)> emit, bool terminal, double interval_seconds)
    : emit_(std::move(emit)), terminal_(terminal), interval_(interval_seconds) {}

void StageProgress::update(std::string_view stage, std::size_t done, std::size_t total) {
  const auto now = std::chrono::steady_clock::now();
  if (stage != stage_) {  // a new stage starts its own clock
    stage_ = std::string(stage);
    stage_start_ = last_line_ = now;
  }
  const double elapsed = std::chrono::duration<double>(now - stage_start_).count();
  const bool finished = done >= total;
  if (terminal_) {
    emit_(progress_text(stage, done, total, elapsed), !finished);
    return;
  }
  if (finished || std::chrono::duration<double>(now - last_line_).count() >= interval_) {
    emit_(progress_text(stage, done, total, elapsed), false);
    last_line_ = now;
  }
}

}  // namespace kaudit
