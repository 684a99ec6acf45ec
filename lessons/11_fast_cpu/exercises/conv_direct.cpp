// Lesson 11, steps 11.5 and 11.6: thin convolutions computed directly. YOUR FILE.
// Layouts are lesson 01's: x [N, C, H, W], W [O, C, kh, kw], y and dy [N, O, OH, OW].
// Uncomment the parameter names when you write a function. Helpers you write for 11.5 (a padded
// copy of an image, where each tap reads) go above conv2d_direct_forward; 11.6 may use them.
#include <algorithm>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

// TODO(11.5): y = lesson 01's conv2d_forward, without im2col. Split the images over threads with
// parallel_ranges(threads, s.batch, ...). Give the compiler a loop it can vectorise: a fixed
// number (say 16) of neighbouring output columns summed side by side, each over the taps
// (c, i, j), reading a zero-padded copy of the image so that no lane needs a bounds test.
void conv2d_direct_forward(const ConvShape& /*s*/, const float* /*x*/, const float* /*W*/, const float* /*bias*/,
                           float* /*y*/, int /*threads*/) {
  course::todo("11.5", "conv2d_direct_forward (16 output columns at a time)");
}

// TODO(11.6): dW and dbias (overwritten), split by output channel; each is a long sum over
// images and positions: keep 16 partial sums per tap, one per output column of a chunk, and add
// them up in a fixed order at the end. dx only when input_grad (else dx is not touched and may
// be null), split by image. The results must not depend on `threads`.
void conv2d_direct_backward(const ConvShape& /*s*/, const float* /*x*/, const float* /*W*/, const float* /*dy*/,
                            float* /*dx*/, float* /*dW*/, float* /*dbias*/, int /*threads*/, bool /*input_grad*/) {
  course::todo("11.6", "conv2d_direct_backward (dW and dbias by output channel, dx by image)");
}

}  // namespace fast_cpu
