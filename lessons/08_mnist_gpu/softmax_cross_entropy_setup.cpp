// Lesson 08 (given code): the loss's buffers, name and batch check. Its forward and backward
// passes are step 08.1 (exercises/softmax_cross_entropy.cpp).
#include "softmax_cross_entropy.hpp"

#include <cstring>
#include <string>

#include "course/error.hpp"

namespace mnist_gpu {

SoftmaxCrossEntropy::SoftmaxCrossEntropy(int classes, int max_batch)
    : classes_(classes), max_batch_(max_batch), probs_(size_t(max_batch) * classes), row_loss_(size_t(max_batch)),
      dlogits_(size_t(max_batch) * classes) {
  if (classes < 1 || max_batch < 1) throw course::Error("SoftmaxCrossEntropy: classes and max_batch must be >= 1");
}

const std::string& SoftmaxCrossEntropy::name() {
  static const std::string loss_name = "loss";
  return loss_name;
}

void SoftmaxCrossEntropy::check_batch(int batch, const char* what) const {
  if (observer_) observer_->pass_starts(name(), std::strcmp(what, "backward") == 0);
  if (batch < 1 || batch > max_batch_)
    throw course::Error(std::string("softmax-cross-entropy ") + what + ": batch " + std::to_string(batch) +
                        " outside 1.." + std::to_string(max_batch_));
}

}  // namespace mnist_gpu
