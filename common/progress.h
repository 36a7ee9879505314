// Progress of a long stage (the mutate stage: NVRTC compiles of thousands of mutants take
// minutes cold): "compile: 1200/4112 (29%), about 6 min left". On a terminal the line is redrawn in
// place at every update; elsewhere (logs, CI) a plain line at most every `interval` seconds and at
// the end, so a log is not flooded.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kaudit {

// "STAGE: DONE/TOTAL (P%), about T left" (no estimate before anything is done or once all is).
std::string progress_text(std::string_view stage, std::size_t done, std::size_t total, double elapsed_seconds);

class StageProgress {
 public:
  // `emit(text, in_place)`: in_place asks for a redraw of the current line (a terminal).
  StageProgress(std::function<void(const std::string& text, bool in_place)> emit, bool terminal, double interval_seconds = 30);
  void update(std::string_view stage, std::size_t done, std::size_t total);

 private:
  std::function<void(const std::string&, bool)> emit_;
  bool terminal_;
  double interval_;
  std::string stage_;
  std::chrono::steady_clock::time_point stage_start_, last_line_;
};

}  // namespace kaudit
