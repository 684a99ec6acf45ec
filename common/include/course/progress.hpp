#pragma once
// ProgressBar for long loops: percent, rate, ETA and a status text.
// On a terminal it redraws one line (at most 10 times a second); when stdout is
// not a terminal (a log, CI) it prints a plain line every 10 % instead.
#include <chrono>
#include <cstdio>
#include <string>

namespace course {

class ProgressBar {
 public:
  // total: number of items (e.g. images in an epoch); unit: what they are called.
  ProgressBar(std::string label, long total, std::string unit = "it", std::FILE* out = stdout);
  void update(long done, const std::string& status = "");
  void finish(const std::string& status = "");
  // Format used by both modes; public so tests can check it.
  std::string line(long done, double elapsed_s, const std::string& status) const;

 private:
  std::string label_, unit_;
  long total_;
  std::FILE* out_;
  bool tty_;
  bool finished_ = false;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace course
