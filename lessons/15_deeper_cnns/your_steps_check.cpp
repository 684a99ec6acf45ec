// Lesson 15 (given): the quick look at your steps before train_deeper or train_boxes trains
// (your_steps_check.hpp).
#include "your_steps_check.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/rng.hpp"
#include "course/step_output.hpp"
#include "deeper_cnns.hpp"
#include "box_task.hpp"
#include "deeper_host_network.hpp"  // kBatchNormEps, kBatchNormMomentum

namespace deeper_cnns {

namespace {

const BatchNormShape kShape{3, 5, 40, 70};  // M = 8400 values a channel: 15.6 cuts it into 3 slices

std::vector<double> as_doubles(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

// What the host functions give; every output must be written (finite) first.
struct HostPasses {
  std::vector<float> x, dy, gamma, beta, y, mean, inv_std, run_mean, run_var, eval_y, dx, dgamma, dbeta, pooled, spread;
};

HostPasses host_passes() {
  const BatchNormShape& s = kShape;
  const size_t C = size_t(s.channels);
  HostPasses h;
  h.x = course::random_uniform(s.size(), 1501, -2.f, 3.f), h.dy = course::random_uniform(s.size(), 1502, -1.f, 1.f);
  h.gamma = course::random_uniform(C, 1503, 0.5f, 1.5f), h.beta = course::random_uniform(C, 1504, -0.5f, 0.5f);
  h.y = course::unwritten_floats(s.size()), h.mean = course::unwritten_floats(C), h.inv_std = course::unwritten_floats(C);
  h.run_mean.assign(C, 0.0f), h.run_var.assign(C, 1.0f);
  batch_norm_forward_train<float>(s, h.x.data(), h.gamma.data(), h.beta.data(), kBatchNormEps, kBatchNormMomentum,
                                  h.y.data(), h.mean.data(), h.inv_std.data(), h.run_mean.data(), h.run_var.data());
  course::expect_step_written({"15.1", "batch_norm_forward_train", "exercises/batch_norm.cpp", "y"}, h.y);
  h.eval_y = course::unwritten_floats(s.size());
  batch_norm_forward_eval<float>(s, h.x.data(), h.gamma.data(), h.beta.data(), h.run_mean.data(), h.run_var.data(),
                                 kBatchNormEps, h.eval_y.data());
  course::expect_step_written({"15.1", "batch_norm_forward_eval", "exercises/batch_norm.cpp", "y"}, h.eval_y);
  h.dx = course::unwritten_floats(s.size()), h.dgamma = course::unwritten_floats(C), h.dbeta = course::unwritten_floats(C);
  batch_norm_backward<float>(s, h.x.data(), h.dy.data(), h.gamma.data(), h.mean.data(), h.inv_std.data(), h.dx.data(),
                             h.dgamma.data(), h.dbeta.data());
  course::expect_step_written({"15.1", "batch_norm_backward", "exercises/batch_norm.cpp", "dx"}, h.dx);
  const int plane = s.height * s.width;
  h.pooled = course::unwritten_floats(size_t(s.batch) * C);
  global_avg_pool_forward<float>(h.x.data(), h.pooled.data(), s.batch, s.channels, plane);
  course::expect_step_written({"15.5", "global_avg_pool_forward", "exercises/global_avg_pool.cpp", "y"}, h.pooled);
  h.spread = course::unwritten_floats(s.size());
  global_avg_pool_backward<float>(h.dy.data(), h.spread.data(), s.batch, s.channels, plane);
  course::expect_step_written({"15.5", "global_avg_pool_backward", "exercises/global_avg_pool.cpp", "dx"}, h.spread);
  return h;
}

// Your kernels against your host functions: float against float in other orders, a few ulps.
void check_kernels(const HostPasses& h) {
  const BatchNormShape& s = kShape;
  const size_t C = size_t(s.channels);
  const char* bn_file = "exercises/batch_norm.cu";
  const std::string host = "your host function (15.1) gives";
  course::DeviceBuffer<float> x(h.x), dy(h.dy), gamma(h.gamma), beta(h.beta);
  course::DeviceBuffer<float> y(course::unwritten_floats(s.size())), mean(course::unwritten_floats(C)),
      inv_std(course::unwritten_floats(C)), run_mean(std::vector<float>(C, 0.0f)), run_var(std::vector<float>(C, 1.0f));
  batch_norm_forward_train_gpu(s, x.data(), gamma.data(), beta.data(), kBatchNormEps, kBatchNormMomentum, false,
                               y.data(), mean.data(), inv_std.data(), run_mean.data(), run_var.data());
  course::expect_step_output({"15.2", "batch_norm_forward_train_gpu", bn_file, "y"}, y.to_host(), as_doubles(h.y), 1e-4,
                             1e-4, host);
  course::expect_step_output({"15.2", "batch_norm_forward_train_gpu", bn_file, "running_var"}, run_var.to_host(),
                             as_doubles(h.run_var), 1e-5, 1e-4, host);
  course::DeviceBuffer<float> eval_y(course::unwritten_floats(s.size()));
  batch_norm_forward_eval_gpu(s, x.data(), gamma.data(), beta.data(), run_mean.data(), run_var.data(), kBatchNormEps,
                              false, eval_y.data());
  course::expect_step_output({"15.2", "batch_norm_forward_eval_gpu", bn_file, "y"}, eval_y.to_host(),
                             as_doubles(h.eval_y), 1e-4, 1e-4, host);
  course::DeviceBuffer<float> dx(course::unwritten_floats(s.size())), dgamma(course::unwritten_floats(C)),
      dbeta(course::unwritten_floats(C));
  batch_norm_backward_gpu(s, x.data(), dy.data(), nullptr, gamma.data(), mean.data(), inv_std.data(), dx.data(),
                          dgamma.data(), dbeta.data());
  course::expect_step_output({"15.2", "batch_norm_backward_gpu", bn_file, "dx"}, dx.to_host(), as_doubles(h.dx), 1e-4,
                             1e-3, host);
  course::expect_step_output({"15.2", "batch_norm_backward_gpu", bn_file, "dgamma"}, dgamma.to_host(),
                             as_doubles(h.dgamma), 1e-4, 1e-3, host);

  // 15.6: the same passes across the whole GPU (kShape: 3 slices a channel of one image each).
  const char* wide_file = "exercises/batch_norm_wide.cu";
  course::DeviceBuffer<float> workspace(course::unwritten_floats(batch_norm_wide_workspace_floats(s)));
  y = course::DeviceBuffer<float>(course::unwritten_floats(s.size()));
  mean = course::DeviceBuffer<float>(course::unwritten_floats(C));
  inv_std = course::DeviceBuffer<float>(course::unwritten_floats(C));
  run_mean = course::DeviceBuffer<float>(std::vector<float>(C, 0.0f));
  run_var = course::DeviceBuffer<float>(std::vector<float>(C, 1.0f));
  batch_norm_forward_train_wide_gpu(s, x.data(), gamma.data(), beta.data(), kBatchNormEps, kBatchNormMomentum, nullptr,
                                    false, y.data(), mean.data(), inv_std.data(), run_mean.data(), run_var.data(),
                                    workspace.data());
  course::expect_step_output({"15.6", "batch_norm_forward_train_wide_gpu", wide_file, "y"}, y.to_host(),
                             as_doubles(h.y), 1e-4, 1e-4, host);
  course::expect_step_output({"15.6", "batch_norm_forward_train_wide_gpu", wide_file, "running_var"},
                             run_var.to_host(), as_doubles(h.run_var), 1e-5, 1e-4, host);
  dx = course::DeviceBuffer<float>(course::unwritten_floats(s.size()));
  dgamma = course::DeviceBuffer<float>(course::unwritten_floats(C));
  batch_norm_backward_wide_gpu(s, x.data(), dy.data(), nullptr, gamma.data(), mean.data(), inv_std.data(), dx.data(),
                               dgamma.data(), dbeta.data(), workspace.data());
  course::expect_step_output({"15.6", "batch_norm_backward_wide_gpu", wide_file, "dx"}, dx.to_host(), as_doubles(h.dx),
                             1e-4, 1e-3, host);
  course::expect_step_output({"15.6", "batch_norm_backward_wide_gpu", wide_file, "dgamma"}, dgamma.to_host(),
                             as_doubles(h.dgamma), 1e-4, 1e-3, host);

  const char* pool_file = "exercises/global_avg_pool.cu";
  const std::string pool_host = "your host function (15.5) gives";
  const int plane = s.height * s.width;
  course::DeviceBuffer<float> pooled(course::unwritten_floats(h.pooled.size())), spread(course::unwritten_floats(s.size()));
  global_avg_pool_forward_gpu(x.data(), pooled.data(), s.batch, s.channels, plane);
  course::expect_step_output({"15.5", "global_avg_pool_forward_gpu", pool_file, "y"}, pooled.to_host(),
                             as_doubles(h.pooled), 1e-5, 1e-5, pool_host);
  global_avg_pool_backward_gpu(dy.data(), spread.data(), s.batch, s.channels, plane);
  course::expect_step_output({"15.5", "global_avg_pool_backward_gpu", pool_file, "dx"}, spread.to_host(),
                             as_doubles(h.spread), 1e-6, 1e-5, pool_host);
}

}  // namespace

void check_your_steps(bool gpu) {
  const HostPasses h = host_passes();
  if (gpu) check_kernels(h);
}

void check_your_regression_loss(RegressionLoss kind, float beta) {
  const int batch = 37, outputs = 4;
  const size_t n = size_t(batch) * outputs;
  const std::vector<float> pred = course::random_uniform(n, 1505, -0.5f, 1.5f);
  const std::vector<float> target = course::random_uniform(n, 1506, 0.0f, 1.0f);
  std::vector<float> rows = course::unwritten_floats(size_t(batch)), dpred = course::unwritten_floats(n);
  regression_loss<float>(kind, pred.data(), target.data(), batch, outputs, beta, rows.data(), dpred.data());
  const char* host_file = "exercises/regression_loss.cpp";
  course::expect_step_written({"15.4", "regression_loss", host_file, "row_loss"}, rows);
  course::expect_step_written({"15.4", "regression_loss", host_file, "dpred"}, dpred);

  course::DeviceBuffer<float> p(pred), t(target), r(course::unwritten_floats(size_t(batch))),
      d(course::unwritten_floats(n));
  regression_loss_gpu(kind, p.data(), t.data(), batch, outputs, beta, r.data(), d.data());
  const char* gpu_file = "exercises/regression_loss.cu";
  const std::string host = "your host function (15.4) gives";
  course::expect_step_output({"15.4", "regression_loss_gpu", gpu_file, "row_loss"}, r.to_host(), as_doubles(rows),
                             1e-7, 1e-5, host);
  course::expect_step_output({"15.4", "regression_loss_gpu", gpu_file, "dpred"}, d.to_host(), as_doubles(dpred), 1e-7,
                             1e-5, host);
}

void check_your_box_scores() {
  // Twice as wide as the truth: IoU 0.5; corners (0 and 16 pixels off): 8 pixels on a 64-pixel canvas.
  const float truth[4] = {0.0f, 0.0f, 0.25f, 0.5f}, wide[4] = {0.0f, 0.0f, 0.5f, 0.5f};
  const char* host_file = "exercises/box_scores.cpp";
  course::expect_step_output({"15.7", "box_iou", host_file, "its IoU"}, {box_iou(wide, truth)}, {0.5}, 1e-6, 1e-5);
  course::expect_step_output({"15.7", "corner_error", host_file, "its error"}, {corner_error(wide, truth, 64)}, {8.0},
                             1e-5, 1e-5);
  const float inside_out[4] = {0.25f, 0.5f, 0.0f, 0.0f};
  course::expect_step_output({"15.7", "box_iou", host_file, "the IoU of a box that covers nothing"},
                             {box_iou(inside_out, truth)}, {0.0}, 0, 0);

  // Boxes near 37 labels' boxes: the kernel's count against your box_iou's.
  const int batch = 37;
  std::vector<int> labels;
  std::vector<float> outputs;
  const std::vector<float> jitter = course::random_uniform(size_t(batch) * 4, 1571, -0.12f, 0.12f);
  int want = 0;
  for (int b = 0; b < batch; ++b) {
    const Box box{b % 20, b % 13, 30 + b % 30, 20 + b % 40};
    labels.push_back(pack_box(box));
    float t[4];
    box_targets(labels.back(), t);
    float p[4];
    for (int k = 0; k < 4; ++k) p[k] = t[k] + jitter[size_t(b) * 4 + k];
    outputs.insert(outputs.end(), p, p + 4);
    want += box_iou(p, t) >= kIouHit;
  }
  course::DeviceBuffer<float> d_outputs(outputs);
  course::DeviceBuffer<int> d_labels(labels), predictions{size_t(batch)}, hits(std::vector<int>{0});
  count_box_hits_gpu(d_outputs.data(), d_labels.data(), batch, 4, predictions.data(), hits.data(), nullptr);
  const int got = hits.to_host()[0];
  course::expect_step_output({"15.7", "count_box_hits_gpu", "exercises/box_scores.cu", "the boxes found"},
                             {float(got)}, {double(want)}, 0, 0, "your box_iou finds");
}

// x + dy through the ReLU; x + dy where dy > 0.
void check_your_block_passes() {
  const BatchNormShape& s = kShape;
  const std::vector<float> x_host = course::random_uniform(s.size(), 1581, -2.f, 3.f),
                           dy_host = course::random_uniform(s.size(), 1582, -1.f, 1.f);
  const course::DeviceBuffer<float> x(x_host), dy(dy_host);
  std::vector<double> want_sum(s.size()), want_masked(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const float sum = x_host[i] + dy_host[i];
    want_sum[i] = std::max(sum, 0.0f), want_masked[i] = dy_host[i] > 0.0f ? sum : 0.0f;
  }
  course::DeviceBuffer<float> sum(course::unwritten_floats(s.size())), masked(course::unwritten_floats(s.size()));
  add_gpu(x.data(), dy.data(), sum.data(), s.size(), true);
  add_masked_gpu(x.data(), dy.data(), dy.data(), masked.data(), s.size());
  course::expect_step_output({"15.8", "add_gpu", "exercises/block_elementwise.cu", "y"}, sum.to_host(), want_sum, 0, 0);
  course::expect_step_output({"15.8", "add_masked_gpu", "exercises/block_elementwise.cu", "y"}, masked.to_host(), want_masked,
                             0, 0);
}

}  // namespace deeper_cnns
