#pragma once
// ProgressBar for long loops: percent, rate, ETA and a status text.
// On a terminal it redraws one line (at most 10 times a second); when the output is
// not a terminal (a file, a pipe, CI) it prints a plain line, without the bar, every 10 %
// and whenever `plain_every_s` seconds have passed since the last one, so a log never
// goes quiet for long.
#include <chrono>
#include <cstdio>
#include <string>

namespace course {

class ProgressBar {
 public:
  // total: number of items (e.g. images in an epoch); unit: what they are called.
  ProgressBar(std::string label, long total, std::string unit = "it", std::FILE* out = stdout,
              double plain_every_s = 5.0);
  void update(long done, const std::string& status = "");
  void finish(const std::string& status = "");
  // Format used by both modes; public so tests can check it.
  std::string line(long done, double elapsed_s, const std::string& status) const;
  // The same without the bar: what a file or a pipe gets.
  std::string plain_line(long done, double elapsed_s, const std::string& status) const;

 private:
  std::string label_, unit_;
  long total_;
  std::FILE* out_;
  bool tty_;
  double plain_every_s_;
  bool finished_ = false;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace course
