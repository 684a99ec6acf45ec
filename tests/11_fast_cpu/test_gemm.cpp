// Lesson 11, steps 11.1-11.3: the GEMMs against lesson 01's dense loop in double.
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "fast_cpu.hpp"
#include "host_layers.hpp"

using course::test::matrix;
using course::test::nan_vector;
using course::test::random_vector;
using fast_cpu::Trans;

namespace {

struct Sizes {
  int M, N, K;
};

// Odd sizes (1, 3, 17, 33, 127, 129, 1000) in every position, plus sizes that cross the
// blocks: K past 256 and 512, N past 256 and 512, rows past any multiple of the tile height.
const std::vector<Sizes> kSizes = {
    {1, 1, 1},     {3, 17, 33},   {17, 3, 1000},   {33, 129, 127}, {127, 33, 129},
    {129, 1000, 3}, {1000, 17, 33}, {1, 1000, 129}, {6, 8, 256},    {7, 33, 300},
    {13, 600, 513}, {33, 1, 17},
};

const char* name(Trans t) { return t == Trans::no ? "no" : "yes"; }

using Gemm = std::function<void(Trans, Trans, int, int, int, const float*, const float*, float*)>;

// Lesson 01's dense loop in double computes x * W^T: op(A) as x (M x K), op(B)^T as W (N x K).
std::vector<double> reference(Trans ta, Trans tb, const Sizes& s, const std::vector<float>& A,
                              const std::vector<float>& B) {
  std::vector<double> a(size_t(s.M) * s.K), bt(size_t(s.N) * s.K), c(size_t(s.M) * s.N);
  for (int i = 0; i < s.M; ++i)
    for (int k = 0; k < s.K; ++k) a[size_t(i) * s.K + k] = ta == Trans::no ? A[size_t(i) * s.K + k] : A[size_t(k) * s.M + i];
  for (int j = 0; j < s.N; ++j)
    for (int k = 0; k < s.K; ++k) bt[size_t(j) * s.K + k] = tb == Trans::no ? B[size_t(k) * s.N + j] : B[size_t(j) * s.K + k];
  const std::vector<double> zero(s.N, 0.0);
  host_layers::dense_forward(a.data(), bt.data(), zero.data(), c.data(), s.M, s.K, s.N);
  return c;
}

// Every transpose, every size; C poisoned with NaN first. Inputs in [-1, 1): each C element is
// a float sum of K products of size <= 1 against the same sum in double, so its rounding grows
// with K: course::float_sum_atol_rtol(K) (half absolute, half relative: a GEMM's element can be
// ~sqrt(K), larger than one term). K = 0 gives a tolerance of 0: C must be exactly 0.
void check_against_lesson01(const Gemm& gemm, uint64_t seed) {
  COURSE_INPUT_SEED(seed);
  for (Trans ta : {Trans::no, Trans::yes})
    for (Trans tb : {Trans::no, Trans::yes})
      for (const Sizes& s : kSizes) {
        INFO("ta=" << name(ta) << " tb=" << name(tb) << " M=" << s.M << " N=" << s.N << " K=" << s.K);
        const auto A = random_vector(size_t(s.M) * s.K, seed), B = random_vector(size_t(s.K) * s.N, seed + 1);
        auto C = nan_vector(size_t(s.M) * s.N);
        gemm(ta, tb, s.M, s.N, s.K, A.data(), B.data(), C.data());
        const auto tol = course::float_sum_atol_rtol(s.K);
        REQUIRE_TENSOR_CLOSE(C, reference(ta, tb, s, A, B), matrix("i", s.M, "j", s.N), tol.atol, tol.rtol);
      }
}

// K = 0: an empty sum, C = 0 everywhere (C starts as NaN).
void check_empty_sum(const Gemm& gemm) {
  auto C = nan_vector(5 * 7);
  const std::vector<float> none(1, 0.0f);
  gemm(Trans::no, Trans::no, 5, 7, 0, none.data(), none.data(), C.data());
  REQUIRE_ALL_CLOSE(C, std::vector<double>(5 * 7, 0.0), 0.0, 0.0);
}

// A negative size throws course::Error (not the stub's NotImplemented).
void check_negative_sizes(const Gemm& gemm) {
  std::vector<float> buf(16, 0.0f);
  for (Sizes s : {Sizes{-1, 2, 2}, Sizes{2, -1, 2}, Sizes{2, 2, -1}}) {
    INFO("M=" << s.M << " N=" << s.N << " K=" << s.K);
    bool threw_error = false;
    try {
      gemm(Trans::no, Trans::no, s.M, s.N, s.K, buf.data(), buf.data(), buf.data());
    } catch (const course::NotImplemented& e) {
      FAIL(e.what());
    } catch (const course::Error&) {
      threw_error = true;
    }
    REQUIRE(threw_error);
  }
}

}  // namespace

// ---- 11.1 -----------------------------------------------------------------------------------
TEST_CASE("gemm_blocked equals lesson 01's loop in double: every transpose, odd sizes", "[11.1]") {
  check_against_lesson01(fast_cpu::gemm_blocked, 1101);
}
TEST_CASE("gemm_blocked: K = 0 gives C = 0; negative sizes throw", "[11.1]") {
  check_empty_sum(fast_cpu::gemm_blocked);
  check_negative_sizes(fast_cpu::gemm_blocked);
}

