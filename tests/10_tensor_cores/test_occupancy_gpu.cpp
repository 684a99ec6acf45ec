// Lesson 10, step 10.9 on the GPU: blocks_per_sm on sm_limits() agrees with the CUDA runtime's own
// occupancy count; and what it decides (10.6's parts, 10.7's images a block) changes no result:
// 10.6's outputs are the same bits for every split, 10.7's stay within BF16's bound for every
// number of images a block, and the trainer's choices run in one wave.
#include <cstdint>
#include <vector>

#include <cmath>

#include "conv_bound.hpp"
#include "exact_checks.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "occupancy_probe.hpp"
#include "tensor_cores.hpp"

using namespace conv_bound;

TEST_CASE("blocks_per_sm on this GPU's limits equals the CUDA runtime's occupancy", "[10.9]") {
  const tensor_cores::SmLimits sm = tensor_cores::sm_limits();
  REQUIRE(sm.sms > 0);
  for (int kernel : {0, 1})
    for (int threads : {32, 96, 128, 256, 512, 1024})
      for (size_t dynamic : {size_t(0), size_t(4096), size_t(20000), size_t(45666), size_t(100000), size_t(150000)}) {
        const occupancy_probe::Probe p = occupancy_probe::probe(kernel, threads, dynamic);
        CAPTURE(kernel, threads, dynamic, p.registers_per_thread, p.static_shared);
        CHECK(tensor_cores::blocks_per_sm(sm, {threads, p.registers_per_thread, dynamic + p.static_shared}) ==
              p.runtime_blocks);
      }
}

namespace {
std::vector<float> random_values(size_t n, uint64_t seed) { return course::test::random_vector(n, seed); }
}  // namespace

TEST_CASE("10.6 split into parts gives the same bits as one block an image", "[10.9]") {
  // conv2 at batch 5 (splits up to 8 parts), 16 -> 48 channels (1, 2), 48 -> 32 (1, 2, 4).
  uint64_t seed = 1900;
  for (const ConvShape& s : {shape(5, 32, 14, 14, 64, 5, 2, 1), shape(3, 16, 9, 7, 48, 3, 1, 1),
                             shape(2, 48, 5, 6, 32, 3, 0, 1)}) {
    CAPTURE(s.batch, s.in_channels, s.out_channels);
    const std::vector<float> x = random_values(s.input_size(), seed += 10), W = random_values(s.weight_size(), ++seed),
                             b = random_values(size_t(s.out_channels), ++seed),
                             dy = random_values(s.output_size(), ++seed);
    DeviceBuffer<float> dx_in(x), dW(W), db(b), ddy(dy), y(s.output_size()), dx(s.input_size());
    DeviceBuffer<uint16_t> w16(tensor_cores::conv_mma_tiled_weights_size(s));
    tensor_cores::conv_mma_tiled_weights(s, dW.data(), w16.data());
    auto run = [&](int parts, bool backward) {
      DeviceBuffer<float>& out = backward ? dx : y;
      CUDA_CHECK(cudaMemset(out.data(), 0xff, out.size() * sizeof(float)));  // NaN: every output must be written
      if (backward)
        tensor_cores::conv2d_backward_data_mma_tiled(s, w16.data(), ddy.data(), dx.data(), nullptr, parts);
      else
        tensor_cores::conv2d_forward_mma_tiled(s, dx_in.data(), w16.data(), db.data(), y.data(), nullptr, parts);
      CUDA_CHECK(cudaDeviceSynchronize());
      return download(out.data(), out.size());
    };
    for (bool backward : {false, true}) {
      const std::vector<float> whole = run(1, backward);
      size_t unwritten = 0;
      for (float v : whole) unwritten += std::isnan(v) ? 1 : 0;
      REQUIRE(unwritten == 0);
      const int O = backward ? s.in_channels : s.out_channels;
      for (int parts = 2; O % (8 * parts) == 0; parts *= 2) {
        CAPTURE(backward, parts);
        const std::vector<float> split = run(parts, backward);
        REQUIRE(course::test::first_bit_difference(split, whole) == -1);
      }
      const int chosen = tensor_cores::conv_mma_tiled_parts(s, backward);
      CHECK(chosen >= 1);
      CHECK(O % (8 * chosen) == 0);
    }
    for (int bad : {0, 5})  // none of these channel counts splits into 5 parts of a multiple of 8
      REQUIRE_THROWS_AS(
          tensor_cores::conv2d_forward_mma_tiled(s, dx_in.data(), w16.data(), db.data(), y.data(), nullptr, bad),
          course::Error);
  }
}

TEST_CASE("10.7 with 1, 2, 3 and the chosen number of images a block stays within BF16's bound", "[10.9]") {
  uint64_t seed = 1950;
  // model A's conv2 (two sets of blocks), and 28 x 28 at 16 channels (two pieces of an image, each in
  // bands): an odd number of images, so the last group is short.
  for (const ConvShape& s : {shape(7, 32, 14, 14, 64, 5, 2, 1), shape(5, 16, 28, 28, 16, 3, 1, 1)}) {
    const int chosen = tensor_cores::conv_mma_weight_images_per_block(s);
    CHECK(chosen >= 1);
    for (int images : {1, 2, 3, chosen}) {
      CAPTURE(s.height, images);
      DeviceBuffer<float> work(tensor_cores::conv_mma_weight_workspace_floats(s, images));
      CUDA_CHECK(cudaMemset(work.data(), 0xff, work.size() * sizeof(float)));
      weight_case(s, seed += 10, [&](const ConvShape& s, const float* x, const float* dy, float* dW, float* db) {
        tensor_cores::conv2d_backward_weight_mma(s, x, dy, dW, db, work.data(), nullptr, images);
      }, "conv2d_backward_weight_mma", kBf16, 0.0);
    }
    REQUIRE_THROWS_AS(tensor_cores::conv_mma_weight_workspace_floats(s, 0), course::Error);
  }
}

TEST_CASE("the splits for model A's conv2 at batch 128 run in one wave", "[10.9]") {
  const ConvShape conv2 = shape(128, 32, 14, 14, 64, 5, 2, 1);
  const tensor_cores::SmLimits sm = tensor_cores::sm_limits();
  for (bool backward : {false, true}) {
    const int parts = tensor_cores::conv_mma_tiled_parts(conv2, backward);
    CAPTURE(backward, parts, sm.sms);
    CHECK(parts >= 1);
    if (parts > 1) CHECK(conv2.batch * parts <= 32 * sm.sms);
  }
  const int images = tensor_cores::conv_mma_weight_images_per_block(conv2);
  CHECK(images >= 1);
  CHECK(images <= conv2.batch);
}
