// Step 04.7: column_sums (the bias gradient's reduction) against a double loop, and the dense
// layer's forward and backward passes against lesson 01's host_layers::dense_* in double
// (host_layers_ref, built from solutions). Lesson 01's tests check those against finite
// differences, so no finite-difference check is repeated here.
#include <cstdint>
#include <string>
#include <vector>

#include "gemm_dense.hpp"
#include "gemm_test_support.hpp"
#include "host_layers.hpp"

using course::DeviceBuffer;
using course::test::random_vector;
using course::test::to_double;

namespace {

void check_column_sums(int rows, int cols, uint64_t seed) {
  INFO("rows = " << rows << ", cols = " << cols);
  COURSE_INPUT_SEED(seed);
  const std::vector<float> m = random_vector(size_t(rows) * cols, seed, -1.0f, 1.0f);
  std::vector<double> ref(size_t(cols), 0.0);
  for (size_t r = 0; r < size_t(rows); ++r)
    for (size_t c = 0; c < size_t(cols); ++c) ref[c] += m[r * cols + c];
  DeviceBuffer<float> dm = gemm_test::upload_guarded(m);
  DeviceBuffer<float> dsums(size_t(cols) + gemm_test::kGuard);
  dsums.poison();
  gemm_dense::column_sums(dm.data(), dsums.data(), rows, cols);
  const std::vector<float> got = gemm_test::download_checked(dsums, size_t(cols));
  const double tol = gemm_test::sum_tolerance(rows);  // a float sum of `rows` values <= 1
  REQUIRE_ALL_CLOSE(got, ref, tol, tol);
}

struct DenseShape {
  int batch, in, out;
};

// Forward: y = x W^T + b, a sum of `in` products plus the bias. Backward: dx sums `out`
// products, dW sums `batch`, dbias sums `batch` values. Every output is poisoned first.
void check_dense(const DenseShape& s, uint64_t seed) {
  INFO("batch = " << s.batch << ", in = " << s.in << ", out = " << s.out);
  COURSE_INPUT_SEED(seed);
  const size_t nx = size_t(s.batch) * s.in, nw = size_t(s.out) * s.in, ny = size_t(s.batch) * s.out;
  const std::vector<float> x = random_vector(nx, seed, -1.0f, 1.0f);
  const std::vector<float> W = random_vector(nw, seed + 1, -1.0f, 1.0f);
  const std::vector<float> bias = random_vector(size_t(s.out), seed + 2, -1.0f, 1.0f);
  const std::vector<float> dy = random_vector(ny, seed + 3, -1.0f, 1.0f);

  // Lesson 01 in double on the same float inputs.
  const std::vector<double> xd = to_double(x), Wd = to_double(W), bd = to_double(bias), dyd = to_double(dy);
  std::vector<double> y_ref(ny), dx_ref(nx), dW_ref(nw), db_ref(size_t(s.out));
  host_layers::dense_forward(xd.data(), Wd.data(), bd.data(), y_ref.data(), s.batch, s.in, s.out);
  host_layers::dense_backward(xd.data(), Wd.data(), dyd.data(), dx_ref.data(), dW_ref.data(), db_ref.data(), s.batch,
                              s.in, s.out);

  DeviceBuffer<float> dx_in = gemm_test::upload_guarded(x), dW_in = gemm_test::upload_guarded(W);
  DeviceBuffer<float> dbias_in = gemm_test::upload_guarded(bias), ddy = gemm_test::upload_guarded(dy);
  DeviceBuffer<float> dy_out(ny + gemm_test::kGuard), ddx(nx + gemm_test::kGuard), ddW(nw + gemm_test::kGuard),
      ddb(size_t(s.out) + gemm_test::kGuard);
  for (auto* b : {&dy_out, &ddx, &ddW, &ddb}) b->poison();

  gemm_dense::dense_forward(dx_in.data(), dW_in.data(), dbias_in.data(), dy_out.data(), s.batch, s.in, s.out);
  const std::vector<float> y = gemm_test::download_checked(dy_out, ny);
  {
    INFO("forward y");
    const double tol = gemm_test::sum_tolerance(s.in + 1);  // `in` products and the bias
    REQUIRE_ALL_CLOSE(y, y_ref, tol, tol);
  }

  gemm_dense::dense_backward(dx_in.data(), dW_in.data(), ddy.data(), ddx.data(), ddW.data(), ddb.data(), s.batch,
                             s.in, s.out);
  const std::vector<float> dx = gemm_test::download_checked(ddx, nx);
  const std::vector<float> dW = gemm_test::download_checked(ddW, nw);
  const std::vector<float> db = gemm_test::download_checked(ddb, size_t(s.out));
  {
    INFO("backward dx");
    const double tol = gemm_test::sum_tolerance(s.out);
    REQUIRE_ALL_CLOSE(dx, dx_ref, tol, tol);
  }
  {
    INFO("backward dW");
    const double tol = gemm_test::sum_tolerance(s.batch);
    REQUIRE_ALL_CLOSE(dW, dW_ref, tol, tol);
  }
  {
    INFO("backward dbias");
    const double tol = gemm_test::sum_tolerance(s.batch);
    REQUIRE_ALL_CLOSE(db, db_ref, tol, tol);
  }
}

}  // namespace

