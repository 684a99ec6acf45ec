// Lesson 06, not an exercise: the benchmark's scatter-style backward passes (naive_scatter.hpp)
// give lesson 01's dx too, and every launcher turns a bad shape into a clear error.
#include <string>

#include "naive_scatter.hpp"
#include "pooling_test_support.hpp"

using namespace l06;
using course::test::random_vector;

TEST_CASE("scatter backward passes (atomicAdd, host loop) equal lesson 01's dx", "[06.scatter]") {
  uint64_t seed = 6400;
  for (const PoolShape& s : test_shapes()) {
    ++seed;
    COURSE_INPUT_SEED(seed);
    INFO(describe(s));
    const std::vector<float> x = three_levels(s.input_size(), seed);  // ties too
    const std::vector<float> dy = random_vector(s.output_size(), seed + 1);
    const Reference ref = reference(s, x, dy);
    DeviceData d(s, x, dy);
    d.argmax.upload(ref.argmax);
    d.dx.poison();
    pooling::maxpool_backward_scatter_atomic(s, d.argmax.data(), d.dy.data(), d.dx.data());
    REQUIRE_ALL_CLOSE(d.dx.to_host(), ref.dx, dx_atol(s, 1.0), 0.0);  // atomics: any order, see dx_atol
    d.dx.poison();
    pooling::maxpool_backward_scatter_host_loop(s, d.argmax.data(), d.dy.data(), d.dx.data());
    REQUIRE_ALL_CLOSE(d.dx.to_host(), ref.dx, dx_atol(s, 1.0), 0.0);  // order of window offsets
  }
}

TEST_CASE("bad pooling shapes are a clear error, not a kernel launch", "[06.shapes]") {
  // {batch, channels, height, width, window, stride}
  const PoolShape bad[] = {
      {1, 1, 4, 4, 0, 1},  // window 0
      {1, 1, 4, 4, 2, 0},  // stride 0
      {1, 1, 4, 1, 2, 2},  // window wider than the image
      {0, 1, 4, 4, 2, 2},  // empty batch
      {2, 1, 40000, 40000, 2, 2},  // 3.2e9 inputs: past an int index
  };
  for (const PoolShape& s : bad) {
    INFO(describe(s));
    std::string message;
    try {
      pooling::check_shape(s, "maxpool_test");
    } catch (const course::Error& e) {
      message = e.what();
    }
    INFO("error message: '" << message << "'");
    CHECK(message.rfind("maxpool_test: ", 0) == 0);
    // The launchers check before touching the (here null) pointers.
    CHECK_THROWS_AS(pooling::maxpool_forward_argmax(s, nullptr, nullptr, nullptr), course::Error);
    CHECK_THROWS_AS(pooling::maxpool_backward_recompute(s, nullptr, nullptr, nullptr), course::Error);
    CHECK_THROWS_AS(pooling::maxpool_backward_mask(s, nullptr, nullptr, nullptr), course::Error);
  }
}
