#include "course/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace course {

namespace {
std::string duration_text(double s) {
  char text[32];
  if (!(s >= 0) || s > 359999) return "--:--";
  const int total = static_cast<int>(s + 0.5);
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%02d:%02d", total / 60, total % 60);
  return text;
}
}  // namespace

ProgressBar::ProgressBar(std::string label, long total, std::string unit, std::FILE* out, double plain_every_s)
    : label_(std::move(label)), unit_(std::move(unit)), total_(std::max(total, 1L)), out_(out),
      tty_(isatty(fileno(out)) != 0), plain_every_s_(plain_every_s), start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string ProgressBar::plain_line(long done, double elapsed_s, const std::string& status) const {
  std::string text = line(done, elapsed_s, status);
  const size_t open = text.find(" ["), close = text.find("] ");
  if (open != std::string::npos && close != std::string::npos && close > open) text.erase(open, close + 1 - open);
  return text;
}

std::string ProgressBar::line(long done, double elapsed_s, const std::string& status) const {
  done = std::min(std::max(done, 0L), total_);
  const double rate = elapsed_s > 0 ? done / elapsed_s : 0.0;
  const double eta = rate > 0 ? (total_ - done) / rate : -1.0;
  constexpr int width = 24;
  const int filled = static_cast<int>(done * width / total_);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(width, '.');
  char text[256];
  // The percent in integers: 29/100 is 29 %, where (29.0 / 100) * 100 would round down to 28.
  // Slow loops (a few items a second) keep one decimal: "0.5 it/s", not "0 it/s".
  std::snprintf(text, sizeof text, "%s [%s] %3d%% %ld/%ld %.*f %s/s elapsed %s eta %s", label_.c_str(),
                bar.c_str(), static_cast<int>(done * 100 / total_), done, total_, rate < 10 ? 1 : 0, rate,
                unit_.c_str(), duration_text(elapsed_s).c_str(), duration_text(eta).c_str());
  std::string result = text;
  if (!status.empty()) result += "  " + status;
  return result;
}

void ProgressBar::update(long done, const std::string& status) {
  if (finished_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (tty_) {
    if (now - last_draw_ < std::chrono::milliseconds(100) && done < total_) return;
    last_draw_ = now;
    std::fprintf(out_, "\r\033[K%s", line(done, elapsed, status).c_str());
  } else {
    const int decile = static_cast<int>(std::min(std::max(done, 0L), total_) * 10 / total_);
    if (decile == 10) return;  // 100 % is printed by finish()
    const bool quiet_too_long = std::chrono::duration<double>(now - last_draw_).count() >= plain_every_s_;
    if (decile <= last_decile_ && !quiet_too_long) return;
    last_decile_ = std::max(decile, last_decile_);
    last_draw_ = now;
    std::fprintf(out_, "%s\n", plain_line(done, elapsed, status).c_str());
  }
  std::fflush(out_);
}

void ProgressBar::finish(const std::string& status) {
  if (finished_) return;
  finished_ = true;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (tty_)
    std::fprintf(out_, "\r\033[K%s\n", line(total_, elapsed, status).c_str());
  else
    std::fprintf(out_, "%s\n", plain_line(total_, elapsed, status).c_str());
  std::fflush(out_);
}

}  // namespace course
