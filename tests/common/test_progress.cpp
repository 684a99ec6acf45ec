// ProgressBar: the line format, and the plain mode used when output is not a terminal.
#include "course/progress.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

#include "course_test.hpp"
#include "test_files.hpp"

using course::ProgressBar;
using course::test::contains;

namespace {
std::vector<std::string> lines_of(std::FILE* f) {
  std::rewind(f);
  std::vector<std::string> lines;
  char buf[1024];
  while (std::fgets(buf, sizeof buf, f)) {
    std::string s = buf;
    if (!s.empty() && s.back() == '\n') s.pop_back();
    lines.push_back(s);
  }
  return lines;
}
}  // namespace

TEST_CASE("line() shows label, percent, count, rate, elapsed time, ETA and status", "[progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  const ProgressBar bar("epoch 1", 200, "img", f);
  // 50 of 200 after 10 s: 25 %, 5 img/s, 150 left at 5/s = 30 s.
  const std::string s = bar.line(50, 10.0, "loss 0.512");
  INFO(s);
  CHECK(s.rfind("epoch 1 [", 0) == 0);
  CHECK(contains(s, " 25% "));
  CHECK(contains(s, "50/200"));
  CHECK(contains(s, "5.0 img/s"));
  CHECK(contains(s, "elapsed 00:10"));
  CHECK(contains(s, "eta 00:30"));
  CHECK(contains(s, "loss 0.512"));
  CHECK(contains(s, "[######..................]"));  // 25 % of 24 characters

  const std::string fast = bar.line(150, 0.5, "");
  CHECK(contains(fast, " 75% "));
  CHECK(contains(fast, "300 img/s"));  // 10 or more per second: no decimals
  CHECK(contains(fast, "eta 00:00"));  // 50 left at 300/s rounds to 0 s

  const std::string start = bar.line(0, 0.0, "");
  CHECK(contains(start, "  0% "));
  CHECK(contains(start, "eta --:--"));  // no rate yet: no ETA

  CHECK(contains(bar.line(29, 1.0, ""), " 14% "));   // 29/200 = 14.5 %: rounds down
  CHECK(contains(bar.line(500, 1.0, ""), "100% 200/200"));  // clamped to the total
  CHECK(contains(bar.line(1, 3725.0, ""), "elapsed 1:02:05"));
  std::fclose(f);
}

TEST_CASE("line() percent is exact for counts where floating point would round down", "[progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  const ProgressBar bar("x", 100, "it", f);
  // 0.29 * 100 is 28.999999999999996 in double.
  for (long done : {29L, 57L, 58L}) {
    CAPTURE(done);
    CHECK(contains(bar.line(done, 1.0, ""), " " + std::to_string(done) + "% "));
  }
  std::fclose(f);
}

TEST_CASE("without a terminal, a plain line every 10 % and one at the end", "[progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    ProgressBar bar("train", 1000, "img", f);
    for (long i = 0; i <= 1000; i += 5) bar.update(i, "status");
    bar.finish("done");
    bar.update(1000);  // after finish: nothing more
    bar.finish("again");
  }
  const auto lines = lines_of(f);
  std::fclose(f);
  REQUIRE(lines.size() == 11);  // 0 %, 10 %, ..., 90 %, then 100 % from finish()
  for (size_t i = 0; i < 10; ++i) {
    INFO(lines[i]);
    CHECK(contains(lines[i], " " + std::to_string(i * 10) + "% "));
    CHECK(contains(lines[i], "status"));
    CHECK_FALSE(contains(lines[i], "\r"));  // plain lines in a log, no redraw codes
    CHECK_FALSE(contains(lines[i], "\033"));
    CHECK_FALSE(contains(lines[i], "[#"));  // no bar: a log reads its numbers
    CHECK_FALSE(contains(lines[i], ".]"));
  }
  CHECK(contains(lines[10], "100% 1000/1000"));
  CHECK(contains(lines[10], "done"));
}

TEST_CASE("jumps skip deciles; a total of 0 does not divide by zero", "[progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    ProgressBar bar("jump", 10, "batch", f);
    bar.update(3);
    bar.update(3);  // same decile: printed once
    bar.update(9);
    bar.finish();
    ProgressBar empty("empty", 0, "it", f);
    empty.finish();
  }
  const auto lines = lines_of(f);
  std::fclose(f);
  REQUIRE(lines.size() == 4);
  CHECK(contains(lines[0], " 30% 3/10"));
  CHECK(contains(lines[1], " 90% 9/10"));
  CHECK(contains(lines[2], "100% 10/10"));
  CHECK(contains(lines[3], "empty"));
  CHECK(contains(lines[3], "100%"));
}

TEST_CASE("without a terminal, a slow loop still prints a line every few seconds", "[progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    // 1,000 items, 4 updates within the first 10 %, each after more than the quiet interval
    // (50 ms here; 5 s by default): each one is printed, then the first decile once more.
    ProgressBar bar("slow", 1000, "img", f, 0.05);
    for (long i = 1; i <= 4; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(70));
      bar.update(i * 10);
    }
    bar.update(45);  // at once: same decile, not quiet for long: nothing
    bar.update(100);
    bar.finish();
  }
  const auto lines = lines_of(f);
  std::fclose(f);
  REQUIRE(lines.size() == 6);
  for (size_t i = 0; i < 4; ++i) CHECK(contains(lines[i], " " + std::to_string((i + 1) * 10) + "/1000"));
  CHECK(contains(lines[4], " 10% 100/1000"));
  CHECK(contains(lines[5], "100% 1000/1000"));
}
