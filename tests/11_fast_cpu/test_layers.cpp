// Lesson 11, step 11.4: dense and convolution layers on the GEMMs, against lesson 01 in double.
#include <cstdint>
#include <vector>

#include "conv_cases.hpp"  // tests/support: the shapes every conv lesson tests
#include "course_test.hpp"
#include "fast_cpu.hpp"
#include "host_layers.hpp"

using course::test::conv_cases;
using course::test::describe;
using course::test::matrix;
using course::test::nan_vector;
using course::test::random_vector;
using course::test::to_double;

namespace {

struct DenseCase {
  int batch, in, out;
};
// Odd sizes; batch 1 and > 1; a reduction of 1000; model shapes (lesson 02's small CNN's fc1 and fc2).
const std::vector<DenseCase> kDense = {{1, 1, 1},     {3, 17, 33},   {17, 33, 3},  {5, 1000, 17},
                                       {33, 129, 127}, {32, 1960, 100}, {32, 100, 10}, {129, 3, 1000}};

}  // namespace

// Every output is a float sum of values in [-1, 1) against lesson 01's same sum in double:
// course::float_sum_atol_rtol(terms) with terms the reduction length: y: in products + the bias;
// dx: out products; dW and dbias: batch terms. Outputs poisoned with NaN first.
TEST_CASE("dense_forward and dense_backward equal lesson 01's in double (1 and 3 threads)", "[11.4]") {
  const uint64_t seed = 1141;
  COURSE_INPUT_SEED(seed);
  for (const DenseCase& d : kDense)
    for (int threads : {1, 3}) {
      INFO("batch=" << d.batch << " in=" << d.in << " out=" << d.out << " threads=" << threads);
      const auto x = random_vector(size_t(d.batch) * d.in, seed), W = random_vector(size_t(d.out) * d.in, seed + 1),
                 b = random_vector(d.out, seed + 2), dy = random_vector(size_t(d.batch) * d.out, seed + 3);
      std::vector<double> y_ref(size_t(d.batch) * d.out), dx_ref(x.size()), dW_ref(W.size()), db_ref(d.out);
      const auto xd = to_double(x), Wd = to_double(W), bd = to_double(b), dyd = to_double(dy);
      host_layers::dense_forward(xd.data(), Wd.data(), bd.data(), y_ref.data(), d.batch, d.in, d.out);
      host_layers::dense_backward(xd.data(), Wd.data(), dyd.data(), dx_ref.data(), dW_ref.data(), db_ref.data(),
                                  d.batch, d.in, d.out);

      auto y = nan_vector(y_ref.size()), dx = nan_vector(x.size()), dW = nan_vector(W.size()), db = nan_vector(d.out);
      fast_cpu::dense_forward(x.data(), W.data(), b.data(), y.data(), d.batch, d.in, d.out, threads);
      fast_cpu::dense_backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data(), d.batch, d.in, d.out,
                               threads);
      const auto ty = course::float_sum_atol_rtol(d.in + 1), tdx = course::float_sum_atol_rtol(d.out),
                 tdw = course::float_sum_atol_rtol(d.batch);
      REQUIRE_TENSOR_CLOSE(y, y_ref, matrix("b", d.batch, "o", d.out), ty.atol, ty.rtol);
      REQUIRE_TENSOR_CLOSE(dx, dx_ref, matrix("b", d.batch, "i", d.in), tdx.atol, tdx.rtol);
      REQUIRE_TENSOR_CLOSE(dW, dW_ref, matrix("o", d.out, "i", d.in), tdw.atol, tdw.rtol);
      REQUIRE_TENSOR_CLOSE(db, db_ref, (course::Shape{{"o", size_t(d.out)}}), tdw.atol, tdw.rtol);
    }
}

TEST_CASE("dense_backward with input_grad=false: dx untouched (or null), dW and dbias as before", "[11.4]") {
  const uint64_t seed = 1142;
  COURSE_INPUT_SEED(seed);
  const int batch = 17, in = 129, out = 33;
  const auto x = random_vector(size_t(batch) * in, seed), W = random_vector(size_t(out) * in, seed + 1),
             dy = random_vector(size_t(batch) * out, seed + 2);
  std::vector<double> dx_ref(x.size()), dW_ref(W.size()), db_ref(out);
  const auto xd = to_double(x), Wd = to_double(W), dyd = to_double(dy);
  host_layers::dense_backward(xd.data(), Wd.data(), dyd.data(), dx_ref.data(), dW_ref.data(), db_ref.data(), batch,
                              in, out);
  const auto tol = course::float_sum_atol_rtol(batch);  // batch terms per dW and dbias element
  std::vector<float> dx(x.size(), 42.0f);  // must keep its 42s
  auto dW = nan_vector(W.size()), db = nan_vector(out);
  fast_cpu::dense_backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data(), batch, in, out, 2, false);
  REQUIRE_ALL_CLOSE(dx, std::vector<double>(x.size(), 42.0), 0.0, 0.0);
  REQUIRE_TENSOR_CLOSE(dW, dW_ref, matrix("o", out, "i", in), tol.atol, tol.rtol);
  REQUIRE_TENSOR_CLOSE(db, db_ref, (course::Shape{{"o", size_t(out)}}), tol.atol, tol.rtol);
  dW = nan_vector(W.size()), db = nan_vector(out);
  fast_cpu::dense_backward(x.data(), W.data(), dy.data(), nullptr, dW.data(), db.data(), batch, in, out, 1, false);
  REQUIRE_TENSOR_CLOSE(dW, dW_ref, matrix("o", out, "i", in), tol.atol, tol.rtol);
  REQUIRE_TENSOR_CLOSE(db, db_ref, (course::Shape{{"o", size_t(out)}}), tol.atol, tol.rtol);
}

