// Lesson 13, step 13.1: shards of a batch, checked by counting on the host.
#include <vector>

#include "course_test.hpp"
#include "data_parallel.hpp"

using data_parallel::Shard;
using data_parallel::shard_of;

TEST_CASE("shard_of: contiguous shards in rank order cover the batch once, sizes within one, larger first", "[13.1]") {
  for (int ranks = 1; ranks <= 9; ++ranks) {
    for (int batch = 0; batch <= 131; ++batch) {
      CAPTURE(ranks, batch);
      int next = 0;
      for (int r = 0; r < ranks; ++r) {
        CAPTURE(r);
        const Shard s = shard_of(batch, ranks, r);
        REQUIRE(s.first == next);  // contiguous, in rank order, no gap, no overlap
        // batch / ranks each, and one more for the first batch % ranks ranks.
        REQUIRE(s.count == batch / ranks + (r < batch % ranks ? 1 : 0));
        next += s.count;
      }
      REQUIRE(next == batch);  // every example in a shard
    }
  }
  // Worked cases: 37 over 2 is 19 + 18; 10 over 4 is 3, 3, 2, 2; 1 over 3 leaves two ranks empty.
  REQUIRE(shard_of(37, 2, 1).first == 19);
  REQUIRE(shard_of(37, 2, 1).count == 18);
  REQUIRE(shard_of(10, 4, 2).first == 6);
  REQUIRE(shard_of(10, 4, 3).count == 2);
  REQUIRE(shard_of(1, 3, 2).first == 1);
  REQUIRE(shard_of(1, 3, 2).count == 0);
}

TEST_CASE("shard_of refuses a rank outside 0..ranks-1, fewer than one rank and a negative batch", "[13.1]") {
  REQUIRE_THROWS_AS(shard_of(8, 2, 2), course::Error);
  REQUIRE_THROWS_AS(shard_of(8, 2, -1), course::Error);
  REQUIRE_THROWS_AS(shard_of(8, 0, 0), course::Error);
  REQUIRE_THROWS_AS(shard_of(-1, 2, 0), course::Error);
}
