// The trainers' loss watch: a NaN/Inf loss stops training with its step; a loss that grows to
// more than 100x where it started (the first loss, or ln(classes) if that is lower) is warned of once.
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "captured_output.hpp"
#include "course_test.hpp"
#include "framework/loss_watch.hpp"

using framework_test::printed;

TEST_CASE("loss watch: a diverging loss is warned of once, with its steps and the lr", "[loss_watch]") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  framework::LossWatch watch(10.0, 10, out);
  watch.at_step(1, 2.30);
  watch.at_step(2, 2.25);
  watch.at_step(3, 200.0);  // 87x the first: not yet two orders of magnitude
  CHECK_FALSE(watch.warned());
  CHECK(printed(out).empty());
  watch.at_step(4, 231.0);  // 100.4x
  CHECK(watch.warned());
  const std::string text = printed(out);
  INFO(text);
  CHECK(text.find("warning: the training loss grew from 2.3 (step 1) to 231 at step 4") != std::string::npos);
  CHECK(text.find("learning rate 10") != std::string::npos);
  watch.at_step(5, 1e6);  // still diverging: no second line
  CHECK(printed(out) == text);
  std::fclose(out);
}

TEST_CASE("loss watch: a first report that has already diverged is measured against a uniform guess",
          "[loss_watch]") {
  // The GPU trainer reports running means: its first one may hold the blow-up already.
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  framework::LossWatch watch(10.0, 10, out);
  watch.at_step(50, 6363.7);  // ln(10) = 2.303: 2763x
  CHECK(watch.warned());
  const std::string text = printed(out);
  INFO(text);
  CHECK(text.find("warning: the training loss grew from 2.303 (a uniform guess) to 6364 at step 50") !=
        std::string::npos);
  std::fclose(out);
  // A first loss of 100 (a bad start) is 43x a uniform guess: not yet two orders of magnitude.
  framework::LossWatch calm(0.05, 10, stdout);
  calm.at_step(1, 100.0);
  calm.at_step(2, 40.0);
  CHECK_FALSE(calm.warned());
}

TEST_CASE("loss watch: a falling loss is never warned of", "[loss_watch]") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  framework::LossWatch watch(0.05, 10, out);
  for (int step = 1; step <= 1000; ++step) watch.at_step(step, 2.3 / step);
  CHECK_FALSE(watch.warned());
  CHECK(printed(out).empty());
  std::fclose(out);
}

TEST_CASE("loss watch: NaN or Inf stops training, naming the step", "[loss_watch]") {
  framework::LossWatch watch(0.5, 10, stdout);
  watch.at_step(1, 2.3);
  try {
    watch.at_step(7, std::numeric_limits<double>::quiet_NaN());
    FAIL("a NaN loss was accepted");
  } catch (const course::Error& e) {
    CHECK(std::string(e.what()).find("NaN at step 7") != std::string::npos);
    CHECK(std::string(e.what()).find("lr 0.5") != std::string::npos);
  }
  CHECK_THROWS_AS(watch.at_step(8, std::numeric_limits<double>::infinity()), course::Error);
  // The very first loss is checked too.
  framework::LossWatch fresh(0.5, 10, stdout);
  CHECK_THROWS_AS(fresh.at_step(1, std::nan("")), course::Error);
}
