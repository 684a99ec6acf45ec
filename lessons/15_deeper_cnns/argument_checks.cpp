// Lesson 15 (given): the argument checks of deeper_cnns.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "course/error.hpp"
#include "deeper_cnns.hpp"

namespace deeper_cnns {

void check_batch_norm_shape(const char* function, const BatchNormShape& s, bool training) {
  const std::string where = std::string(function) + ": ";
  if (s.batch < 1 || s.channels < 1 || s.height < 1 || s.width < 1)
    throw course::Error(where + "batch, channels, height and width must be >= 1, got " + std::to_string(s.batch) +
                        "x" + std::to_string(s.channels) + "x" + std::to_string(s.height) + "x" +
                        std::to_string(s.width));
  if (training && s.per_channel() < 2)
    throw course::Error(where + "training needs more than one value per channel (N*H*W = " +
                        std::to_string(s.per_channel()) + "): one value has no variance");
}

void check_batch_norm(const char* function, const BatchNormShape& s, double eps, double momentum, bool training) {
  check_batch_norm_shape(function, s, training);
  const std::string where = std::string(function) + ": ";
  if (!(eps > 0) || !std::isfinite(eps)) throw course::Error(where + "eps must be > 0, got " + std::to_string(eps));
  if (!(momentum >= 0 && momentum <= 1))
    throw course::Error(where + "momentum must be in [0, 1], got " + std::to_string(momentum));
}

void check_regression(const char* function, RegressionLoss kind, int batch, int outputs, double beta) {
  const std::string where = std::string(function) + ": ";
  if (batch < 1 || outputs < 1)
    throw course::Error(where + "batch and outputs must be >= 1, got " + std::to_string(batch) + " and " +
                        std::to_string(outputs));
  if (kind == RegressionLoss::smooth_l1 && (!(beta > 0) || !std::isfinite(beta)))
    throw course::Error(where + "smooth L1's beta must be > 0, got " + std::to_string(beta));
}

void check_pooling(const char* function, int batch, int channels, int plane) {
  if (batch < 1 || channels < 1 || plane < 1)
    throw course::Error(std::string(function) + ": batch, channels and plane (H*W) must be >= 1, got " +
                        std::to_string(batch) + ", " + std::to_string(channels) + ", " + std::to_string(plane));
}

BatchNormSlices batch_norm_slices(const BatchNormShape& s) {
  const int64_t plane = int64_t(s.height) * s.width;
  BatchNormSlices slices;
  // About kSliceValues values a slice, and at most 65535 slices (a grid's second dimension).
  const int64_t batch = std::max(s.batch, 1);
  const int64_t images = std::max((kSliceValues + plane - 1) / std::max<int64_t>(plane, 1), (batch + 65534) / 65535);
  slices.images = int(std::min(batch, images));
  slices.count = int((batch + slices.images - 1) / slices.images);
  return slices;
}

size_t batch_norm_wide_workspace_floats(const BatchNormShape& s) {
  return 3 * size_t(std::max(s.channels, 1)) * size_t(batch_norm_slices(s).count);
}

}  // namespace deeper_cnns
