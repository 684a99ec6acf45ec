// Lesson 16 (given): the sine task's network on the CPU (sine_model.hpp).
#include "sine_model.hpp"

#include <cmath>
#include <string>

#include "course/error.hpp"
#include "course/rng.hpp"
#include "deeper_cnns.hpp"   // 15.4's regression_loss
#include "host_layers.hpp"   // 01.1's dense layer
#include "host_training.hpp" // 02.2's Adam

namespace recurrent {

SineNetwork::SineNetwork(int hidden, uint64_t seed) : hidden_(hidden) {
  if (hidden < 1) throw course::Error("SineNetwork: hidden must be >= 1, got " + std::to_string(hidden));
  const size_t G = 4 * size_t(hidden);
  const float bound = 1.0f / std::sqrt(float(hidden));
  course::Rng rng(seed, 160);
  const size_t sizes[6] = {G, G * hidden, G, G, size_t(hidden), 1};
  for (int k = 0; k < 6; ++k) {
    Tensor& t = *tensors[k];
    t.value.resize(sizes[k]);
    rng.fill_uniform(t.value, -bound, bound);
    t.grad.assign(sizes[k], 0.0f), t.m.assign(sizes[k], 0.0f), t.v.assign(sizes[k], 0.0f);
  }
}

size_t SineNetwork::parameter_count() const {
  size_t n = 0;
  for (const Tensor* t : tensors) n += t->value.size();
  return n;
}

LstmParams<float> SineNetwork::lstm() const {
  return {w_ih_.value.data(), w_hh_.value.data(), b_ih_.value.data(), b_hh_.value.data()};
}

void SineNetwork::run(const LstmShape& s, const float* inputs, const float* h0, const float* c0) {
  const size_t states = size_t(s.steps) * s.batch * hidden_;
  h_.resize(states), c_.resize(states), gates_.resize(states * 4), pred_.resize(size_t(s.steps) * s.batch);
  lstm_forward<float>(s, lstm(), inputs, h0, c0, h_.data(), c_.data(), gates_.data());
  host_layers::dense_forward<float>(h_.data(), head_w_.value.data(), head_b_.value.data(), pred_.data(),
                                    s.steps * s.batch, hidden_, 1);
}

double SineNetwork::loss(const SineSet& set, bool learn) {
  const LstmShape s = shape(set.count, set.steps);
  const std::vector<float> zeros(size_t(set.count) * hidden_, 0.0f);
  run(s, set.inputs.data(), zeros.data(), zeros.data());
  const int rows = set.steps * set.count;
  std::vector<float> row_loss(static_cast<size_t>(rows)), dpred(static_cast<size_t>(rows));
  const float loss = deeper_cnns::regression_loss<float>(deeper_cnns::RegressionLoss::squared, pred_.data(),
                                                         set.targets.data(), rows, 1, 1.0f, row_loss.data(),
                                                         dpred.data());
  if (!learn) return loss;
  std::vector<float> dh(h_.size()), dx(set.inputs.size()), dh0(zeros.size()), dc0(zeros.size());
  host_layers::dense_backward<float>(h_.data(), head_w_.value.data(), dpred.data(), dh.data(), head_w_.grad.data(),
                                     head_b_.grad.data(), rows, hidden_, 1);
  lstm_backward<float>(s, lstm(), set.inputs.data(), zeros.data(), zeros.data(), h_.data(), c_.data(), gates_.data(),
                       dh.data(), nullptr, nullptr, dx.data(), dh0.data(), dc0.data(),
                       {w_ih_.grad.data(), w_hh_.grad.data(), b_ih_.grad.data(), b_hh_.grad.data()});
  return loss;
}

void SineNetwork::update(float lr, int step) {
  for (Tensor* t : tensors)
    host_training::adam_step(t->value.data(), t->grad.data(), t->m.data(), t->v.data(), t->value.size(), lr, 0.9f,
                             0.999f, 1e-8f, step);
}

std::vector<float> SineNetwork::predict(const SineSet& set, int future, std::vector<float>* one_step_ahead) {
  const std::vector<float> zeros(size_t(set.count) * hidden_, 0.0f);
  run(shape(set.count, set.steps), set.inputs.data(), zeros.data(), zeros.data());
  if (one_step_ahead) *one_step_ahead = pred_;
  const size_t last = size_t(set.steps - 1) * set.count;
  std::vector<float> x(pred_.begin() + last, pred_.end());  // the prediction of each sequence's last value
  std::vector<float> h(h_.begin() + last * hidden_, h_.end()), c(c_.begin() + last * hidden_, c_.end());
  std::vector<float> generated;
  generated.reserve(size_t(future) * set.count);
  for (int t = 0; t < future; ++t) {
    run(shape(set.count, 1), x.data(), h.data(), c.data());  // one step, fed its own prediction
    x = pred_, h = h_, c = c_;
    generated.insert(generated.end(), x.begin(), x.end());
  }
  return generated;
}

}  // namespace recurrent
