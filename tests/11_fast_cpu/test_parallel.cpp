// Lesson 11: step 11.3's parallel_ranges (every index once, in contiguous ranges of sizes within
// one, as many as threads and the work allow) and the given pool behind it, run_on_pool (every range
// once, exceptions passed back after every range finished; calls from inside a range, from two
// threads at once and many in a row all complete). Checked by counting.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "course/error.hpp"
#include "course_test.hpp"
#include "fast_cpu.hpp"

using fast_cpu::kMinFlopsPerThread;
using fast_cpu::parallel_ranges;
using fast_cpu::run_on_pool;

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

TEST_CASE("parallel_ranges: contiguous ranges of sizes within one cover [0, count) once", "[11.3]") {
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

TEST_CASE("parallel_ranges: little work stays on the calling thread, more gets more threads", "[11.3]") {
  const Split small = split(8, 100, 0.5 * kMinFlopsPerThread);
  REQUIRE(small.ranges.size() == 1);
  REQUIRE(*small.threads.begin() == std::this_thread::get_id());
  REQUIRE(split(8, 100, 3.5 * kMinFlopsPerThread).ranges.size() == 3);
  REQUIRE_THROWS_AS(split(0, 10, 1e12), course::Error);
}

TEST_CASE("parallel_ranges: the cut is t*count/n, whatever ran where; threads < 1 throws before any body",
          "[11.3]") {
  const Split s = split(3, 10, 1e12);  // 10 over 3: [0, 3), [3, 6), [6, 10)
  REQUIRE(s.ranges == std::vector<std::pair<int, int>>{{0, 3}, {3, 6}, {6, 10}});
  bool called = false;
  REQUIRE_THROWS_AS(parallel_ranges(0, 10, 1e12, [&](int, int) { called = true; }), course::Error);
  REQUIRE_FALSE(called);
  REQUIRE(split(2, 7, 2.5 * kMinFlopsPerThread).ranges.size() == 2);  // threads bound it, not the work
  REQUIRE(split(5, 2, 1e12).ranges.size() == 2);                       // nor more ranges than items
}

TEST_CASE("run_on_pool: an exception in one range reaches the caller after every range ran", "[11-parallel]") {
  std::atomic<int> ran{0};
  REQUIRE_THROWS_AS(run_on_pool(4,
                                [&](int r) {
                                  ++ran;
                                  if (r == 1) throw std::runtime_error("range 1 fails");
                                }),
                    std::runtime_error);
  REQUIRE(ran == 4);
  // The pool is usable again afterwards, and every range runs once.
  std::vector<std::atomic<int>> seen(8);
  run_on_pool(8, [&](int r) { seen[size_t(r)].fetch_add(1); });
  for (const auto& n : seen) REQUIRE(n.load() == 1);
}

TEST_CASE("run_on_pool: nested calls, calls from two threads at once and many calls in a row finish", "[11-parallel]") {
  std::atomic<long> sum{0};
  run_on_pool(3, [&](int) {
    run_on_pool(10, [&](int j) { sum += j; });  // runs on the thread it was called from
  });
  REQUIRE(sum == 3 * 45);
  std::atomic<long> a{0}, b{0};
  std::thread other([&] {
    for (int r = 0; r < 200; ++r) run_on_pool(2, [&](int) { ++a; });
  });
  for (int r = 0; r < 200; ++r) run_on_pool(2, [&](int) { ++b; });
  other.join();
  REQUIRE(a == 200 * 2);
  REQUIRE(b == 200 * 2);
  long total = 0;
  for (int r = 0; r < 5000; ++r) {
    std::atomic<int> covered{0};
    run_on_pool(2, [&](int) { ++covered; });
    total += covered;
  }
  REQUIRE(total == 5000 * 2);
  int zero_calls = 0;
  run_on_pool(0, [&](int) { ++zero_calls; });  // nothing to run
  REQUIRE(zero_calls == 0);
}

TEST_CASE("run_on_pool: a thread the system will not start is one course::Error, not an abort", "[11-parallel]") {
  // In a child process whose address space may grow by only 4 MiB, a new thread's stack (8 MiB by
  // default) cannot be mapped: the pool asked for 200 ranges must report that, and the child must be
  // able to go on (an abort would end it with SIGABRT).
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    long pages = 0;
    if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
      std::fclose(statm);
    }
    if (pages <= 0) ::_exit(5);
    const rlim_t now = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE));
    const rlimit limit{now + (4u << 20), now + (4u << 20)};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(6);
    try {
      std::atomic<int> ran{0};
      run_on_pool(200, [&](int) { ++ran; });
      ::_exit(4);  // every thread started: the limit did not hold
    } catch (const course::Error& e) {
      const std::string what = e.what();
      ::_exit(what.find("cannot start thread") != std::string::npos && what.find("fewer --threads") != std::string::npos
                  ? 3
                  : 7);
    } catch (...) {
      ::_exit(8);
    }
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  INFO("child status " << status);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
}
