// Lesson 11 (given code): parallel_ranges and the pool of threads behind it. Checked by counting:
// every index once, in contiguous ranges of sizes within one, on as many threads as asked and as
// the work allows; exceptions passed back after every range finished; calls from inside a range,
// from two threads at once and many in a row all complete.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "course_test.hpp"
#include "fast_cpu.hpp"

using fast_cpu::kMinFlopsPerThread;
using fast_cpu::parallel_ranges;

namespace {

struct Split {
  std::vector<std::pair<int, int>> ranges;  // sorted by begin
  std::set<std::thread::id> threads;
};

Split split(int threads, int count, double flops) {
  Split s;
  std::mutex m;
  parallel_ranges(threads, count, flops, [&](int begin, int end) {
    std::lock_guard<std::mutex> lock(m);
    s.ranges.push_back({begin, end});
    s.threads.insert(std::this_thread::get_id());
  });
  std::sort(s.ranges.begin(), s.ranges.end());
  return s;
}

}  // namespace

TEST_CASE("parallel_ranges: contiguous ranges of sizes within one cover [0, count) once", "[11-parallel]") {
  for (int threads : {1, 2, 3, 7}) {
    for (int count : {1, 2, 5, 17, 100}) {
      CAPTURE(threads, count);
      const Split s = split(threads, count, 1e12);  // plenty of work: threads alone decides
      REQUIRE(int(s.ranges.size()) == std::min(threads, count));
      int next = 0, smallest = count, largest = 0;
      for (const auto& [begin, end] : s.ranges) {
        REQUIRE(begin == next);
        REQUIRE(end > begin);
        smallest = std::min(smallest, end - begin), largest = std::max(largest, end - begin);
        next = end;
      }
      REQUIRE(next == count);
      REQUIRE(largest - smallest <= 1);
      REQUIRE(int(s.threads.size()) <= int(s.ranges.size()));
    }
  }
  REQUIRE(split(4, 0, 1e12).ranges.empty());  // nothing to do: body never called
}

TEST_CASE("parallel_ranges: little work stays on the calling thread, more gets more threads", "[11-parallel]") {
  const Split small = split(8, 100, 0.5 * kMinFlopsPerThread);
  REQUIRE(small.ranges.size() == 1);
  REQUIRE(*small.threads.begin() == std::this_thread::get_id());
  REQUIRE(split(8, 100, 3.5 * kMinFlopsPerThread).ranges.size() == 3);
  REQUIRE_THROWS_AS(split(0, 10, 1e12), course::Error);
}

TEST_CASE("parallel_ranges: an exception in one range reaches the caller after every range ran", "[11-parallel]") {
  std::atomic<int> ran{0};
  REQUIRE_THROWS_AS(parallel_ranges(4, 4, 1e12,
                                    [&](int begin, int) {
                                      ++ran;
                                      if (begin == 1) throw std::runtime_error("range 1 fails");
                                    }),
                    std::runtime_error);
  REQUIRE(ran == 4);
  // The pool is usable again afterwards.
  REQUIRE(split(4, 8, 1e12).ranges.size() == 4);
}

TEST_CASE("parallel_ranges: nested calls, calls from two threads at once and many calls in a row finish", "[11-parallel]") {
  std::atomic<long> sum{0};
  parallel_ranges(3, 3, 1e12, [&](int b0, int e0) {
    for (int i = b0; i < e0; ++i)
      parallel_ranges(3, 10, 1e12, [&](int b1, int e1) {  // runs on the thread it was called from
        for (int j = b1; j < e1; ++j) sum += j;
      });
  });
  REQUIRE(sum == 3 * 45);
  std::atomic<long> a{0}, b{0};
  std::thread other([&] {
    for (int r = 0; r < 200; ++r) parallel_ranges(2, 64, 1e12, [&](int begin, int end) { a += end - begin; });
  });
  for (int r = 0; r < 200; ++r) parallel_ranges(2, 64, 1e12, [&](int begin, int end) { b += end - begin; });
  other.join();
  REQUIRE(a == 200 * 64);
  REQUIRE(b == 200 * 64);
  long total = 0;
  for (int r = 0; r < 5000; ++r) {
    std::atomic<int> covered{0};
    parallel_ranges(2, 2, 1e12, [&](int begin, int end) { covered += end - begin; });
    total += covered;
  }
  REQUIRE(total == 5000 * 2);
}
