// Shape checks and the split of 05.4's reduction (read-only): a bad shape is a clear error,
// never an out-of-bounds kernel.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "conv_direct.hpp"
#include "course/arithmetic.hpp"
#include "course/error.hpp"

namespace conv_direct {

namespace {

// 05.4 wants about this many threads in its first kernel: an H100 keeps 132 SMs x 2048 =
// 270,336 threads resident, so 2^18 fills it about once. A constant, not a device query, so
// the split (and with it every bit of the result) is the same on every GPU.
constexpr int64_t kTargetThreads = int64_t(1) << 18;
// The second kernel adds the chunks one after another for each entry: a cap keeps that loop
// (and the workspace) short.
constexpr int64_t kMaxChunks = 256;

}  // namespace

void check_shape(const ConvShape& s, const char* function) {
  const std::string where = std::string(function) + ": ";
  if (s.batch < 1 || s.in_channels < 1 || s.out_channels < 1 || s.height < 1 || s.width < 1)
    throw course::Error(where + "batch, channels, height and width must be >= 1, got batch " +
                        std::to_string(s.batch) + ", channels " + std::to_string(s.in_channels) + " -> " +
                        std::to_string(s.out_channels) + ", image " + std::to_string(s.height) + "x" +
                        std::to_string(s.width));
  if (s.kernel_h < 1 || s.kernel_w < 1 || s.stride < 1 || s.pad < 0)
    throw course::Error(where + "kernel and stride must be >= 1 and pad >= 0, got kernel " +
                        std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) + ", stride " +
                        std::to_string(s.stride) + ", pad " + std::to_string(s.pad));
  // Keeps every int in the kernels (H + 2*pad, N*OH, ...) far from overflow.
  const int64_t largest = std::max({s.height, s.width, s.kernel_h, s.kernel_w, s.stride, s.pad});
  if (largest > (1 << 20))
    throw course::Error(where + "a size or the pad above 2^20 (" + std::to_string(largest) + ")");
  if (int64_t(s.height) + 2 * s.pad < s.kernel_h || int64_t(s.width) + 2 * s.pad < s.kernel_w)
    throw course::Error(where + "a " + std::to_string(s.kernel_h) + "x" + std::to_string(s.kernel_w) +
                        " kernel does not fit the padded " + std::to_string(s.height + 2 * s.pad) + "x" +
                        std::to_string(s.width + 2 * s.pad) + " image");
  if (int64_t(s.batch) * s.out_h() > INT_MAX)
    throw course::Error(where + "batch * out_h = " + std::to_string(int64_t(s.batch) * s.out_h()) +
                        " output rows: more than an int can count");
}

WeightGradSplit weight_grad_split(const ConvShape& s) {
  check_shape(s, "weight_grad_split");
  const int64_t rows = int64_t(s.batch) * s.out_h();
  const int64_t entries = static_cast<int64_t>(gradient_entries(s));
  const int64_t wanted = std::clamp<int64_t>(course::ceil_div(kTargetThreads, entries), 1, std::min(rows, kMaxChunks));
  WeightGradSplit split;
  split.rows_per_chunk = static_cast<int>(course::ceil_div(rows, wanted));
  split.chunks = static_cast<int>(course::ceil_div(rows, int64_t(split.rows_per_chunk)));
  return split;
}

size_t conv2d_backward_weight_workspace(const ConvShape& s) {
  return size_t(weight_grad_split(s).chunks) * gradient_entries(s);
}

}  // namespace conv_direct
