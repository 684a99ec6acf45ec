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

namespace {
void check_averages(const std::string& name, float rho, float eps) {
  if (!(rho >= 0.0f && rho <= 1.0f))
    throw course::Error(name + ": rho must be in [0, 1], got " + course::shortest_text(rho));
  if (!(eps > 0.0f)) throw course::Error(name + ": eps must be > 0, got " + course::shortest_text(eps));
}
}  // namespace

void check_adadelta(const char* function, float lr, float rho, float eps) {
  const std::string name(function);
  if (!(lr > 0.0f)) throw course::Error(name + ": the learning rate lr must be > 0, got " + course::shortest_text(lr));
  check_averages(name, rho, eps);
}

void check_adadelta_gpu(const char* function, const float* lr, size_t n, float rho, float eps) {
  const std::string name(function);
  if (n > 0 && lr == nullptr) throw course::Error(name + ": lr must point to the rate in device memory, got null");
  check_averages(name, rho, eps);
}

}  // namespace beyond_mnist
