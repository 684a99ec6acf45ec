// Lesson 05 (no exercise step): the read-only shape checks and 05.4's split of the rows. Host
// code only: nothing here touches the GPU (a bad shape throws before any launch).
#include <cstdint>
#include <vector>

#include "conv_direct.hpp"
#include "conv_test_support.hpp"

using namespace conv05;

TEST_CASE("a bad shape throws course::Error before any kernel runs", "[shape_checks]") {
  const std::vector<ConvShape> bad = {
      {0, 1, 5, 5, 1, 3, 3, 1, 0},   // batch 0
      {1, 0, 5, 5, 1, 3, 3, 1, 0},   // no input channels
      {1, 1, 5, 5, 0, 3, 3, 1, 0},   // no output channels
      {1, 1, 5, 5, 1, 0, 3, 1, 0},   // kernel height 0
      {1, 1, 5, 5, 1, 3, 3, 0, 0},   // stride 0
      {1, 1, 5, 5, 1, 3, 3, 1, -1},  // negative pad
      {1, 1, 2, 5, 1, 5, 3, 1, 1},   // 5-high kernel on a 2+2*1 = 4-high padded image
  };
  for (size_t k = 0; k < bad.size(); ++k) {
    const ConvShape& s = bad[k];
    INFO("bad shape #" << k);  // not describe(): out_h() divides by the stride, which may be 0
    REQUIRE_THROWS_AS(conv_direct::check_shape(s, "test"), course::Error);
    REQUIRE_THROWS_AS(conv_direct::conv2d_forward(s, nullptr, nullptr, nullptr, nullptr), course::Error);
    REQUIRE_THROWS_AS(conv_direct::conv2d_backward_input(s, nullptr, nullptr, nullptr), course::Error);
    REQUIRE_THROWS_AS(conv_direct::conv2d_backward_weight_atomic(s, nullptr, nullptr, nullptr, nullptr),
                      course::Error);
    REQUIRE_THROWS_AS(conv_direct::conv2d_backward_weight(s, nullptr, nullptr, nullptr, nullptr, nullptr),
                      course::Error);
  }
  const ConvShape good{2, 3, 9, 9, 4, 3, 3, 1, 1};
  REQUIRE_NOTHROW(conv_direct::check_shape(good, "test"));
  REQUIRE_THROWS_WITH(
      conv_direct::conv2d_backward_weight(good, nullptr, nullptr, nullptr, nullptr, nullptr),
      "conv2d_backward_weight: workspace is null (it needs conv2d_backward_weight_workspace(s) floats)");
}

TEST_CASE("05.4's chunks cover every output row once, and the workspace holds them", "[shape_checks]") {
  const std::vector<ConvCase> gpu_cases = conv_cases();  // what the GPU tests run
  std::vector<ConvCase> cases = gpu_cases;
  cases.push_back({"model A conv1, batch 128", {128, 1, 28, 28, 32, 5, 5, 1, 2}});
  cases.push_back({"model A conv2, batch 128", {128, 32, 14, 14, 64, 5, 5, 1, 2}});
  bool some_uneven = false, some_several_rows = false;
  for (size_t k = 0; k < cases.size(); ++k) {
    const ConvCase& c = cases[k];
    INFO(c.name << ": " << describe(c.s));
    const conv_direct::WeightGradSplit split = conv_direct::weight_grad_split(c.s);
    const int64_t rows = int64_t(c.s.batch) * c.s.out_h();
    CAPTURE(split.chunks, split.rows_per_chunk, rows);
    REQUIRE(split.chunks >= 1);
    REQUIRE(split.rows_per_chunk >= 1);
    REQUIRE(int64_t(split.chunks) * split.rows_per_chunk >= rows);        // every row is in a chunk
    REQUIRE(int64_t(split.chunks - 1) * split.rows_per_chunk < rows);     // and the last chunk is not empty
    REQUIRE(conv_direct::conv2d_backward_weight_workspace(c.s) ==
            size_t(split.chunks) * (c.s.weight_size() + size_t(c.s.out_channels)));
    if (k < gpu_cases.size()) {
      some_uneven |= int64_t(split.chunks) * split.rows_per_chunk != rows;
      some_several_rows |= split.rows_per_chunk > 1;
    }
  }
  // Make sure the GPU tests' shapes include a short last chunk and chunks of several rows, the
  // two cases a chunk-bounds mistake would show in.
  REQUIRE(some_uneven);
  REQUIRE(some_several_rows);
}
