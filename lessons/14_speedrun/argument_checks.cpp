// Lesson 14: the argument checks of 14.1-14.4 (given). The host functions, the GPU launchers and
// the trainer call the same check, so all of them refuse the same values with the same message.
// Every comparison is written so that NaN fails it: any comparison with NaN is false.
#include <cmath>
#include <string>

#include "course/error.hpp"
#include "course/number_text.hpp"
#include "speedrun.hpp"

namespace speedrun {

namespace {

[[noreturn]] void refuse(const char* function, const std::string& what) {
  throw course::Error(std::string(function) + ": " + what);
}

}  // namespace

void check_one_cycle(const char* function, int step, int total_steps, int warmup_steps, float peak_lr) {
  if (total_steps < 1) refuse(function, "total_steps must be >= 1, got " + std::to_string(total_steps));
  const std::string range = "[0, total_steps) = [0, " + std::to_string(total_steps) + ")";
  if (warmup_steps < 0 || warmup_steps >= total_steps)
    refuse(function, "warmup_steps must be in " + range + ", got " + std::to_string(warmup_steps));
  if (!(peak_lr > 0.0f && std::isfinite(peak_lr)))
    refuse(function, "the peak learning rate peak_lr must be > 0 and finite, got " + course::shortest_text(peak_lr));
  if (step < 0 || step >= total_steps) refuse(function, "step must be in " + range + ", got " + std::to_string(step));
}

void check_smoothing(const char* function, int batch, int classes, float smoothing) {
  if (!(smoothing >= 0.0f && smoothing < 1.0f))
    refuse(function, "the label smoothing must be in [0, 1), got " + course::shortest_text(smoothing));
  if (classes < 1) refuse(function, "classes must be >= 1, got " + std::to_string(classes));
  if (batch < 0) refuse(function, "batch must be >= 0, got " + std::to_string(batch));
}

void check_shift(const char* function, int batch, int channels, int height, int width, int max_shift) {
  if (batch < 0) refuse(function, "batch must be >= 0, got " + std::to_string(batch));
  if (channels < 0) refuse(function, "channels must be >= 0, got " + std::to_string(channels));
  if (height < 1) refuse(function, "height must be >= 1, got " + std::to_string(height));
  if (width < 1) refuse(function, "width must be >= 1, got " + std::to_string(width));
  const int smaller_side = height < width ? height : width;
  if (max_shift < 0 || max_shift >= smaller_side)
    refuse(function, "max_shift must be in [0, min(height, width)) = [0, " + std::to_string(smaller_side) +
                         "), got " + std::to_string(max_shift));
}

namespace {
void check_momentum_decay(const char* function, float momentum, float weight_decay) {
  if (!(momentum >= 0.0f && momentum < 1.0f))
    refuse(function, "momentum must be in [0, 1), got " + course::shortest_text(momentum));
  if (!(weight_decay >= 0.0f))
    refuse(function, "weight_decay must be >= 0, got " + course::shortest_text(weight_decay));
}
}  // namespace

void check_nesterov(const char* function, float lr, float momentum, float weight_decay) {
  if (!(lr > 0.0f)) refuse(function, "the learning rate lr must be > 0, got " + course::shortest_text(lr));
  check_momentum_decay(function, momentum, weight_decay);
}

void check_nesterov_gpu(const char* function, const float* lr, size_t n, float momentum, float weight_decay) {
  if (n > 0 && lr == nullptr) refuse(function, "lr must point to the rate in device memory, got null");
  check_momentum_decay(function, momentum, weight_decay);
}

}  // namespace speedrun
