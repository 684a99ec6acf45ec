// Lesson 13, step 13.3: when is a layer's gradient final? (solution)
#include <string>

#include "course/error.hpp"
#include "gradient_readiness.hpp"

namespace data_parallel {

void GradientReadiness::backward_starts(size_t position, const Report& report) {
  if (position >= weight_of_layer_.size())
    throw course::Error("GradientReadiness: no layer " + std::to_string(position) + " in a list of " +
                        std::to_string(weight_of_layer_.size()));
  // Layers position+1 .. unreported_end_-1 became final; walking down reports the last first.
  for (; unreported_end_ > position + 1; --unreported_end_) {
    const long weight = weight_of_layer_[unreported_end_ - 1];
    if (weight >= 0) report(size_t(weight));
  }
}

void GradientReadiness::pass_ends(const Report& report) {
  for (; unreported_end_ > 0; --unreported_end_) {
    const long weight = weight_of_layer_[unreported_end_ - 1];
    if (weight >= 0) report(size_t(weight));
  }
}

}  // namespace data_parallel
