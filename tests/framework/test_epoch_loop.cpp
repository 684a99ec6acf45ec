// The GPU trainers' epoch loop: the hooks run in the order the loop promises, the clock covers the
// steps alone, the logged numbers are the counts' means, a NaN stops it, a rank that does not lead
// prints nothing.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "course/error.hpp"
#include "captured_output.hpp"
#include "course_test.hpp"
#include "framework/epoch_loop.hpp"

using framework_test::printed;

namespace {

// Hooks that write down every call; counts() answers from `loss_at` and `correct_at` by call.
struct Recorder {
  std::vector<std::string> calls;
  std::vector<double> loss_at;
  std::vector<long long> correct_at;
  size_t counted = 0;
  int evaluations = 0;

  framework::EpochLoop loop(int examples, int batch, int epochs) {
    framework::EpochLoop l;
    l.examples = examples, l.batch = batch, l.epochs = epochs;
    l.start_epoch = [this](int e) { calls.push_back("start " + std::to_string(e)); };
    l.run_stretch = [this](int epoch, size_t k, int first, int last) {
      calls.push_back("run " + std::to_string(epoch) + "." + std::to_string(k) + " " + std::to_string(first) + "-" +
                      std::to_string(last));
    };
    l.wait = [this] { calls.push_back("wait"); };
    l.counts = [this](int before) {
      calls.push_back("counts " + std::to_string(before));
      framework::EpochCounts c;
      c.loss_sum = counted < loss_at.size() ? loss_at[counted] : 1.0;
      c.correct = counted < correct_at.size() ? correct_at[counted] : 0;
      ++counted;
      return c;
    };
    l.evaluate = [this] {
      calls.push_back("evaluate");
      ++evaluations;
      return framework::TestScore{0.25 + evaluations, 0.5 + 0.125 * evaluations};
    };
    return l;
  }
};

// The course::Error a run of `loop` with a loss watch and `log` ends in ("" : none).
std::string error_of(const framework::EpochLoop& loop, framework::EpochLog& log) {
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  framework::LossWatch watch(0.1, 10, out);
  std::string message;
  try {
    framework::run_epochs(loop, &watch, &log, out);
  } catch (const course::Error& e) {
    message = e.what();
  }
  std::fclose(out);
  return message;
}

}  // namespace

TEST_CASE("epoch loop: stretches of kReportEvery steps cover the epoch once", "[epoch_loop]") {
  using Stretches = std::vector<std::pair<int, int>>;
  CHECK(framework::report_stretches(0).empty());
  CHECK(framework::report_stretches(1) == Stretches{{0, 1}});
  CHECK(framework::report_stretches(50) == Stretches{{0, 50}});
  CHECK(framework::report_stretches(101) == Stretches{{0, 50}, {50, 100}, {100, 101}});
}

TEST_CASE("epoch loop: the hooks run in order and the log holds the counts' means", "[epoch_loop]") {
  // 237 examples at batch 2: 119 steps an epoch (the last one of 1 example), 3 stretches.
  Recorder r;
  r.loss_at = {10.0, 30.0, 47.4, 9.0, 20.0, 23.7};  // two report points and the end, per epoch
  r.correct_at = {10, 50, 200, 60, 120, 230};
  const framework::EpochLoop loop = r.loop(237, 2, 2);
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  framework::LossWatch watch(0.1, 10, out);
  framework::EpochLog log("", 2);
  const framework::TrainSummary s = framework::run_epochs(loop, &watch, &log, out);
  std::fclose(out);

  std::vector<std::string> want;
  for (int e = 0; e < 2; ++e) {
    const std::string before = std::to_string(e * 119);
    const std::string run = "run " + std::to_string(e) + ".";
    for (const std::string& c : {"start " + std::to_string(e), std::string("wait"), run + "0 0-50",
                                 "counts " + before, run + "1 50-100", "counts " + before, run + "2 100-119",
                                 std::string("wait"), "counts " + before, std::string("evaluate")})
      want.push_back(c);
  }
  CHECK(r.calls == want);
  REQUIRE(s.train_loss.size() == 2);
  CHECK(s.train_loss[0] == Approx(47.4 / 237));
  CHECK(s.train_loss[1] == Approx(23.7 / 237));
  CHECK(s.train_accuracy[0] == Approx(200.0 / 237));
  CHECK(s.train_accuracy[1] == Approx(230.0 / 237));
  CHECK(s.test_loss == std::vector<double>{1.25, 2.25});
  CHECK(s.test_accuracy == std::vector<double>{0.625, 0.75});
  CHECK_FALSE(watch.warned());
}

TEST_CASE("epoch loop: the clock starts after the first wait and stops after the last", "[epoch_loop]") {
  using namespace std::chrono_literals;
  Recorder r;
  framework::EpochLoop loop = r.loop(120, 1, 1);  // 120 steps: stretches 0-50, 50-100, 100-120
  int waits = 0;
  loop.wait = [&] {
    if (waits++ == 0) std::this_thread::sleep_for(400ms);  // what came before the epoch: not timed
  };
  loop.run_stretch = [](int, size_t, int, int) { std::this_thread::sleep_for(20ms); };
  framework::EpochLog log("", 1);
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  const framework::TrainSummary s = framework::run_epochs(loop, nullptr, &log, out);
  std::fclose(out);
  REQUIRE(s.epoch_seconds.size() == 1);
  CHECK(waits == 2);
  CHECK(s.epoch_seconds[0] >= 0.06);
  CHECK(s.epoch_seconds[0] < 0.4);
}

