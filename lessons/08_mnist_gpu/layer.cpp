// Lesson 08 (given code): what every layer shares, its buffers and the batch check.
#include "layer.hpp"

#include <cstring>
#include <string>
#include <utility>

#include "course/error.hpp"

namespace mnist_gpu {

Layer::Layer(std::string name, const host_training::LayerPlan& plan, int max_batch)
    : name_(std::move(name)), plan_(plan), max_batch_(max_batch) {
  if (max_batch < 1) throw course::Error("layer " + name_ + ": max_batch must be >= 1");
  out_ = course::DeviceBuffer<float>(size_t(max_batch) * plan.out_size());
  din_ = course::DeviceBuffer<float>(size_t(max_batch) * plan.in_size());
}

void Layer::check_batch(int batch, const char* what) const {
  if (observer_) observer_->pass_starts(name_, std::strcmp(what, "backward") == 0);
  if (batch < 1 || batch > max_batch_)
    throw course::Error(name_ + " " + what + ": batch " + std::to_string(batch) + " outside 1.." +
                        std::to_string(max_batch_));
}

}  // namespace mnist_gpu
