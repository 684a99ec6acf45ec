// Lesson 12 (given): Adadelta as the optimizers' update rule (adadelta_rules.hpp).
#include "adadelta_rules.hpp"

#include "beyond_mnist.hpp"

namespace beyond_mnist {

const host_training::UpdateRule& adadelta_rule() {
  static const host_training::UpdateRule rule{
      framework::OptimizerKind::adadelta, 2,
      [](float* w, const float* g, float* square_avg, float* delta_avg, size_t n,
         const host_training::OptimizerConfig& c, int) {
        adadelta_step(w, g, square_avg, delta_avg, n, c.lr, c.rho, c.adadelta_eps, c.weight_decay);
      }};
  return rule;
}

const mnist_gpu::DeviceUpdateRule& adadelta_device_rule() {
  static const mnist_gpu::DeviceUpdateRule rule{
      framework::OptimizerKind::adadelta, 2,
      [](float* w, const float* g, float* square_avg, float* delta_avg, size_t n,
         const host_training::OptimizerConfig& c, int, const float* lr, cudaStream_t stream) {
        adadelta_update_gpu(w, g, square_avg, delta_avg, n, lr, c.rho, c.adadelta_eps, c.weight_decay, stream);
      }};
  return rule;
}

}  // namespace beyond_mnist
