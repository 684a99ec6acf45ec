// Lesson 05's direct convolution as a benchmark entry (built when lesson 05 is configured):
// forward 05.1, input gradient 05.2 (a gather) and the race-free weight gradient 05.4.
#include <memory>

#include "bench_algorithm.hpp"
#include "conv_direct.hpp"
#include "course/device_buffer.hpp"

namespace im2col_bench {

Algorithm direct_algorithm(const host_layers::ConvShape& s) {
  auto workspace = std::make_shared<course::DeviceBuffer<float>>(conv_direct::conv2d_backward_weight_workspace(s));
  Algorithm a;
  a.name = "direct (05)";
  a.forward = [s](const float* x, const float* W, const float* b, float* y) {
    conv_direct::conv2d_forward(s, x, W, b, y);
  };
  a.backward = [s, workspace](const float* x, const float* W, const float* dy, float* dx, float* dW, float* db) {
    conv_direct::conv2d_backward_input(s, W, dy, dx);
    conv_direct::conv2d_backward_weight(s, x, dy, dW, db, workspace->data());
  };
  a.extra_bytes = workspace->bytes();
  return a;
}

}  // namespace im2col_bench
