// Host timing: median, HostTimer, time_host (the GPU timers are in test_gpu_timer.cpp).
#include "course/timer.hpp"

#include <chrono>
#include <thread>

#include "course_test.hpp"

TEST_CASE("median of odd and even counts, unsorted input, empty input", "[timer]") {
  CHECK(course::median({5.0}) == 5.0);
  CHECK(course::median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(course::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(course::median({10.0, -1.0, 7.0, 7.0, 100.0}) == 7.0);  // an outlier does not move it
  CHECK(course::median({}) == 0.0);
}

TEST_CASE("HostTimer measures a sleep", "[timer]") {
  course::HostTimer t;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const double s = t.seconds();
  // A sleep lasts at least what was asked; the upper bound only catches unit mistakes
  // (ms vs s) on a busy shared machine.
  CHECK(s >= 0.030);
  CHECK(s < 3.0);
  CHECK(t.milliseconds() >= 30.0);
  t.reset();
  CHECK(t.milliseconds() < 30.0);
}

TEST_CASE("time_host runs warm-up plus repeats and reports ordered statistics", "[timer]") {
  int calls = 0;
  const auto stats = course::time_host(
      [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      },
      2, 5);
  CHECK(calls == 7);
  CHECK(stats.repeats == 5);
  CHECK(stats.min_ms >= 2.0);  // each repeat sleeps 2 ms
  CHECK(stats.min_ms <= stats.median_ms);
  CHECK(stats.median_ms <= stats.max_ms);
  CHECK(stats.max_ms < 3000.0);

  const auto none = course::time_host([&] { ++calls; }, 0, 0);
  CHECK(none.repeats == 0);
  CHECK(none.median_ms == 0.0);
  CHECK(calls == 7);
}
