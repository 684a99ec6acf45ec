// Lesson 13, step 13.3 (first part): when is a layer's gradient final? YOUR FILE: GradientReadiness's
// backward_starts and pass_ends (gradient_readiness.hpp says what each must do).
#include "course/error.hpp"
#include "gradient_readiness.hpp"

namespace data_parallel {

void GradientReadiness::backward_starts(size_t position, const Report& report) {
  // TODO(13.3): refuse a position that is not a layer (course::Error). Every layer after `position`
  // is final now: walk unreported_end_ down to position + 1, reporting each layer with parameters.
  (void)position, (void)report;
  course::todo("13.3", "GradientReadiness::backward_starts");
}

void GradientReadiness::pass_ends(const Report& report) {
  // TODO(13.3): every layer is final: the same walk, down to layer 0.
  (void)report;
  course::todo("13.3", "GradientReadiness::pass_ends");
}

}  // namespace data_parallel
