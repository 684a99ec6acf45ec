#pragma once
// Lesson 13, step 13.3, first part: when is a layer's gradient final? The overlap starts a bucket's
// all-reduce as soon as the network reports that the launches writing its gradients are enqueued (the gradient hook).
// Lesson 09's network knows: it calls the hook right after a layer's dW and dbias launches. Lesson
// 08's network of any layer list only tells a pass observer when each layer's pass STARTS, never
// when one ends. Its backward pass runs the layers from the last to the first, so:
//
//   backward of layer p starts  =>  every layer after p has enqueued all of its launches
//   the whole pass returned      =>  every layer has
//
//   layers:        0 conv   1 relu   2 pool   3 dense   4 relu   5 dense     (weights: 0, -, -, 2, -, 4)
//   notices:       backward of 5 starts -> nothing final yet
//                  backward of 3 starts -> layers 4, 5 final: report weight 4
//                  backward of 0 starts -> layers 1..5 final: report weight 2
//                  pass returned        -> layer 0 final: report weight 0
//
// GradientReadiness turns those notices into reports: each layer with parameters once a pass, the
// last first, each as early as the notices allow and never earlier. LayerListNetwork
// (network_kinds.hpp) calls it from its pass observer and hands the reports to the hook.
// Host code only: no GPU needed.
#include <cstddef>
#include <functional>
#include <vector>

namespace data_parallel {

class GradientReadiness {
 public:
  using Report = std::function<void(size_t weight)>;  // a weight tensor's gradients are final

  // weight_of_layer[i]: layer i's weight tensor in the parameter store (its bias is the next
  // tensor), -1 for a layer without parameters (relu, pool, dropout, ...).
  explicit GradientReadiness(std::vector<long> weight_of_layer) : weight_of_layer_(std::move(weight_of_layer)) {}

  // A new forward and backward pass: nothing of it is reported yet.
  void pass_begins() { unreported_end_ = weight_of_layer_.size(); }
  // Layer `position`'s backward pass starts: report(weight) for every layer after it that has
  // parameters and was not reported in this pass yet, the last layer first. Throws course::Error
  // when position is not a layer (>= the number of layers).
  void backward_starts(size_t position, const Report& report);
  // The pass has returned: report(weight) for every layer with parameters not reported yet, the
  // last first.
  void pass_ends(const Report& report);

 private:
  std::vector<long> weight_of_layer_;
  size_t unreported_end_ = 0;  // the layers at positions >= this have been reported in this pass
};

}  // namespace data_parallel