// ---- 11.2 -----------------------------------------------------------------------------------
TEST_CASE("gemm_simd equals lesson 01's loop in double: every transpose, odd sizes", "[11.2]") {
  check_against_lesson01(fast_cpu::gemm_simd, 1102);
}
TEST_CASE("gemm_simd: K = 0 gives C = 0; negative sizes throw", "[11.2]") {
  check_empty_sum(fast_cpu::gemm_simd);
  check_negative_sizes(fast_cpu::gemm_simd);
}

TEST_CASE("gemm_simd_rows writes its rows only; a row_begin off the tile grid throws", "[11.2]") {
  const uint64_t seed = 1103;
  COURSE_INPUT_SEED(seed);
  const int M = 33, N = 40, K = 129;
  const auto A = random_vector(size_t(M) * K, seed), B = random_vector(size_t(K) * N, seed + 1);
  const auto ref = reference(Trans::no, Trans::no, {M, N, K}, A, B);
  const int begin = 2 * fast_cpu::kTileRows, end = 29;
  // Rows outside [begin, end) hold 7 before the call and must still hold 7 after it.
  std::vector<float> C(size_t(M) * N, 7.0f);
  for (int i = begin; i < end; ++i)
    for (int j = 0; j < N; ++j) C[size_t(i) * N + j] = std::numeric_limits<float>::quiet_NaN();
  fast_cpu::gemm_simd_rows(Trans::no, Trans::no, M, N, K, A.data(), B.data(), C.data(), begin, end);
  std::vector<double> expected(size_t(M) * N, 7.0);
  for (int i = begin; i < end; ++i)
    for (int j = 0; j < N; ++j) expected[size_t(i) * N + j] = ref[size_t(i) * N + j];
  const auto tol = course::float_sum_atol_rtol(K);  // as above: K products per element
  REQUIRE_TENSOR_CLOSE(C, expected, matrix("i", M, "j", N), tol.atol, tol.rtol);

  for (std::pair<int, int> rows : {std::pair<int, int>{1, 10}, {-6, 3}, {6, 34}, {12, 6}}) {
    INFO("rows [" << rows.first << ", " << rows.second << ") of M=" << M);
    bool threw_error = false;
    try {
      fast_cpu::gemm_simd_rows(Trans::no, Trans::no, M, N, K, A.data(), B.data(), C.data(), rows.first, rows.second);
    } catch (const course::NotImplemented& e) {
      FAIL(e.what());
    } catch (const course::Error&) {
      threw_error = true;
    }
    REQUIRE(threw_error);
  }
}

// ---- 11.3 -----------------------------------------------------------------------------------
TEST_CASE("gemm_threads equals lesson 01's loop in double with 1, 2 and 3 threads", "[11.3]") {
  for (int threads : {1, 2, 3}) {
    INFO("threads=" << threads);
    check_against_lesson01(
        [threads](Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C) {
          fast_cpu::gemm_threads(ta, tb, M, N, K, A, B, C, threads);
        },
        1104);
  }
}

// Each element is summed by one thread in one fixed order: the bits cannot depend on the split.
TEST_CASE("gemm_threads: C is bit for bit the same for 1, 2, 3, 4 and 7 threads", "[11.3]") {
  const uint64_t seed = 1105;
  COURSE_INPUT_SEED(seed);
  // Large enough that kMinFlopsPerThread lets every thread count run: 2*M*N*K >= 7 * 8e6 for most.
  for (Sizes s : {Sizes{129, 127, 129}, Sizes{1000, 33, 2049}, Sizes{67, 1200, 1001}, Sizes{1001, 257, 300},
                  Sizes{301, 600, 257}}) {
    INFO("M=" << s.M << " N=" << s.N << " K=" << s.K);
    const auto A = random_vector(size_t(s.M) * s.K, seed), B = random_vector(size_t(s.K) * s.N, seed + 1);
    auto one = nan_vector(size_t(s.M) * s.N);
    fast_cpu::gemm_threads(Trans::no, Trans::yes, s.M, s.N, s.K, A.data(), B.data(), one.data(), 1);
    for (int threads : {2, 3, 4, 7}) {
      INFO("threads=" << threads);
      auto many = nan_vector(one.size());
      fast_cpu::gemm_threads(Trans::no, Trans::yes, s.M, s.N, s.K, A.data(), B.data(), many.data(), threads);
      // Exact: 0 tolerance (a NaN left anywhere also fails).
      REQUIRE_TENSOR_CLOSE(many, one, matrix("i", s.M, "j", s.N), 0.0, 0.0);
      REQUIRE(std::memcmp(many.data(), one.data(), one.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("gemm_threads: K = 0 gives C = 0; negative sizes and threads < 1 throw", "[11.3]") {
  auto with3 = [](Trans ta, Trans tb, int M, int N, int K, const float* A, const float* B, float* C) {
    fast_cpu::gemm_threads(ta, tb, M, N, K, A, B, C, 3);
  };
  check_empty_sum(with3);
  check_negative_sizes(with3);
  for (int threads : {0, -2}) {
    INFO("threads=" << threads);
    std::vector<float> buf(16, 0.0f);
    bool threw_error = false;
    try {
      fast_cpu::gemm_threads(Trans::no, Trans::no, 2, 2, 2, buf.data(), buf.data(), buf.data(), threads);
    } catch (const course::NotImplemented& e) {
      FAIL(e.what());
    } catch (const course::Error&) {
      threw_error = true;
    }
    REQUIRE(threw_error);
  }
}
