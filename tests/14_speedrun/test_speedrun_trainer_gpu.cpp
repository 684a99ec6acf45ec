// Lesson 14, the speedrun trainer (given code on your 14.1-14.4): a seed's run is reproducible to
// the bit, the same with and without CUDA graphs, different for another seed, and --val never
// reads the test set.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course/idx.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "host_training.hpp"
#include "speedrun_trainer.hpp"
#include "framework/training_data.hpp"
#include "your_steps_check.hpp"

#ifndef COURSE_SPEEDRUN_MODELS_DIR
#error "COURSE_SPEEDRUN_MODELS_DIR: lesson 14's models folder"
#endif

namespace {

// Digit-like data without MNIST: 10 classes, each a bright bar at its own place plus noise, so a
// short run learns something (accuracy far above 10 %) and a wrong pipeline shows.
course::Dataset bars(int count, uint64_t seed) {
  course::Dataset d;
  d.images = course::HostTensor({count, 1, 28, 28});
  course::Rng rng(seed, 3);
  for (int i = 0; i < count; ++i) {
    const int label = rng.uniform_int(10);
    d.labels.push_back(label);
    float* image = d.images.data() + size_t(i) * 784;
    for (int p = 0; p < 784; ++p) image[p] = 0.2f * rng.uniform(0.f, 1.f);
    for (int r = 4 + 2 * label; r < 6 + 2 * label; ++r)
      for (int c = 4; c < 24; ++c) image[r * 28 + c] = 1.0f;
  }
  return d;
}

framework::TrainingData bar_data() {
  framework::TrainingData data;
  data.dir = "(generated)";
  data.train = bars(1500, 11);
  data.test = bars(500, 12);
  return data;
}

speedrun::Recipe short_recipe() {
  speedrun::Recipe r;
  r.epochs = 2, r.batch = 128, r.seeds = 2, r.first_seed = 5;
  return r;
}

}  // namespace

TEST_CASE("a seed's speedrun is the same to the bit, run twice, with or without CUDA graphs", "[14-speedrun_gpu]") {
  const framework::TrainingData data = bar_data();
  speedrun::Recipe recipe = short_recipe();
  const host_training::ModelSpec spec = speedrun::speedrun_model(recipe, data, COURSE_SPEEDRUN_MODELS_DIR);
  const speedrun::SpeedrunResult first = speedrun::run_speedrun(recipe, data, spec, "");
  const speedrun::SpeedrunResult again = speedrun::run_speedrun(recipe, data, spec, "");
  recipe.graph = false;
  const speedrun::SpeedrunResult unrolled = speedrun::run_speedrun(recipe, data, spec, "");
  REQUIRE(first.runs.size() == 2);
  REQUIRE(first.evaluated == "test");
  for (size_t k = 0; k < 2; ++k) {
    INFO("seed " << first.runs[k].seed);
    CHECK(std::isfinite(first.runs[k].loss));
    CHECK(first.runs[k].accuracy > 0.5);  // ten bars, two epochs: learnt, not guessed
    CHECK(first.runs[k].train_ms > 0);
    CHECK(again.runs[k].accuracy == first.runs[k].accuracy);
    CHECK(again.runs[k].loss == first.runs[k].loss);
    CHECK(unrolled.runs[k].loss == first.runs[k].loss);
  }
  // Another seed: other weights, orders and shifts.
  CHECK(first.runs[0].loss != first.runs[1].loss);
  CHECK(first.mean_accuracy() == Approx((first.runs[0].accuracy + first.runs[1].accuracy) / 2));
}

