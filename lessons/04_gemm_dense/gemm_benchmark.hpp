#pragma once
// Lesson 04's program, part by part: check every kernel against a product in double, then time
// every rung of the ladder beside cuBLAS on the same matrices.
#include <string>
#include <vector>

#include "cublas_reference.hpp"

namespace lesson04 {

enum class Product { ab, a_bt, at_b };  // C = A*B, A*B^T, A^T*B
const char* product_text(Product p);    // "A*B", "A*B^T", "A^T*B"

struct BenchShape {
  std::string label;  // "1024^3", "fc1 forward x*W^T", ...
  Product product;
  int M, N, K;
};

// Cubes 128 ... 4096 (--quick: up to 1024), then the GEMMs of the MNIST model at batch 128.
std::vector<BenchShape> benchmark_shapes(bool quick);

// Every rung and both transposed products against the double product on odd and aligned
// shapes; throws course::Error naming the first kernel and shape that disagree.
void validate_kernels();

struct BenchOptions {
  int repeats = 10;
  int naive_max_size = 4096;  // skip the naive kernel when M, N or K is larger
  std::string csv_path;       // empty: no CSV
};

// Prints the table (GFLOP/s and % of cuBLAS); each kernel is first checked against cuBLAS on
// the same matrices.
void run_benchmark(const std::vector<BenchShape>& shapes, const BenchOptions& options, CublasSgemm& cublas);

}  // namespace lesson04