TEST_CASE("epoch loop: a NaN loss at a report point stops it before the test set", "[epoch_loop]") {
  Recorder r;
  r.loss_at = {5.0, std::numeric_limits<double>::quiet_NaN()};
  const framework::EpochLoop loop = r.loop(300, 3, 2);  // 100 steps: a report at step 50
  framework::EpochLog log("", 2);
  const std::string message = error_of(loop, log);
  INFO(message);
  CHECK(message.find("step 100") != std::string::npos);  // the epoch's end: the second report
  CHECK(r.evaluations == 0);
  CHECK(log.summary().train_loss.empty());
}

TEST_CASE("epoch loop: a rank that does not lead runs the same hooks and prints nothing", "[epoch_loop]") {
  Recorder lead_calls, other_calls;
  framework::EpochLog log("", 1);
  std::FILE* lead_out = std::tmpfile();
  std::FILE* other_out = std::tmpfile();
  REQUIRE(lead_out != nullptr);
  REQUIRE(other_out != nullptr);
  framework::run_epochs(lead_calls.loop(130, 1, 1), nullptr, &log, lead_out);
  const framework::TrainSummary s = framework::run_epochs(other_calls.loop(130, 1, 1), nullptr, nullptr, other_out);
  CHECK(other_calls.calls == lead_calls.calls);
  CHECK(printed(other_out).empty());
  CHECK(s.train_loss.empty());
  CHECK_FALSE(printed(lead_out).empty());  // the lead's progress bar
  std::fclose(lead_out);
  std::fclose(other_out);
}

TEST_CASE("epoch loop: a missing hook or a size below 1 is refused before anything runs", "[epoch_loop]") {
  Recorder r;
  framework::EpochLoop no_wait = r.loop(10, 2, 1);
  no_wait.wait = nullptr;
  CHECK_THROWS_AS(framework::run_epochs(no_wait, nullptr, nullptr), course::Error);
  CHECK_THROWS_AS(framework::run_epochs(r.loop(0, 2, 1), nullptr, nullptr), course::Error);
  CHECK_THROWS_AS(framework::run_epochs(r.loop(10, 0, 1), nullptr, nullptr), course::Error);
  CHECK_THROWS_AS(framework::run_epochs(r.loop(10, 2, 0), nullptr, nullptr), course::Error);
  CHECK(r.calls.empty());
  // A batch larger than the data set is one step an epoch.
  Recorder one;
  framework::run_epochs(one.loop(7, 64, 1), nullptr, nullptr);
  CHECK(one.calls == std::vector<std::string>{"start 0", "wait", "run 0.0 0-1", "wait", "counts 0", "evaluate"});
  // A clock with a start and no stop.
  Recorder half;
  framework::EpochLoop half_clock = half.loop(10, 2, 1);
  half_clock.clock_start = [] {};
  CHECK_THROWS_AS(framework::run_epochs(half_clock, nullptr, nullptr), course::Error);
  CHECK(half.calls.empty());
}

TEST_CASE("epoch loop, whole run: every epoch prepared first, then all on one clock, then one row",
          "[epoch_loop]") {
  // 237 examples at batch 2, 3 epochs: 119 steps an epoch, each epoch one stretch.
  Recorder r;
  r.loss_at = {711.0};
  r.correct_at = {600};
  framework::EpochLoop loop = r.loop(237, 2, 3);
  loop.timing = framework::Timing::whole_run;
  loop.clock_start = [&] { r.calls.push_back("clock start"); };
  loop.clock_stop = [&] {
    r.calls.push_back("clock stop");
    return 1.5;
  };
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  framework::LossWatch watch(0.1, 10, out);
  const framework::TrainSummary s = framework::run_epochs(loop, &watch, nullptr, out);
  CHECK(printed(out).empty());  // no progress bar, no report point
  std::fclose(out);
  CHECK(r.calls == std::vector<std::string>{"start 0", "start 1", "start 2", "wait", "clock start", "run 0.0 0-119",
                                            "run 1.0 0-119", "run 2.0 0-119", "clock stop", "counts 0",
                                            "evaluate"});
  // The run's one row, without a log: the counters over every epoch's examples, the clock's seconds.
  REQUIRE(s.epoch_seconds == std::vector<double>{1.5});
  CHECK(s.train_loss[0] == Approx(711.0 / (3 * 237)));
  CHECK(s.train_accuracy[0] == Approx(600.0 / (3 * 237)));
  CHECK(s.test_loss == std::vector<double>{1.25});
  CHECK(s.test_accuracy == std::vector<double>{0.625});
}

TEST_CASE("epoch loop, whole run: a NaN loss stops it after the clock, before the test set", "[epoch_loop]") {
  Recorder r;
  r.loss_at = {std::numeric_limits<double>::quiet_NaN()};
  framework::EpochLoop loop = r.loop(100, 10, 2);
  loop.timing = framework::Timing::whole_run;
  framework::EpochLog log("", 2);
  const std::string message = error_of(loop, log);
  INFO(message);
  CHECK(message.find("step 20") != std::string::npos);  // the run's last step: where it was read
  CHECK(r.evaluations == 0);
  CHECK(log.summary().train_loss.empty());
  // The host's clock when none is handed over: it waits before and after the steps.
  CHECK(r.calls == std::vector<std::string>{"start 0", "start 1", "wait", "run 0.0 0-10", "run 1.0 0-10", "wait",
                                            "counts 0"});
}
