#pragma once
// Lesson 12 (given): your Adadelta (12.3) as an update rule of lesson 02's Optimizer and of lesson
// 08's DeviceOptimizer, the optimizer "adadelta" with OptimizerConfig's lr, rho, adadelta_eps and
// weight_decay. Two states per value: the running averages of g^2 and of the steps squared.
#include "host_training.hpp"
#include "optimizer.hpp"

namespace beyond_mnist {

const host_training::UpdateRule& adadelta_rule();           // host: adadelta_step
const mnist_gpu::DeviceUpdateRule& adadelta_device_rule();  // GPU: adadelta_update_gpu, one launch

}  // namespace beyond_mnist