TEST_CASE("column_sums matches a double loop: rows 1, 3, 1000, 4097", "[04.7]") {
  // rows: fewer than the 16 row-threads of a block, odd, many, and 4097 = 256 * 16 + 1.
  // cols: 1, one short of and one past the 32 columns of a block, and several blocks.
  for (int rows : {1, 3, 1000, 4097})
    for (int cols : {1, 17, 31, 33, 100, 513}) check_column_sums(rows, cols, 4500 + uint64_t(rows) * 1009 + cols);
}

TEST_CASE("column_sums: zero rows give zeros; bad sizes throw", "[04.7]") {
  DeviceBuffer<float> dsums(5 + gemm_test::kGuard);
  dsums.poison();
  gemm_dense::column_sums(nullptr, dsums.data(), 0, 5);
  const std::vector<float> got = gemm_test::download_checked(dsums, 5);
  REQUIRE_ALL_CLOSE(got, std::vector<float>(5, 0.0f), 0.0, 0.0);  // an empty sum is exactly 0
  REQUIRE_NOTHROW(gemm_dense::column_sums(nullptr, nullptr, 7, 0));
  REQUIRE_THROWS_AS(gemm_dense::column_sums(nullptr, nullptr, -1, 3), course::Error);
}

TEST_CASE("dense forward and backward match lesson 01 in double", "[04.7]") {
  const std::vector<DenseShape> shapes = {
      {1, 1, 1},      {3, 17, 33},  {33, 1, 17},   {17, 33, 1},  {2, 1000, 3},
      {19, 300, 130}, {64, 784, 100},  // batch > 1, odd, several tiles
      {128, 512, 10},                  // the MNIST head: 512 features -> 10 classes
      {128, 3136, 64},                 // a long `in`: the forward GEMM splits K
  };
  for (const DenseShape& s : shapes) check_dense(s, 4600 + uint64_t(s.batch) * 1000003 + uint64_t(s.in) * 1009 + s.out);
}

TEST_CASE("dense: batch 0 gives dW = 0 and dbias = 0; bad sizes throw", "[04.7]") {
  const int in = 5, out = 3;
  DeviceBuffer<float> W(size_t(out) * in), ddW(size_t(out) * in + gemm_test::kGuard), ddb(out + gemm_test::kGuard);
  W.zero();
  ddW.poison();
  ddb.poison();
  gemm_dense::dense_backward(nullptr, W.data(), nullptr, nullptr, ddW.data(), ddb.data(), 0, in, out);
  const std::vector<float> dW = gemm_test::download_checked(ddW, size_t(out) * in);
  const std::vector<float> db = gemm_test::download_checked(ddb, out);
  REQUIRE_ALL_CLOSE(dW, std::vector<float>(dW.size(), 0.0f), 0.0, 0.0);  // empty sums: exactly 0
  REQUIRE_ALL_CLOSE(db, std::vector<float>(db.size(), 0.0f), 0.0, 0.0);
  REQUIRE_THROWS_AS(gemm_dense::dense_forward(nullptr, nullptr, nullptr, nullptr, 2, -1, 3), course::Error);
  REQUIRE_THROWS_AS(gemm_dense::dense_backward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, -2, 1, 3),
                    course::Error);
}
