// Lesson 09, step 09.1: what each pass of each layer costs. YOUR FILE.
#include "course/error.hpp"
#include "fast_training.hpp"

namespace fast_training {

PassCost layer_pass_cost(const host_training::LayerPlan& plan, int batch, bool backward, bool input_grad) {
  // TODO(09.1): the flops and bytes of one pass of `plan` over `batch` examples, as
  // fast_training.hpp defines them: conv and dense count 2 flops per multiply-add (backward: dW,
  // and dx only when input_grad); ReLU and max-pool count bytes only (max-pool as lesson 08 runs
  // it: its forward also writes the argmax, its backward reads it). Every tensor the pass needs
  // is read once, every one it produces written once; a backward pass with input_grad false
  // neither reads W nor writes dx. batch < 1 throws course::Error.
  (void)plan, (void)batch, (void)backward, (void)input_grad;
  course::todo("09.1", "layer_pass_cost");
}

PassCost loss_pass_cost(int batch, int classes, bool backward) {
  // TODO(09.1): softmax-cross-entropy's bytes (no flops counted): forward reads logits and
  // labels and writes probabilities and row losses; backward reads probabilities and labels and
  // writes the gradient of the logits. batch or classes < 1 throws course::Error.
  (void)batch, (void)classes, (void)backward;
  course::todo("09.1", "loss_pass_cost");
}

}  // namespace fast_training
