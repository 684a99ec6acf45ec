// Lesson 07, step 07.1: im2col_cpu and col2im_cpu (host only).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "conv_cases.hpp"  // tests/support: the shapes every conv lesson tests
#include "course_test.hpp"
#include "host_layers.hpp"
#include "im2col.hpp"

using course::test::nan_vector;
using course::test::random_vector;
using course::test::to_double;
using host_layers::ConvShape;
using course::test::conv_cases;
using course::test::describe;

namespace {

template <typename T>
std::vector<T> run_im2col(const ConvShape& s, const std::vector<T>& x) {
  std::vector<T> col(im2col::col_size(s), std::numeric_limits<T>::quiet_NaN());  // poisoned
  im2col::im2col_cpu(s, x.data(), col.data());
  return col;
}

template <typename T>
std::vector<T> run_col2im(const ConvShape& s, const std::vector<T>& col) {
  std::vector<T> x(s.input_size(), std::numeric_limits<T>::quiet_NaN());  // poisoned
  im2col::col2im_cpu(s, col.data(), x.data());
  return x;
}

std::vector<double> iota_image(int n) {
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = i + 1;
  return x;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}
double abs_dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::fabs(a[i] * b[i]);
  return sum;
}

}  // namespace

// The image   1 2 3     read by a 2x2 kernel. Rows of col: kernel offsets (i, j) in
//             4 5 6     the order (0,0) (0,1) (1,0) (1,1); columns: output positions
//             7 8 9     (oh, ow) row by row. Written out by hand.
TEST_CASE("im2col_cpu: 3x3 image, 2x2 kernel, stride 1, pad 0, by hand", "[07.1]") {
  const ConvShape s{1, 1, 3, 3, 1, 2, 2, 1, 0};
  const std::vector<double> expected = {
      1, 2, 4, 5,  // (0,0): the window's top-left pixel
      2, 3, 5, 6,  // (0,1)
      4, 5, 7, 8,  // (1,0)
      5, 6, 8, 9,  // (1,1)
  };
  // Copies only: exact.
  REQUIRE_ALL_CLOSE(run_im2col(s, iota_image(9)), expected, 0.0, 0.0);
}

TEST_CASE("im2col_cpu: 3x3 image, 2x2 kernel, stride 1, pad 1, by hand", "[07.1]") {
  const ConvShape s{1, 1, 3, 3, 1, 2, 2, 1, 1};  // 4x4 outputs: 16 columns
  const std::vector<double> expected = {
      // (0,0): pixel (oh-1, ow-1)
      0, 0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9,
      // (0,1): pixel (oh-1, ow)
      0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0,
      // (1,0): pixel (oh, ow-1)
      0, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 0, 0, 0,
      // (1,1): pixel (oh, ow)
      1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 0, 0, 0, 0,
  };
  REQUIRE_ALL_CLOSE(run_im2col(s, iota_image(9)), expected, 0.0, 0.0);
}

TEST_CASE("im2col_cpu: 1x1 kernel, stride 2 picks every other pixel, by hand", "[07.1]") {
  const ConvShape s{1, 1, 3, 3, 1, 1, 1, 2, 0};
  REQUIRE_ALL_CLOSE(run_im2col(s, iota_image(9)), (std::vector<double>{1, 3, 7, 9}), 0.0, 0.0);
}

TEST_CASE("im2col_cpu: two channels and two images land in the right rows and columns", "[07.1]") {
  // x[n][c][h][w] = 1000n + 100c + 10h + w: every value says where it came from.
  const ConvShape s{2, 2, 2, 3, 1, 1, 2, 1, 0};  // 1x2 kernel: OH = 2, OW = 2, P = 8, K = 4
  std::vector<double> x;
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 2; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 3; ++w) x.push_back(1000 * n + 100 * c + 10 * h + w);
  std::vector<double> expected;
  for (int c = 0; c < 2; ++c)
    for (int j = 0; j < 2; ++j)        // row r = c*2 + j
      for (int n = 0; n < 2; ++n)      // column q = (n*2 + oh)*2 + ow
        for (int oh = 0; oh < 2; ++oh)
          for (int ow = 0; ow < 2; ++ow) expected.push_back(1000 * n + 100 * c + 10 * oh + (ow + j));
  REQUIRE_ALL_CLOSE(run_im2col(s, x), expected, 0.0, 0.0);
}

