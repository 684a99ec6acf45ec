// Lesson 14, step 14.3 on the GPU: the shift kernel gives the contract's bits (the CPU's), at sizes
// below one block, odd ones and past one grid of the launcher; bad shapes refused before any launch.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "guarded_buffers.hpp"
#include "image_shift.hpp"
#include "speedrun.hpp"
#include "speedrun_references.hpp"

using namespace speedrun_test;
using course::DeviceBuffer;
using course::test::download_checked;
using course::test::guarded;
using course::test::poisoned;
using course::test::random_vector;
using course::test::still_poisoned;

namespace {

const std::string kFile = "exercises/shift.cu";

std::vector<float> run_gpu(const std::vector<float>& x, const ImageShape& s, uint64_t key,
                           cudaStream_t stream = nullptr) {
  DeviceBuffer<float> d_x = guarded(x), d_y = poisoned(s.size());
  CUDA_CHECK(cudaDeviceSynchronize());  // the copies done before a non-blocking stream starts
  speedrun::shift_images_gpu(d_x.data(), d_y.data(), s.batch, s.channels, s.height, s.width, s.max_shift, key, stream);
  return download_checked(d_y, s.size());
}

}  // namespace

TEST_CASE("shift_images_gpu gives the contract's bits at every size, past one grid", "[14.3]") {
  std::vector<ImageShape> shapes = shift_shapes();
  shapes.push_back({1, 1, 1, 4099, 0});   // one long row
  shapes.push_back({1100, 1, 28, 28, 2});  // 862,400 pixels: each thread of the capped grid takes 3 or 4
  shapes.push_back({7, 3, 28, 28, 0});    // max_shift 0: a copy
  uint64_t seed = 1541;
  for (const ImageShape& s : shapes)
    for (uint64_t step : {0, 5}) {
      ++seed;
      const uint64_t key = speedrun::shift_key(seed, step);
      CAPTURE(s.batch, s.channels, s.height, s.width, s.max_shift, key);
      const std::vector<float> x = random_vector(s.size(), seed);
      const std::vector<float> y = run_gpu(x, s, key);
      require_same_shift_bits(kFile, y, shift_expected(x, s, key), s, key);
      if (s.max_shift == 0) require_same_shift_bits(kFile + " (max_shift 0: a copy)", y, x, s, key);
    }
}

TEST_CASE("shift_images_gpu runs on its stream; nothing to move launches nothing; bad shapes are refused",
          "[14.3]") {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const ImageShape s{33, 3, 28, 28, 2};
  const uint64_t key = speedrun::shift_key(1551, 1);
  const std::vector<float> x = random_vector(s.size(), 1551);
  require_same_shift_bits(kFile + " (on a stream)", run_gpu(x, s, key, stream), shift_expected(x, s, key), s, key);
  REQUIRE_NOTHROW(speedrun::shift_images_gpu(nullptr, nullptr, 0, 3, 28, 28, 2, key, stream));
  REQUIRE_NOTHROW(speedrun::shift_images_gpu(nullptr, nullptr, 5, 0, 28, 28, 2, key, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));

  DeviceBuffer<float> d_x = guarded(random_vector(100, 1552)), d_y = poisoned(100);
  const ImageShape bad[] = {{-1, 1, 10, 10, 2}, {1, -1, 10, 10, 2}, {1, 1, 0, 10, 0},
                            {1, 1, 10, 0, 0},   {1, 1, 10, 10, -1}, {1, 1, 5, 3, 3}};
  for (const ImageShape& b : bad) {
    CAPTURE(b.batch, b.channels, b.height, b.width, b.max_shift);
    const std::string message = error_of([&] {
      speedrun::shift_images_gpu(d_x.data(), d_y.data(), b.batch, b.channels, b.height, b.width, b.max_shift, key);
    });
    INFO("message: '" << message << "'");
    REQUIRE(message.find("shift_images_gpu: ") == 0);
    REQUIRE(still_poisoned(d_y, 100));
  }
  CUDA_CHECK(cudaGetLastError());
}
