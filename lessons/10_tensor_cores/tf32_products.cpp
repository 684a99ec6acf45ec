// Lesson 10 (given): the table of lesson 09's products in TF32 and its check (tf32_products.hpp).
#include "tf32_products.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/step_output.hpp"
#include "tensor_cores.hpp"

namespace tensor_cores {

namespace {

// A dense forward of odd sizes (more than 16 outputs: the engine runs it; a reduction too short to
// split) in TF32 against the same product in double on the host: TF32 keeps 11 significant bits, so
// each product is off by at most about 2^-10 of itself and the result by about that of the sum of
// |x w| (here below 1e-2 of it, with room). An output left unwritten (NaN) or put elsewhere is off
// by far more.
void check_tf32_math() {
  constexpr int batch = 37, in = 40, out = 45;
  const std::vector<float> x = course::random_uniform(size_t(batch) * in, 1010, -1.f, 1.f),
                           w = course::random_uniform(size_t(out) * in, 1011, -1.f, 1.f),
                           bias = course::random_uniform(size_t(out), 1012, -1.f, 1.f);
  course::DeviceBuffer<float> dx(x), dw(w), dbias(bias), y(course::unwritten_floats(size_t(batch) * out)),
      workspace(fast_training::dense_fused_workspace_floats(batch, in, out));
  detail::dense_forward_tf32(dx.data(), dw.data(), dbias.data(), y.data(), batch, in, out, false, workspace.data(),
                             nullptr);
  const std::vector<float> got = y.to_host();
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o) {
      double want = bias[size_t(o)], magnitude = std::fabs(want);
      for (int i = 0; i < in; ++i) {
        const double p = double(x[size_t(b) * in + i]) * w[size_t(o) * in + i];
        want += p, magnitude += std::fabs(p);
      }
      const double value = got[size_t(b) * out + o];
      if (!(std::fabs(value - want) <= 1e-2 * magnitude)) {
        char line[320];
        std::snprintf(line, sizeof line,
                      "10.10: lesson 09's dense product in TF32 gives y[%d][%d] = %g where it is %g: more than "
                      "TF32's rounding apart; write stage and store in exercises/tf32_math.cuh (check_10.10 tests it)",
                      b, o, value, want);
        throw course::Error(line);
      }
    }
}

}  // namespace

const fast_training::GemmProducts& tf32_products() {
  static const fast_training::GemmProducts products{"on the Tensor Cores in TF32",
                                                    detail::conv_forward_tf32,
                                                    detail::conv_backward_data_tf32,
                                                    detail::conv_backward_weight_tf32,
                                                    detail::dense_forward_tf32,
                                                    detail::dense_backward_data_tf32,
                                                    detail::dense_backward_weight_tf32,
                                                    check_tf32_math};
  const std::string why = tensor_core_problem();
  if (!why.empty()) throw course::Error("lesson 09's products in TF32: " + why);
  return products;
}

}  // namespace tensor_cores
