// Lesson 14, step 14.3 on the CPU: shift_images gives the contract's bits (each image moved by its
// own example_shift, zeros where nothing moved in), max_shift 0 copies, bad shapes are refused.
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "course_test.hpp"
#include "image_shift.hpp"
#include "speedrun.hpp"
#include "speedrun_references.hpp"

using namespace speedrun_test;
using course::test::nan_vector;
using course::test::random_vector;

namespace {

const std::string kFile = "exercises/shift.cpp";

std::vector<float> run(const std::vector<float>& x, const ImageShape& s, uint64_t key) {
  std::vector<float> y = nan_vector(s.size());
  speedrun::shift_images(x.data(), y.data(), s.batch, s.channels, s.height, s.width, s.max_shift, key);
  return y;
}

// Whether image b of y is image b of x moved by (dy, dx) with zeros where nothing moved in.
bool is_moved_copy(const std::vector<float>& x, const std::vector<float>& y, const ImageShape& s, int b, int dy,
                   int dx) {
  for (int c = 0; c < s.channels; ++c)
    for (int i = 0; i < s.height; ++i)
      for (int j = 0; j < s.width; ++j) {
        const size_t plane = (size_t(b) * s.channels + c) * s.height;
        const int si = i - dy, sj = j - dx;
        const float want =
            si >= 0 && si < s.height && sj >= 0 && sj < s.width ? x[(plane + si) * s.width + sj] : 0.0f;
        if (y[(plane + i) * s.width + j] != want) return false;
      }
  return true;
}

}  // namespace

TEST_CASE("shift_images gives the contract's bits: each image moved by its example_shift, zeros elsewhere",
          "[14.3]") {
  uint64_t seed = 1501;
  for (const ImageShape& s : shift_shapes())
    for (uint64_t step : {0, 1, 77}) {
      ++seed;
      const uint64_t key = speedrun::shift_key(seed, step);
      CAPTURE(s.batch, s.channels, s.height, s.width, s.max_shift, key);
      const std::vector<float> x = random_vector(s.size(), seed);
      require_same_shift_bits(kFile, run(x, s, key), shift_expected(x, s, key), s, key);
    }
}

TEST_CASE("shift_images moves image b by example_shift(key, b, max_shift), the same for all its channels",
          "[14.3]") {
  // Every pixel a different positive number, so only one (dy, dx) can explain an output image.
  const ImageShape s{64, 2, 9, 11, 3};
  std::vector<float> x(s.size());
  for (size_t e = 0; e < x.size(); ++e) x[e] = 1.0f + float(e);
  const uint64_t key = speedrun::shift_key(1511, 4);
  const std::vector<float> y = run(x, s, key);
  std::set<std::pair<int, int>> drawn;
  for (int b = 0; b < s.batch; ++b) {
    const speedrun::Shift want = speedrun::example_shift(key, uint64_t(b), s.max_shift);
    drawn.insert({want.dy, want.dx});
    std::string found = "no (dy, dx) in -3..3: not a moved copy of x[b] with zeros where nothing moved in";
    for (int dy = -s.max_shift; dy <= s.max_shift; ++dy)
      for (int dx = -s.max_shift; dx <= s.max_shift; ++dx)
        if (is_moved_copy(x, y, s, b, dy, dx))
          found = "(dy, dx) = (" + std::to_string(dy) + ", " + std::to_string(dx) + ")";
    INFO(kFile << ": image " << b << " moved by " << found << "; example_shift(key, " << b << ", 3) is (dy, dx) = ("
               << want.dy << ", " << want.dx << "): y[i][j] = x[i - dy][j - dx], dy rows down, dx columns right");
    REQUIRE(is_moved_copy(x, y, s, b, want.dy, want.dx));
  }
  REQUIRE(drawn.size() >= 20);  // the key draws many different shifts: one shift for all images fails
}

TEST_CASE("shift_images with max_shift 0 copies x, bit for bit", "[14.3]") {
  const ImageShape s{7, 3, 28, 28, 0};
  std::vector<float> x = random_vector(s.size(), 1521);
  // Values a copy keeps and arithmetic may not: -0, the smallest subnormal, infinity.
  x[0] = -0.0f;
  x[5] = std::numeric_limits<float>::denorm_min();
  x[9] = -std::numeric_limits<float>::infinity();
  for (uint64_t key : {uint64_t(0), uint64_t(99), speedrun::shift_key(1521, 3)})
    require_same_shift_bits(kFile + " (max_shift 0)", run(x, s, key), x, s, key);
}

TEST_CASE("shift_images: batch 0 or channels 0 writes nothing; bad shapes are refused before anything is written",
          "[14.3]") {
  const std::vector<float> x = random_vector(100, 1531);
  std::vector<float> y = filled(100, 7.0f);
  REQUIRE_NOTHROW(speedrun::shift_images(x.data(), y.data(), 0, 1, 10, 10, 2, 5));
  REQUIRE_NOTHROW(speedrun::shift_images(x.data(), y.data(), 1, 0, 10, 10, 2, 5));
  REQUIRE_NOTHROW(speedrun::shift_images(nullptr, nullptr, 0, 3, 28, 28, 2, 5));
  REQUIRE(first_bit_difference(y, filled(100, 7.0f)) < 0);

  // (batch, channels, height, width, max_shift) and what the message must name.
  struct Bad {
    ImageShape shape;
    const char* names;
  };
  const Bad bad[] = {{{-1, 1, 10, 10, 2}, "batch"},     {{1, -1, 10, 10, 2}, "channels"},
                     {{1, 1, 0, 10, 0}, "height"},      {{1, 1, 10, 0, 0}, "width"},
                     {{1, 1, 10, 10, -1}, "max_shift"}, {{1, 1, 10, 10, 10}, "max_shift"},
                     {{1, 1, 5, 3, 3}, "max_shift"},    {{1, 1, 3, 5, 3}, "max_shift"}};
  for (const Bad& b : bad) {
    const ImageShape& s = b.shape;
    CAPTURE(s.batch, s.channels, s.height, s.width, s.max_shift);
    const std::string message = error_of(
        [&] { speedrun::shift_images(x.data(), y.data(), s.batch, s.channels, s.height, s.width, s.max_shift, 5); });
    INFO("message: '" << message << "' (check_shift's, called first)");
    REQUIRE(message.find("shift_images: ") == 0);
    REQUIRE(message.find(b.names) != std::string::npos);
    REQUIRE(first_bit_difference(y, filled(100, 7.0f)) < 0);
  }
  // The largest shift allowed is one less than the smaller side.
  std::vector<float> y15 = nan_vector(15);
  REQUIRE_NOTHROW(speedrun::shift_images(x.data(), y15.data(), 1, 1, 5, 3, 2, 5));
}