TEST_CASE("each piece of the recipe changes the run: schedule, smoothing, shifts, optimizer", "[14-speedrun_gpu]") {
  const framework::TrainingData data = bar_data();
  speedrun::Recipe base = short_recipe();
  base.seeds = 1;
  const host_training::ModelSpec spec = speedrun::speedrun_model(base, data, COURSE_SPEEDRUN_MODELS_DIR);
  const double reference = speedrun::run_speedrun(base, data, spec, "").runs[0].loss;
  auto loss_with = [&](auto change) {
    speedrun::Recipe r = base;
    change(r);
    return speedrun::run_speedrun(r, data, spec, "").runs[0].loss;
  };
  CHECK(loss_with([](speedrun::Recipe& r) { r.schedule = speedrun::Schedule::constant; }) != reference);
  CHECK(loss_with([](speedrun::Recipe& r) { r.smoothing = 0; }) != reference);
  CHECK(loss_with([](speedrun::Recipe& r) { r.shift = 0; }) != reference);
  REQUIRE(base.optimizer == framework::OptimizerKind::adam);
  CHECK(loss_with([](speedrun::Recipe& r) { r.optimizer = framework::OptimizerKind::nesterov, r.lr = 0.1f; }) != reference);
  CHECK(loss_with([](speedrun::Recipe& r) { r.optimizer = framework::OptimizerKind::sgd, r.lr = 0.1f; }) != reference);
  CHECK(loss_with([](speedrun::Recipe& r) { r.precision = "bf16"; }) != reference);
}

TEST_CASE("--precision bf16 (lesson 10's Tensor Core convolutions) learns as FP32 does, reproducibly",
          "[14-speedrun_gpu]") {
  const framework::TrainingData data = bar_data();
  speedrun::Recipe recipe = short_recipe();
  recipe.seeds = 1, recipe.precision = "bf16";
  const host_training::ModelSpec spec = speedrun::speedrun_model(recipe, data, COURSE_SPEEDRUN_MODELS_DIR);
  const speedrun::SpeedrunResult first = speedrun::run_speedrun(recipe, data, spec, "");
  const speedrun::SpeedrunResult again = speedrun::run_speedrun(recipe, data, spec, "");
  CHECK(std::isfinite(first.runs[0].loss));
  CHECK(first.runs[0].accuracy > 0.5);
  CHECK(again.runs[0].loss == first.runs[0].loss);
}

TEST_CASE("--val holds out the end of the training set and never reads the test set", "[14-speedrun_gpu]") {
  framework::TrainingData data = bar_data();
  for (int& label : data.test.labels) label = 99;  // evaluating these would give a NaN loss
  speedrun::Recipe recipe = short_recipe();
  recipe.seeds = 1, recipe.val = 300;
  const host_training::ModelSpec spec = speedrun::speedrun_model(recipe, data, COURSE_SPEEDRUN_MODELS_DIR);
  const speedrun::SpeedrunResult result = speedrun::run_speedrun(recipe, data, spec, "");
  REQUIRE(result.evaluated == "validation");
  CHECK(std::isfinite(result.runs[0].loss));
  CHECK(result.runs[0].accuracy > 0.5);
  recipe.val = 1500;  // nothing left to train on
  std::string message;
  try {
    speedrun::run_speedrun(recipe, data, spec, "");
  } catch (const course::Error& e) {
    message = e.what();
  }
  CHECK(message.find("--val 1500") != std::string::npos);
}

TEST_CASE("train_speedrun's look at your steps passes finished kernels", "[14-speedrun_gpu]") {
  CHECK_NOTHROW(speedrun::check_your_steps());
}

TEST_CASE("the smallest speedrun: one seed, one epoch of four steps, FP32 and BF16", "[14-speedrun_gpu]") {
  // Small enough for compute-sanitizer's racecheck, which runs every kernel of the run.
  framework::TrainingData data;
  data.dir = "(generated)";
  data.train = bars(512, 11);
  data.test = bars(100, 12);
  speedrun::Recipe recipe = short_recipe();
  recipe.epochs = 1, recipe.seeds = 1;
  const host_training::ModelSpec spec = speedrun::speedrun_model(recipe, data, COURSE_SPEEDRUN_MODELS_DIR);
  for (const char* precision : {"fp32", "bf16"}) {
    recipe.precision = precision;
    const speedrun::SpeedrunResult result = speedrun::run_speedrun(recipe, data, spec, "");
    INFO(precision);
    CHECK(std::isfinite(result.runs[0].loss));
    CHECK(result.runs[0].accuracy >= 0.0);
  }
}