// col2im of a column matrix of ones counts how many windows read each pixel.
TEST_CASE("col2im_cpu: ones count the windows covering each pixel, by hand", "[07.1]") {
  SECTION("2x2 kernel, stride 1, pad 0: corners 1, edges 2, centre 4") {
    const ConvShape s{1, 1, 3, 3, 1, 2, 2, 1, 0};
    const std::vector<double> ones(im2col::col_size(s), 1.0);
    REQUIRE_ALL_CLOSE(run_col2im(s, ones), (std::vector<double>{1, 2, 1, 2, 4, 2, 1, 2, 1}), 0.0, 0.0);
  }
  SECTION("2x2 kernel, stride 1, pad 1: every pixel is in 4 windows") {
    const ConvShape s{1, 1, 3, 3, 1, 2, 2, 1, 1};
    const std::vector<double> ones(im2col::col_size(s), 1.0);
    REQUIRE_ALL_CLOSE(run_col2im(s, ones), std::vector<double>(9, 4.0), 0.0, 0.0);
  }
  SECTION("3x3 kernel, stride 2, pad 0 on 5x5: overlap on rows/columns 2") {
    const ConvShape s{1, 1, 5, 5, 1, 3, 3, 2, 0};
    const std::vector<double> ones(im2col::col_size(s), 1.0);
    const std::vector<double> expected = {1, 1, 2, 1, 1,  //
                                          1, 1, 2, 1, 1,  //
                                          2, 2, 4, 2, 2,  //
                                          1, 1, 2, 1, 1,  //
                                          1, 1, 2, 1, 1};
    REQUIRE_ALL_CLOSE(run_col2im(s, ones), expected, 0.0, 0.0);
  }
  SECTION("1x1 kernel, stride 2: pixels no window reads get 0") {
    const ConvShape s{1, 1, 3, 3, 1, 1, 1, 2, 0};
    const std::vector<double> ones(im2col::col_size(s), 1.0);
    REQUIRE_ALL_CLOSE(run_col2im(s, ones), (std::vector<double>{1, 0, 1, 0, 0, 0, 1, 0, 1}), 0.0, 0.0);
  }
}

// Forward convolution = W [O x K] * col [K x P] (+ bias), permuted from (O, N, HW) to
// (N, O, HW). Checked against lesson 01's direct loops, all in double.
TEST_CASE("im2col_cpu: conv via im2col + a host matmul equals host_layers::conv2d_forward", "[07.1]") {
  const uint64_t seed = 701;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    const ConvShape& s = c.s;
    INFO(c.name << ": " << describe(s));
    const auto x = to_double(random_vector(s.input_size(), seed));
    const auto W = to_double(random_vector(s.weight_size(), seed + 1));
    const auto bias = to_double(random_vector(s.out_channels, seed + 2));
    std::vector<double> ref(s.output_size(), std::nan(""));
    host_layers::conv2d_forward(s, x.data(), W.data(), bias.data(), ref.data());

    const auto col = run_im2col(s, x);
    const size_t K = im2col::col_rows(s), P = im2col::col_cols(s), HW = size_t(s.out_h()) * s.out_w();
    std::vector<double> y(s.output_size(), std::nan(""));
    for (int n = 0; n < s.batch; ++n)
      for (int o = 0; o < s.out_channels; ++o)
        for (size_t p = 0; p < HW; ++p) {
          double sum = bias[o];
          for (size_t r = 0; r < K; ++r) sum += W[o * K + r] * col[r * P + n * HW + p];
          y[(size_t(n) * s.out_channels + o) * HW + p] = sum;
        }
    // Same products, summed in another order, in double: rounding only (about 1e-16 * K).
    REQUIRE_ALL_CLOSE(y, ref, 1e-12, 1e-12);
  }
}

