// course::ceil_div and course::round_up (course/arithmetic.hpp) against counting by hand.
#include <cstddef>
#include <cstdint>

#include "course/arithmetic.hpp"
#include "course_test.hpp"

TEST_CASE("ceil_div and round_up: exact multiples, one past, one short, and large sizes", "[arithmetic]") {
  for (int b : {1, 2, 3, 4, 7, 64, 256}) {
    for (int a = 0; a <= 3 * b + 1; ++a) {
      CAPTURE(a, b);
      int blocks = 0;
      while (blocks * b < a) ++blocks;  // the fewest blocks of b that cover a
      REQUIRE(course::ceil_div(a, b) == blocks);
      REQUIRE(course::round_up(a, b) == blocks * b);
    }
  }
  // 64-bit sizes past 2^32 (where an int would overflow) and size_t.
  const int64_t big = (int64_t(1) << 40) + 5;
  REQUIRE(course::ceil_div(big, int64_t(1) << 20) == (int64_t(1) << 20) + 1);
  REQUIRE(course::round_up(size_t(1000), size_t(64)) == size_t(1024));
  static_assert(course::ceil_div(10, 4) == 3 && course::round_up(10, 4) == 12, "usable at compile time");
}
