#pragma once
// Launch helpers shared by the lesson's kernels (included by .cu files only; read-only).
#include <climits>
#include <cstdint>
#include <string>

#include "conv_direct.hpp"
#include "course/error.hpp"

namespace conv_direct {

constexpr int kThreads = 256;

// A convolution's sizes as plain ints a kernel can take by value (ConvShape's out_h() and
// out_w() are host functions). Names as in the formulas: x [N, C, H, W], W [O, C, KH, KW],
// y [N, O, OH, OW].
struct Dims {
  int N, C, H, W, O, OH, OW, KH, KW, stride, pad;
};
inline Dims dims_of(const ConvShape& s) {
  return {s.batch,    s.in_channels, s.height,   s.width,  s.out_channels, s.out_h(),
          s.out_w(),  s.kernel_h,    s.kernel_w, s.stride, s.pad};
}

// Blocks for one thread per item: ceil(items / kThreads). Every kernel of this lesson gives each
// thread exactly one item, so a thread whose index is past the end must return at once.
inline unsigned blocks_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads;
  if (blocks > INT_MAX)
    throw course::Error("conv_direct: " + std::to_string(items) + " threads needed, more than one grid holds");
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}

}  // namespace conv_direct