// col2im is the adjoint (transpose) of im2col: <im2col(x), c> = <x, col2im(c)> for every
// x and c. With random c this checks every overlap sum at once: a pixel that misses one of
// its windows, or gets one twice, changes the right-hand side.
TEST_CASE("col2im_cpu is the adjoint of im2col_cpu (double)", "[07.1]") {
  const uint64_t seed = 702;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    const ConvShape& s = c.s;
    INFO(c.name << ": " << describe(s));
    const auto x = to_double(random_vector(s.input_size(), seed));
    const auto cm = to_double(random_vector(im2col::col_size(s), seed + 1));
    const double lhs = dot(run_im2col(s, x), cm);
    const double rhs = dot(x, run_col2im(s, cm));  // an unwritten (NaN) pixel makes it NaN
    // Two double sums of the same products in different orders: rounding is bounded by
    // about eps_double * (sum of |products|); 1e-13 of it leaves a wide margin.
    const double scale = abs_dot(run_im2col(s, x), cm);
    CAPTURE(lhs, rhs, scale);
    REQUIRE(std::isfinite(rhs));
    REQUIRE(std::fabs(lhs - rhs) <= 1e-13 * scale);
  }
}

// Backward through the matrices: dcol = W^T dY', dx = col2im(dcol); dW = dY' col^T.
// Checked against lesson 01's conv2d_backward (double).
TEST_CASE("col2im_cpu: conv backward via W^T dY' + col2im equals host_layers::conv2d_backward", "[07.1]") {
  const uint64_t seed = 703;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    const ConvShape& s = c.s;
    INFO(c.name << ": " << describe(s));
    const auto x = to_double(random_vector(s.input_size(), seed));
    const auto W = to_double(random_vector(s.weight_size(), seed + 1));
    const auto dy = to_double(random_vector(s.output_size(), seed + 2));
    std::vector<double> dx_ref(s.input_size()), dW_ref(s.weight_size()), db_ref(s.out_channels);
    host_layers::conv2d_backward(s, x.data(), W.data(), dy.data(), dx_ref.data(), dW_ref.data(), db_ref.data());

    const size_t K = im2col::col_rows(s), P = im2col::col_cols(s), HW = size_t(s.out_h()) * s.out_w();
    const size_t O = s.out_channels;
    auto dy_at = [&](size_t o, size_t q) { return dy[((q / HW) * O + o) * HW + q % HW]; };  // dY'[o][q]
    std::vector<double> dcol(K * P);
    for (size_t r = 0; r < K; ++r)
      for (size_t q = 0; q < P; ++q) {
        double sum = 0;
        for (size_t o = 0; o < O; ++o) sum += W[o * K + r] * dy_at(o, q);
        dcol[r * P + q] = sum;
      }
    // Double sums in another order: rounding only.
    REQUIRE_ALL_CLOSE(run_col2im(s, dcol), dx_ref, 1e-12, 1e-12);

    const auto col = run_im2col(s, x);
    std::vector<double> dW(O * K);
    for (size_t o = 0; o < O; ++o)
      for (size_t r = 0; r < K; ++r) {
        double sum = 0;
        for (size_t q = 0; q < P; ++q) sum += dy_at(o, q) * col[r * P + q];
        dW[o * K + r] = sum;
      }
    REQUIRE_ALL_CLOSE(dW, dW_ref, 1e-12, 1e-12);
  }
}

TEST_CASE("im2col_cpu and col2im_cpu: the float versions match the double ones", "[07.1]") {
  const uint64_t seed = 704;
  COURSE_INPUT_SEED(seed);
  for (const auto& c : conv_cases()) {
    const ConvShape& s = c.s;
    INFO(c.name << ": " << describe(s));
    const auto x = random_vector(s.input_size(), seed);
    // im2col copies values: the float result is exactly the double one.
    REQUIRE_ALL_CLOSE(run_im2col(s, x), run_im2col(s, to_double(x)), 0.0, 0.0);
    const auto cm = random_vector(im2col::col_size(s), seed + 1);
    // Each pixel sums at most kh*kw values in [-1, 1] in float.
    REQUIRE_ALL_CLOSE(run_col2im(s, cm), run_col2im(s, to_double(cm)),
                      course::float_sum_atol(double(s.kernel_h) * s.kernel_w), 1e-6);
  }
}
