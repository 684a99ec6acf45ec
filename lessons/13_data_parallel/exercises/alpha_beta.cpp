// Lesson 13, step 13.4: fit the alpha-beta model of an all-reduce. YOUR FILE: fit_alpha_beta
// (alpha_beta.hpp says what it must do).
#include "alpha_beta.hpp"
#include "course/error.hpp"

namespace data_parallel {

AlphaBeta fit_alpha_beta(const std::vector<AllReduceTime>& sweep, int ranks) {
  // TODO(13.4): refuse bad input (course::Error); the model is a straight line in x = 2 (n-1)/n *
  // bytes with intercept alpha and slope 1 / beta: solve the weighted least-squares problem for
  // both (each point weighed by 1 / seconds^2); refuse a fit whose alpha or beta is not > 0.
  (void)sweep, (void)ranks;
  course::todo("13.4", "fit_alpha_beta");
}

}  // namespace data_parallel
