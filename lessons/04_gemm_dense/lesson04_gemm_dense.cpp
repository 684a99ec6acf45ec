// Lesson 04: the matmul ladder. The program
//   1. checks every rung (naive, tiled, 1-D tile, 2-D tile, vectorized, double-buffered; A*B^T and
//      A^T*B for the last two) against the product in double on odd and aligned shapes;
//   2. times every rung beside cuBLAS SGEMM (FP32, TF32 off) on the same matrices, each first
//      checked against cuBLAS: cubes 128^3 ... 4096^3 and the GEMMs of the MNIST model, and
//      prints GFLOP/s and % of cuBLAS as a Markdown table (the one in docs/results/04_gemm_dense.md).
// Without a GPU (or with --cpu-only) it times lesson 01's dense loop instead (cpu_baseline.hpp).
#include <cstdio>
#include <string>

#include "course/cli.hpp"
#include "course/error.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "cpu_baseline.hpp"
#include "cublas_reference.hpp"
#include "gemm_benchmark.hpp"

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson04_gemm_dense",
                           "The matmul ladder (naive -> tiled -> 1-D tile -> 2-D tile -> vectorized -> "
                           "double-buffered) checked against double precision, then timed beside cuBLAS "
                           "SGEMM (FP32, TF32 off).");
    args.add_flag("--quick", "cubes up to 1024^3 and 3 repeats (a fast check that everything runs)");
    args.add_int("--repeats", 10, 1, 1000, "timed repeats per kernel and shape (the median is reported)");
    args.add_int("--naive-max-size", 4096, 1, 1 << 20,
                 "skip the naive kernel on shapes with M, N or K above this (it takes ~0.1 s at 4096^3)");
    args.add_string("--csv", "", "also write the measurements to this CSV file");
    args.add_flag("--cpu-only", "run only the CPU baseline (lesson 01's dense loop), as without a GPU");
    if (!args.parse(argc, argv)) return 0;

    const bool quick = args.flag("--quick");
    lesson04::BenchOptions options;
    options.repeats = quick && !args.given("--repeats") ? 3 : static_cast<int>(args.get_int("--repeats"));
    options.naive_max_size = static_cast<int>(args.get_int("--naive-max-size"));
    options.csv_path = args.get_string("--csv");

    if (course::announce_cpu_only("04", "04.1-04.8", args.flag("--cpu-only"))) {
      if (!options.csv_path.empty())  // never a flag silently ignored
        throw course::Error("--csv: the CPU-only run writes no CSV (the ladder's measurements need a GPU); "
                            "drop --csv, or run on a GPU without --cpu-only");
      lesson04::run_cpu_baseline(quick);
      return 0;
    }
    lesson04::CublasSgemm cublas;
    std::printf("Lesson 04: the matmul ladder on %s\n%s; %s\n\n", course::device_summary(0).c_str(),
                course::cuda_versions().c_str(), cublas.description().c_str());

    std::printf("== 1. Every kernel against the product in double\n\n");
    lesson04::validate_kernels();
    std::printf("all kernels agree with the double-precision product\n\n");

    std::printf("== 2. GFLOP/s (2 M N K / median time) and %% of cuBLAS SGEMM, median of %d\n", options.repeats);
    std::printf("   Each kernel is checked against cuBLAS on the same matrices before it is timed.\n"
                "   '-': no such kernel (naive, tiled, 1-D and 2-D tiles compute A*B only).\n\n");
    lesson04::run_benchmark(lesson04::benchmark_shapes(quick), options, cublas);
    std::printf("\nbenchmark done\n");
    return 0;
  });
}
