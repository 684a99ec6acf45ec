// Lesson 14 (given): the quick look at your 14.1-14.4 before train_speedrun trains (your_steps_check.hpp).
#include "your_steps_check.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/step_output.hpp"
#include "speedrun.hpp"

namespace speedrun {

namespace {

struct Check {
  const char* step;  // "14.2"
  const char* file;  // where the kernel is written
  const char* function;
};

// GPU against your host function: finite, and within 1e-5 + 1e-4 |host| (the same formula in float,
// other rounding); exact for the shifts (a copy).
void expect_same(const Check& c, const char* output, const std::vector<float>& gpu, const std::vector<float>& host,
                 bool exact) {
  course::expect_step_output({c.step, c.function, c.file, output}, gpu, std::vector<double>(host.begin(), host.end()),
                             exact ? 0.0 : 1e-5, exact ? 0.0 : 1e-4, "your host function gives");
}



}  // namespace

void check_your_steps() {
  (void)one_cycle_lr(0, 10, 2, 0.1f);  // 14.1: an unwritten schedule throws its TODO here

  // 14.2: 37 rows of 10 classes.
  const int rows = 37, classes = 10;
  const std::vector<float> logits = course::random_uniform(size_t(rows) * classes, 140 + 1, -4.f, 4.f);
  std::vector<int> labels(rows);
  for (int b = 0; b < rows; ++b) labels[size_t(b)] = (b * 7) % classes;
  std::vector<float> loss(rows), grad(logits.size());
  smoothed_cross_entropy(logits.data(), labels.data(), loss.data(), grad.data(), rows, classes, 0.1f);
  {
    course::DeviceBuffer<float> d_logits(logits), d_loss(course::unwritten_floats(loss.size())), d_grad(course::unwritten_floats(grad.size()));
    course::DeviceBuffer<int> d_labels(labels);
    smoothed_cross_entropy_gpu(d_logits.data(), d_labels.data(), d_loss.data(), d_grad.data(), rows, classes, 0.1f);
    const Check c{"14.2", "exercises/smoothing.cu", "smoothed_cross_entropy_gpu"};
    expect_same(c, "row_loss", d_loss.to_host(), loss, false);
    expect_same(c, "dlogits", d_grad.to_host(), grad, false);
  }

  // 14.3: 5 images of 2 x 9 x 11, shifts up to 2.
  const int n = 5, channels = 2, height = 9, width = 11;
  const std::vector<float> x = course::random_uniform(size_t(n) * channels * height * width, 140 + 2, 0.f, 1.f);
  std::vector<float> y(x.size());
  shift_images(x.data(), y.data(), n, channels, height, width, 2, 1234);
  {
    course::DeviceBuffer<float> d_x(x), d_y(course::unwritten_floats(y.size()));
    shift_images_gpu(d_x.data(), d_y.data(), n, channels, height, width, 2, 1234);
    expect_same({"14.3", "exercises/shift.cu", "shift_images_gpu"}, "y", d_y.to_host(), y, true);
  }

  // 14.4: 333 values, two steps (the second one reads the velocity of the first).
  const size_t count = 333;
  std::vector<float> w = course::random_uniform(count, 140 + 3, -1.f, 1.f), velocity(count, 0.f);
  const std::vector<float> g = course::random_uniform(count, 140 + 4, -1.f, 1.f);
  course::DeviceBuffer<float> d_w(w), d_v(velocity), d_g(g), d_lr(std::vector<float>{0.1f});
  for (int step = 0; step < 2; ++step) {
    nesterov_step(w.data(), g.data(), velocity.data(), count, 0.1f, 0.9f, 5e-4f);
    nesterov_update_gpu(d_w.data(), d_g.data(), d_v.data(), count, d_lr.data(), 0.9f, 5e-4f);
  }
  const Check c{"14.4", "exercises/nesterov.cu", "nesterov_update_gpu"};
  expect_same(c, "velocity", d_v.to_host(), velocity, false);
  expect_same(c, "w", d_w.to_host(), w, false);
}

}  // namespace speedrun
