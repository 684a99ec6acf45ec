// Lesson 09, step 09.7: the dense layer's fused GEMMs against lesson 01's dense and ReLU in double,
// every output and the workspace poisoned before each call.
#include <cstdint>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "fast_training.hpp"
#include "host_layers.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using course::test::to_double;

namespace {

struct DenseCase {
  int batch, in, out;
};

// Odd sizes against any 64 x 64 tile, a reduction long enough to be split (3136: fc1's forward),
// model A's fc1 and fc2 at batch 128, and a partial last batch.
std::vector<DenseCase> dense_cases() {
  return {{1, 1, 1}, {3, 17, 5}, {7, 33, 65}, {65, 129, 3}, {128, 3136, 512}, {128, 512, 10}, {96, 3136, 512},
          {5, 1000, 130}};
}

}  // namespace

TEST_CASE("dense_forward_fused equals lesson 01's dense (then ReLU) in double", "[09.7]") {
  uint64_t seed = 1200;
  for (const DenseCase c : dense_cases())
    for (bool relu : {false, true}) {
      CAPTURE(c.batch, c.in, c.out, relu);
      ++seed;
      COURSE_INPUT_SEED(seed);
      const auto x = random_vector(size_t(c.batch) * c.in, seed), W = random_vector(size_t(c.out) * c.in, seed + 1),
                 b = random_vector(c.out, seed + 2);
      std::vector<double> y_ref(size_t(c.batch) * c.out);
      const auto xd = to_double(x), Wd = to_double(W), bd = to_double(b);
      host_layers::dense_forward(xd.data(), Wd.data(), bd.data(), y_ref.data(), c.batch, c.in, c.out);
      if (relu) host_layers::relu_forward(y_ref.data(), y_ref.data(), y_ref.size());
      DeviceBuffer<float> d_x(x), d_W(W), d_b(b), d_y(y_ref.size()),
          work(fast_training::dense_fused_workspace_floats(c.batch, c.in, c.out));
      d_y.poison();
      work.poison();
      fast_training::dense_forward_fused(d_x.data(), d_W.data(), d_b.data(), d_y.data(), c.batch, c.in, c.out, relu,
                                         work.data());
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float> y = d_y.to_host();
      // A float sum of `in` products of values in [-1, 1] plus the bias (course/check.hpp says why);
      // the ReLU only cuts: it adds no error.
      REQUIRE_TENSOR_CLOSE(y, y_ref, course::test::matrix("b", c.batch, "o", c.out), course::float_sum_atol(c.in + 1.0),
                           1e-5);
    }
}

TEST_CASE("dense_backward_data_fused equals lesson 01's dx, masked by the ReLU before the layer", "[09.7]") {
  uint64_t seed = 1300;
  for (const DenseCase c : dense_cases())
    for (bool masked : {false, true}) {
      CAPTURE(c.batch, c.in, c.out, masked);
      ++seed;
      COURSE_INPUT_SEED(seed);
      const auto W = random_vector(size_t(c.out) * c.in, seed), dy = random_vector(size_t(c.batch) * c.out, seed + 1);
      // The mask is the previous ReLU's output: zeros (exactly 0, where it cut) and positive values.
      std::vector<float> mask = random_vector(size_t(c.batch) * c.in, seed + 2);
      for (float& m : mask) m = m > 0 ? m : 0.0f;
      const auto Wd = to_double(W), dyd = to_double(dy);
      std::vector<double> x0(size_t(c.batch) * c.in, 0.0), dx_ref(x0.size()), dW(size_t(c.out) * c.in), db(c.out);
      host_layers::dense_backward(x0.data(), Wd.data(), dyd.data(), dx_ref.data(), dW.data(), db.data(), c.batch, c.in,
                                  c.out);
      if (masked) {
        const auto md = to_double(mask);
        host_layers::relu_backward(md.data(), dx_ref.data(), dx_ref.data(), dx_ref.size());
      }
      DeviceBuffer<float> d_W(W), d_dy(dy), d_mask(mask), d_dx(dx_ref.size()),
          work(fast_training::dense_fused_workspace_floats(c.batch, c.in, c.out));
      d_dx.poison();
      work.poison();
      fast_training::dense_backward_data_fused(d_W.data(), d_dy.data(), masked ? d_mask.data() : nullptr, d_dx.data(),
                                               c.batch, c.in, c.out, work.data());
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float> dx = d_dx.to_host();
      // Each dx sums `out` products.
      REQUIRE_TENSOR_CLOSE(dx, dx_ref, course::test::matrix("b", c.batch, "i", c.in), course::float_sum_atol(c.out),
                           1e-5);
    }
}

TEST_CASE("dense_backward_weight_fused equals lesson 01's dW and dbias, overwritten", "[09.7]") {
  uint64_t seed = 1400;
  for (const DenseCase c : dense_cases()) {
    CAPTURE(c.batch, c.in, c.out);
    ++seed;
    COURSE_INPUT_SEED(seed);
    const auto x = random_vector(size_t(c.batch) * c.in, seed), dy = random_vector(size_t(c.batch) * c.out, seed + 1),
               W = random_vector(size_t(c.out) * c.in, seed + 2);
    const auto xd = to_double(x), dyd = to_double(dy), Wd = to_double(W);
    std::vector<double> dx(x.size()), dW_ref(W.size()), db_ref(c.out);
    host_layers::dense_backward(xd.data(), Wd.data(), dyd.data(), dx.data(), dW_ref.data(), db_ref.data(), c.batch,
                                c.in, c.out);
    DeviceBuffer<float> d_x(x), d_dy(dy), d_dW(W.size()), d_db(c.out),
        work(fast_training::dense_fused_workspace_floats(c.batch, c.in, c.out));
    d_dW.poison();
    d_db.poison();
    work.poison();
    fast_training::dense_backward_weight_fused(d_x.data(), d_dy.data(), d_dW.data(), d_db.data(), c.batch, c.in, c.out,
                                               work.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> dW = d_dW.to_host(), db = d_db.to_host();
    // Each dW and dbias sums `batch` products (or values of dy).
    const double atol = course::float_sum_atol(c.batch);
    REQUIRE_TENSOR_CLOSE(dW, dW_ref, course::test::matrix("o", c.out, "i", c.in), atol, 1e-5);
    REQUIRE_TENSOR_CLOSE(db, db_ref, course::test::matrix("o", c.out, "-", 1), atol, 1e-5);
  }
}

TEST_CASE("dense fused: sizes below 1 throw before any work", "[09.7]") {
  REQUIRE_THROWS_AS(fast_training::dense_forward_fused(nullptr, nullptr, nullptr, nullptr, 0, 3, 4, false, nullptr),
                    course::Error);
  REQUIRE_THROWS_AS(fast_training::dense_backward_data_fused(nullptr, nullptr, nullptr, nullptr, 2, 0, 4, nullptr),
                    course::Error);
  REQUIRE_THROWS_AS(fast_training::dense_backward_weight_fused(nullptr, nullptr, nullptr, nullptr, 2, 3, -1, nullptr),
                    course::Error);
  REQUIRE_THROWS_AS(fast_training::dense_fused_workspace_floats(1, 1, 0), course::Error);
}
