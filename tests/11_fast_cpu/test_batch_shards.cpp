// Lesson 11, step 11.7: run_shards (the batch cut into shards, run on the pool's threads, the
// results added in shard order) and sum_in_order (the shards' gradients added in shard order).
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "course_test.hpp"
#include "fast_cpu.hpp"

using course::test::random_vector;
using fast_cpu::run_shards;
using fast_cpu::sum_in_order;

TEST_CASE("run_shards: contiguous shards of sizes within one, each run once, k*batch/shards", "[11.7]") {
  for (int threads : {1, 2, 3}) {
    for (const auto& [batch, shards] : std::vector<std::pair<int, int>>{{1, 1}, {32, 2}, {37, 2}, {50, 3}, {7, 7}, {100, 8}}) {
      CAPTURE(threads, batch, shards);
      std::mutex m;
      std::vector<std::pair<int, int>> seen(size_t(shards), {-1, -1});
      std::vector<int> calls(size_t(shards), 0);
      bool bad_shard = false;  // no REQUIRE on the pool's threads: Catch2's assertions are the caller's
      run_shards(batch, shards, threads, [&](int k, int begin, int end) {
        std::lock_guard<std::mutex> lock(m);
        if (k < 0 || k >= shards) {
          bad_shard = true;
          return 0.0;
        }
        seen[size_t(k)] = {begin, end};
        ++calls[size_t(k)];
        return 0.0;
      });
      REQUIRE_FALSE(bad_shard);
      for (int k = 0; k < shards; ++k) {
        CAPTURE(k);
        REQUIRE(calls[size_t(k)] == 1);
        REQUIRE(seen[size_t(k)].first == int(int64_t(k) * batch / shards));
        REQUIRE(seen[size_t(k)].second == int(int64_t(k + 1) * batch / shards));
      }
    }
  }
}

TEST_CASE("run_shards returns the passes' results added in shard order", "[11.7]") {
  // 1e16 + 1 - 1e16 is 0 in double, 1 in another order: only shard order k = 0, 1, 2 gives 0.
  const std::vector<double> values = {1e16, 1.0, -1e16, 0.25};
  for (int threads : {1, 2, 4}) {
    CAPTURE(threads);
    const double total = run_shards(40, 4, threads, [&](int k, int, int) { return values[size_t(k)]; });
    REQUIRE(total == ((1e16 + 1.0) + -1e16) + 0.25);
  }
}

TEST_CASE("run_shards runs the shards at the same time on two threads", "[11.7]") {
  // Each pass waits for the other to start: in turn on one thread they would never meet.
  std::atomic<int> started{0};
  std::atomic<bool> met{true};
  run_shards(32, 2, 2, [&](int, int, int) {
    started.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (started.load() < 2)
      if (std::chrono::steady_clock::now() > deadline) {
        met = false;
        break;
      }
    return 0.0;
  });
  INFO("the two shards did not run at the same time: hand them to the pool with parallel_ranges, "
       "with flops enough for a thread per shard");
  REQUIRE(met.load());
}

TEST_CASE("run_shards: bad arguments throw; a pass's exception reaches the caller", "[11.7]") {
  auto nothing = [](int, int, int) { return 0.0; };
  REQUIRE_THROWS_AS(run_shards(0, 1, 1, nothing), course::Error);
  REQUIRE_THROWS_AS(run_shards(8, 0, 1, nothing), course::Error);
  REQUIRE_THROWS_AS(run_shards(8, 9, 1, nothing), course::Error);
  REQUIRE_THROWS_AS(run_shards(8, 2, 0, nothing), course::Error);
  REQUIRE_THROWS_AS(run_shards(32, 2, 2,
                               [](int k, int, int) -> double {
                                 if (k == 1) throw std::runtime_error("shard 1 failed");
                                 return 0.0;
                               }),
                    std::runtime_error);
}

TEST_CASE("sum_in_order adds the parts in order, the same bits for every thread count", "[11.7]") {
  // Parts of very different sizes: another order of the additions gives other bits (checked below).
  for (size_t count : {size_t(1), size_t(7), size_t(2049), size_t(100003)}) {
    for (int parts_n : {1, 2, 3, 5}) {
      CAPTURE(count, parts_n);
      std::vector<std::vector<float>> parts;
      std::vector<const float*> pointers;
      for (int k = 0; k < parts_n; ++k) {
        parts.push_back(random_vector(count, 600 + 10 * count + k, -1.0f, 1.0f));
        for (float& v : parts.back()) v *= std::pow(10.0f, float(k % 3) * 3.0f);  // 1, 1e3, 1e6
      }
      for (const auto& p : parts) pointers.push_back(p.data());
      std::vector<float> want(count);
      for (size_t i = 0; i < count; ++i) {
        float s = parts[0][i];
        for (int k = 1; k < parts_n; ++k) s += parts[size_t(k)][i];
        want[i] = s;
      }
      if (parts_n >= 3 && count > 1000) {  // the data tells orders apart
        size_t differ = 0;
        for (size_t i = 0; i < count; ++i) {
          float r = parts[size_t(parts_n - 1)][i];
          for (int k = parts_n - 2; k >= 0; --k) r += parts[size_t(k)][i];
          differ += r != want[i];
        }
        REQUIRE(differ > 0);
      }
      for (int threads : {1, 2, 3}) {
        CAPTURE(threads);
        std::vector<float> sum(count, std::numeric_limits<float>::quiet_NaN());  // every element written
        sum_in_order(pointers, count, sum.data(), threads);
        REQUIRE(sum == want);
      }
      std::vector<float> first = parts[0];  // into the first part itself
      pointers[0] = first.data();
      sum_in_order(pointers, count, first.data(), 2);
      REQUIRE(first == want);
    }
  }
}

TEST_CASE("sum_in_order: no parts or threads < 1 throw; count 0 writes nothing", "[11.7]") {
  std::vector<float> a(4, 1.0f), sum(4, 5.0f);
  REQUIRE_THROWS_AS(sum_in_order({}, 4, sum.data(), 1), course::Error);
  REQUIRE_THROWS_AS(sum_in_order({a.data()}, 4, sum.data(), 0), course::Error);
  sum_in_order({a.data(), a.data()}, 0, sum.data(), 2);
  REQUIRE(sum == std::vector<float>(4, 5.0f));
}