// The shapes every conv lesson tests (strides 1-3, pads 0-2, kernels 1x1 to 5x5 and 3x5, batch
// 1-5, model A's convolutions); tolerances from conv_cases.hpp's reduction lengths.
TEST_CASE("conv2d_forward and conv2d_backward equal lesson 01's in double on every test shape", "[11.4]") {
  const uint64_t seed = 1143;
  COURSE_INPUT_SEED(seed);
  using namespace course::test;
  for (const auto& c : conv_cases()) {
    const host_layers::ConvShape& s = c.s;
    const int threads = s.batch % 2 + 1;  // 1 or 2
    INFO(c.name << ": " << describe(s) << " threads=" << threads);
    const ConvInputs in = random_conv_inputs(s, seed);
    const ConvReference ref = conv_reference(s, in);
    auto work = nan_vector(fast_cpu::conv_workspace_floats(s));
    auto y = nan_vector(s.output_size()), dx = nan_vector(s.input_size()), dW = nan_vector(s.weight_size()),
         db = nan_vector(s.out_channels);
    fast_cpu::conv2d_forward(s, in.x.data(), in.W.data(), in.bias.data(), y.data(), work.data(), threads);
    const auto ty = course::float_sum_atol_rtol(forward_terms(s)), tdx = course::float_sum_atol_rtol(dx_terms(s)),
               tdw = course::float_sum_atol_rtol(dw_terms(s));
    REQUIRE_TENSOR_CLOSE(y, ref.y, output_shape(s), ty.atol, ty.rtol);
    work = nan_vector(work.size());
    fast_cpu::conv2d_backward(s, in.x.data(), in.W.data(), in.dy.data(), dx.data(), dW.data(), db.data(), work.data(),
                              threads);
    REQUIRE_TENSOR_CLOSE(dx, ref.dx, input_shape(s), tdx.atol, tdx.rtol);
    REQUIRE_TENSOR_CLOSE(dW, ref.dW, weight_shape(s), tdw.atol, tdw.rtol);
    REQUIRE_TENSOR_CLOSE(db, ref.dbias, bias_shape(s), tdw.atol, tdw.rtol);
  }
}

TEST_CASE("conv2d_backward with input_grad=false: dx untouched (or null), dW and dbias as before", "[11.4]") {
  const uint64_t seed = 1144;
  COURSE_INPUT_SEED(seed);
  using namespace course::test;
  // Lesson 02's small CNN's first layer (batch 3) and a strided, padded odd shape.
  for (host_layers::ConvShape s : {host_layers::ConvShape{3, 1, 28, 28, 10, 3, 3, 1, 1},
                                   host_layers::ConvShape{2, 3, 17, 13, 5, 3, 5, 2, 2}}) {
    INFO(describe(s));
    const ConvInputs in = random_conv_inputs(s, seed);
    const ConvReference ref = conv_reference(s, in);
    auto work = nan_vector(fast_cpu::conv_workspace_floats(s));
    std::vector<float> dx(s.input_size(), 42.0f);  // must keep its 42s
    auto dW = nan_vector(s.weight_size()), db = nan_vector(s.out_channels);
    const auto tdw = course::float_sum_atol_rtol(dw_terms(s));
    fast_cpu::conv2d_backward(s, in.x.data(), in.W.data(), in.dy.data(), dx.data(), dW.data(), db.data(), work.data(),
                              2, false);
    REQUIRE_ALL_CLOSE(dx, std::vector<double>(dx.size(), 42.0), 0.0, 0.0);
    REQUIRE_TENSOR_CLOSE(dW, ref.dW, weight_shape(s), tdw.atol, tdw.rtol);
    REQUIRE_TENSOR_CLOSE(db, ref.dbias, bias_shape(s), tdw.atol, tdw.rtol);
    dW = nan_vector(s.weight_size()), db = nan_vector(s.out_channels);
    fast_cpu::conv2d_backward(s, in.x.data(), in.W.data(), in.dy.data(), nullptr, dW.data(), db.data(), work.data(),
                              1, false);
    REQUIRE_TENSOR_CLOSE(dW, ref.dW, weight_shape(s), tdw.atol, tdw.rtol);
    REQUIRE_TENSOR_CLOSE(db, ref.dbias, bias_shape(s), tdw.atol, tdw.rtol);
  }
}
