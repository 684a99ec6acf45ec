// Lesson 09, step 09.1: what each pass of each layer costs, in flops and in bytes.
#include "course/error.hpp"
#include "fast_training.hpp"

namespace fast_training {

namespace {
constexpr double kFloat = 4.0;  // bytes per float (and per int: argmax, labels)
}

PassCost layer_pass_cost(const host_training::LayerPlan& plan, int batch, bool backward, bool input_grad) {
  if (batch < 1) throw course::Error("layer_pass_cost: batch must be >= 1");
  const double in = double(batch) * plan.in_size(), out = double(batch) * plan.out_size();
  PassCost cost;
  switch (plan.spec.kind) {
    case host_training::LayerKind::conv:
    case host_training::LayerKind::dense: {
      // Both are sums of in_c * k * k (dense: in) products per output value.
      const bool conv = plan.spec.kind == host_training::LayerKind::conv;
      const double per_output = conv ? double(plan.in_c) * plan.spec.kernel * plan.spec.kernel : double(plan.in_size());
      const double weights = double(plan.out_c) * per_output, bias = plan.out_c;
      const double multiply_adds = out * per_output;
      if (!backward) {
        cost.flops = 2 * multiply_adds;
        cost.bytes = kFloat * (in + weights + bias + out);  // x, W, bias in; y out
      } else {
        // dW and dbias from x and dy always; dx from W and dy only when someone needs it.
        cost.flops = 2 * multiply_adds * (input_grad ? 2 : 1);
        cost.bytes = kFloat * (in + out + weights + bias + (input_grad ? weights + in : 0));
      }
      break;
    }
    case host_training::LayerKind::relu:
    case host_training::LayerKind::sigmoid:  // the other elementwise layers move the same bytes
    case host_training::LayerKind::tanh:
    case host_training::LayerKind::dropout:
      if (!backward) cost.bytes = kFloat * (in + out);            // x in, y out
      else if (input_grad) cost.bytes = kFloat * (in + out + in);  // x and dy in, dx out
      break;
    case host_training::LayerKind::maxpool:
      if (!backward) cost.bytes = kFloat * (in + 2 * out);            // x in; y and argmax out
      else if (input_grad) cost.bytes = kFloat * (2 * out + in);       // argmax and dy in, dx out
      break;
    default:  // a later lesson's layer
      throw course::Error("layer_pass_cost: '" + host_training::layer_text(plan.spec) + "' is not a layer this lesson counts");
  }
  return cost;
}

PassCost loss_pass_cost(int batch, int classes, bool backward) {
  if (batch < 1 || classes < 1) throw course::Error("loss_pass_cost: batch and classes must be >= 1");
  const double logits = double(batch) * classes, rows = batch;
  PassCost cost;
  cost.bytes = backward ? kFloat * (logits + rows + logits)   // probs and labels in, dlogits out
                        : kFloat * (logits + rows + logits + rows);  // logits and labels in; probs, row losses out
  return cost;
}

}  // namespace fast_training
