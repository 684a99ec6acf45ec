#include "gemm_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "course/atomic_file.hpp"
#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/rng.hpp"
#include "course/timer.hpp"
#include "gemm_dense.hpp"
#include "matmul_launchers.hpp"

namespace lesson04 {

namespace {

using course::DeviceBuffer;
using gemm_dense::MatmulKernel;

// The ladder, one column of the table per rung (steps 04.1-04.6), and the last rung once more
// with its launcher's split-K turned off: the column before it shows what split-K adds.
struct Column {
  MatmulKernel kernel;
  bool split_k;
  const char* title;
};
constexpr Column kColumns[] = {{MatmulKernel::naive, true, "naive"},
                               {MatmulKernel::tiled, true, "tiled"},
                               {MatmulKernel::tile_1d, true, "1-D tile"},
                               {MatmulKernel::tile_2d, true, "2-D tile"},
                               {MatmulKernel::vectorized, true, "vectorized"},
                               {MatmulKernel::double_buffered, false, "double-buffered, one K slice"},
                               {MatmulKernel::double_buffered, true, "double-buffered + split-K"}};
constexpr int kRungs = int(sizeof kColumns / sizeof kColumns[0]);

// The first four rungs compute A*B only; vectorized and double_buffered read each operand in
// its layout, so they compute the transposed products too.
bool computes(MatmulKernel k, Product p) {
  return p == Product::ab || k == MatmulKernel::vectorized || k == MatmulKernel::double_buffered;
}

std::string shape_text(int M, int N, int K) {
  return std::to_string(M) + " x " + std::to_string(N) + " x " + std::to_string(K);
}

// A rung of the ladder on a product. The transposed products: the vectorised rung through its
// launcher (A*B^T reads both operands k-contiguous, A^T*B both p-contiguous), the
// double-buffered one through matmul_a_bt / matmul_at_b, as the convolutions and the trainer call it.
void run_ours(Product p, MatmulKernel kernel, const float* A, const float* B, float* C, int M, int N, int K,
              bool split_k = true) {
  using gemm_dense::detail::Layout;
  if (kernel == MatmulKernel::double_buffered && !split_k) {
    const Layout a = p == Product::at_b ? Layout::p_contiguous : Layout::k_contiguous;
    const Layout b = p == Product::a_bt ? Layout::k_contiguous : Layout::p_contiguous;
    gemm_dense::detail::matmul_double_buffered(product_text(p), a, b, A, B, C, M, N, K, 0.0f, false);
  } else if (p == Product::ab) {
    gemm_dense::matmul(kernel, A, B, C, M, N, K);
  } else if (kernel == MatmulKernel::vectorized) {
    const Layout layout = p == Product::a_bt ? Layout::k_contiguous : Layout::p_contiguous;
    gemm_dense::detail::matmul_vectorized(product_text(p), layout, layout, A, B, C, M, N, K, 0.0f);
  } else if (kernel == MatmulKernel::double_buffered) {
    if (p == Product::a_bt)
      gemm_dense::matmul_a_bt(A, B, C, M, N, K);
    else
      gemm_dense::matmul_at_b(A, B, C, M, N, K);
  } else {
    throw course::Error(std::string(gemm_dense::kernel_name(kernel)) + " computes A*B only");
  }
}

void run_cublas(CublasSgemm& cublas, Product p, const float* A, const float* B, float* C, int M, int N, int K) {
  switch (p) {
    case Product::ab: cublas.matmul(A, B, C, M, N, K); return;
    case Product::a_bt: cublas.matmul_a_bt(A, B, C, M, N, K); return;
    case Product::at_b: cublas.matmul_at_b(A, B, C, M, N, K); return;
  }
}

// C = op(A) * op(B) in double, from the definition (A*B^T: B is N x K; A^T*B: A is K x M).
std::vector<double> host_product(Product p, const std::vector<float>& A, const std::vector<float>& B, int M, int N,
                                 int K) {
  std::vector<double> C(size_t(M) * N, 0.0);
  for (size_t m = 0; m < size_t(M); ++m)
    for (size_t n = 0; n < size_t(N); ++n) {
      double sum = 0.0;
      for (size_t k = 0; k < size_t(K); ++k) {
        const double a = p == Product::at_b ? A[k * M + m] : A[m * K + k];
        const double b = p == Product::a_bt ? B[n * K + k] : B[k * N + n];
        sum += a * b;
      }
      C[m * N + n] = sum;
    }
  return C;
}

// Runs one kernel on poisoned C and compares it; throws with the kernel's name on a mismatch.
// C sums K products of values in [-1, 1): course::float_sum_atol_rtol(K) (the tests' sum_tolerance).
template <typename Ref>
void check_one(const std::string& what, const std::function<void(float*)>& run, DeviceBuffer<float>& C,
               const std::vector<Ref>& ref, course::Tolerance tolerance) {
  C.poison();  // anything the kernel leaves unwritten stays NaN and fails
  run(C.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  course::validate(what, C.to_host(), ref, tolerance);
}

// Speed of one product: 2 M N K flops (one multiply and one add per term).
double gflops(int M, int N, int K, double ms) { return 2.0 * double(M) * N * K / (ms * 1e-3) / 1e9; }

}  // namespace

const char* product_text(Product p) {
  switch (p) {
    case Product::ab: return "A*B";
    case Product::a_bt: return "A*B^T";
    case Product::at_b: return "A^T*B";
  }
  return "?";
}

std::vector<BenchShape> benchmark_shapes(bool quick) {
  std::vector<BenchShape> shapes;
  for (int n : {128, 256, 512, 1024, 2048, 4096})
    if (!quick || n <= 1024) shapes.push_back({std::to_string(n) + "^3", Product::ab, n, n, n});
  // The MNIST model's GEMMs at batch 128 (what the trainer runs): fc1 maps 64*7*7 = 3136 features
  // to 512, fc2 maps 512 to 10 classes; conv2's weight gradient as im2col computes it has
  // 32*5*5 = 800 columns and K = 128 images * 14*14 positions = 25088.
  shapes.push_back({"fc1 forward y = x*W^T", Product::a_bt, 128, 512, 3136});
  shapes.push_back({"fc1 forward as A*B", Product::ab, 128, 512, 3136});
  shapes.push_back({"fc2 forward y = x*W^T", Product::a_bt, 128, 10, 512});
  shapes.push_back({"fc2 forward as A*B", Product::ab, 128, 10, 512});
  shapes.push_back({"fc1 backward dx = dy*W", Product::ab, 128, 3136, 512});
  shapes.push_back({"fc1 backward dW = dy^T*x", Product::at_b, 512, 3136, 128});
  shapes.push_back({"fc2 backward dW = dy^T*x", Product::at_b, 10, 512, 128});
  shapes.push_back({"conv2 backward dW (im2col)", Product::a_bt, 64, 800, 25088});
  return shapes;
}

void validate_kernels() {
  // Odd sizes (scalar paths, edge tiles) and multiples of 4 (float4 paths); a long K (split-K).
  const struct {
    int M, N, K;
  } shapes[] = {{1, 1, 1}, {257, 255, 513}, {128, 129, 127}, {256, 260, 132}, {20, 36, 3000}};
  uint64_t seed = 404;
  for (const auto& s : shapes) {
    const std::vector<float> A = course::random_uniform(size_t(s.M) * s.K, seed++);
    const std::vector<float> B = course::random_uniform(size_t(s.K) * s.N, seed++);
    DeviceBuffer<float> dA(A), dB(B), dC(size_t(s.M) * s.N);
    const course::Tolerance tol = course::float_sum_atol_rtol(s.K);
    for (Product p : {Product::ab, Product::a_bt, Product::at_b}) {
      const std::vector<double> ref = host_product(p, A, B, s.M, s.N, s.K);
      for (const Column& c : kColumns) {
        if (!computes(c.kernel, p)) continue;
        const std::string what = std::string(c.title) + " " + product_text(p) + " at " + shape_text(s.M, s.N, s.K);
        check_one(what, [&](float* C) { run_ours(p, c.kernel, dA.data(), dB.data(), C, s.M, s.N, s.K, c.split_k); },
                  dC, ref, tol);
      }
    }
    std::printf("  %-16s all six rungs A*B; vectorized, double_buffered A*B^T and A^T*B: agree with double\n",
                shape_text(s.M, s.N, s.K).c_str());
  }
}

void run_benchmark(const std::vector<BenchShape>& shapes, const BenchOptions& options, CublasSgemm& cublas) {
  // The CSV is built in memory and written once, checked and all or nothing, after the last row.
  std::ostringstream csv;
  const bool want_csv = !options.csv_path.empty();
  csv << "shape,product,M,N,K,kernel,median_ms,gflops,percent_of_cublas\n";
  std::printf("| shape | product | M x N x K |");
  for (const Column& c : kColumns) std::printf(" %s |", c.title);
  std::printf(" cuBLAS |\n|---|---|---|");
  for (int i = 0; i < kRungs; ++i) std::printf("---:|");
  std::printf("---:|\n");
  uint64_t seed = 4040;
  for (const BenchShape& s : shapes) {
    const size_t a_size = size_t(s.M) * s.K, b_size = size_t(s.K) * s.N, c_size = size_t(s.M) * s.N;
    DeviceBuffer<float> A(course::random_uniform(a_size, seed++)), B(course::random_uniform(b_size, seed++));
    DeviceBuffer<float> C_cublas(c_size), C(c_size);
    const double flops_total = 2.0 * double(s.M) * s.N * s.K;
    // Slow runs (the naive kernel at 4096^3 takes ~0.1 s) get fewer repeats.
    auto time_it = [&](const std::function<void()>& fn, bool slow) {
      const int repeats = slow ? std::min(options.repeats, 3) : options.repeats;
      return course::time_gpu(fn, slow ? 1 : 3, repeats).median_ms;
    };

    run_cublas(cublas, s.product, A.data(), B.data(), C_cublas.data(), s.M, s.N, s.K);
    const std::vector<float> ref = C_cublas.to_host();
    const double cublas_ms =
        time_it([&] { run_cublas(cublas, s.product, A.data(), B.data(), C_cublas.data(), s.M, s.N, s.K); }, false);
    const double cublas_gflops = gflops(s.M, s.N, s.K, cublas_ms);

    std::string cells[kRungs];
    for (int i = 0; i < kRungs; ++i) {
      const MatmulKernel k = kColumns[i].kernel;
      const bool split_k = kColumns[i].split_k;
      const bool runs = computes(k, s.product);
      const bool skipped = k == MatmulKernel::naive && std::max({s.M, s.N, s.K}) > options.naive_max_size;
      if (!runs || skipped) {
        cells[i] = runs ? "skipped" : "-";
        continue;
      }
      const auto fn = [&] { run_ours(s.product, k, A.data(), B.data(), C.data(), s.M, s.N, s.K, split_k); };
      // Both sides are float sums that round: twice the tolerance against double.
      check_one(std::string(kColumns[i].title) + " " + product_text(s.product) + " at " + shape_text(s.M, s.N, s.K) +
                    " vs cuBLAS",
                [&](float* out) { run_ours(s.product, k, A.data(), B.data(), out, s.M, s.N, s.K, split_k); }, C, ref,
                course::float_sum_atol_rtol(2.0 * s.K));
      const double ms = time_it(fn, k == MatmulKernel::naive && flops_total > 2e10);
      const double g = gflops(s.M, s.N, s.K, ms);
      char text[64];
      std::snprintf(text, sizeof text, "%.0f (%.1f %%)", g, 100.0 * g / cublas_gflops);
      cells[i] = text;
      if (want_csv)
        csv << '"' << s.label << "\"," << product_text(s.product) << ',' << s.M << ',' << s.N << ',' << s.K << ','
            << gemm_dense::kernel_name(k) << (split_k ? "" : "_one_slice") << ',' << ms << ',' << g << ',' << 100.0 * g / cublas_gflops << '\n';
    }
    if (want_csv)
      csv << '"' << s.label << "\"," << product_text(s.product) << ',' << s.M << ',' << s.N << ',' << s.K
          << ",cublas," << cublas_ms << ',' << cublas_gflops << ",100\n";
    std::printf("| %s | %s | %s |", s.label.c_str(), product_text(s.product), shape_text(s.M, s.N, s.K).c_str());
    for (const std::string& cell : cells) std::printf(" %s |", cell.c_str());
    std::printf(" %.0f |\n", cublas_gflops);
    std::fflush(stdout);
  }
  if (want_csv) course::write_file_atomically(options.csv_path, csv.str());
}

}  // namespace lesson04
