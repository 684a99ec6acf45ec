// Lesson 12: the argument checks of 12.2 and 12.3 (given). The host functions and the GPU
// launchers call the same check, so both refuse the same values with the same message.
#include <string>

#include "beyond_mnist.hpp"
#include "course/error.hpp"
#include "course/number_text.hpp"

namespace beyond_mnist {

void check_dropout_rate(const char* function, float rate) {
  // Written so that NaN fails: every comparison with NaN is false.
  if (!(rate >= 0.0f && rate < 1.0f))
    throw course::Error(std::string(function) + ": the dropout rate must be in [0, 1), got " +
                        course::shortest_text(rate));
}

void check_adadelta(const char* function, float lr, float rho, float eps) {
  const std::string name(function);
  if (!(lr > 0.0f)) throw course::Error(name + ": the learning rate lr must be > 0, got " + course::shortest_text(lr));
  if (!(rho >= 0.0f && rho <= 1.0f))
    throw course::Error(name + ": rho must be in [0, 1], got " + course::shortest_text(rho));
  if (!(eps > 0.0f)) throw course::Error(name + ": eps must be > 0, got " + course::shortest_text(eps));
}

}  // namespace beyond_mnist
