// Lesson 10's tables (a program above the lessons): the number formats (10.1, on the host: runs anywhere),
// then the Tensor Core GEMMs (10.2-10.4) checked and timed beside lesson 04's FP32 GEMM and cuBLAS with the
// same input types, then the Tensor Core convolutions (10.5) beside lesson 09's FP32 ones.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "course/rng.hpp"
#include "gemm_table.hpp"
#if COURSE_CONV_TABLE
#include "conv_table.hpp"
#endif
#include "tensor_cores.hpp"

namespace {

using namespace tensor_cores;

// 10.1 must round as the IEEE rule says before its numbers mean anything: a few values whose
// results are known by hand (ties to even, a carry into the exponent, overflow, NaN).
void check_rounding() {
  struct Case {
    float x;
    uint16_t bf16;
    float tf32;
  };
  const float nan = std::nanf("");
  const Case cases[] = {
      {1.0f, 0x3f80, 1.0f},
      {1.0f + 0x1p-8f, 0x3f80, 1.0f + 0x1p-8f},                  // bf16: a tie, to the even 1.0
      {1.0f + 0x1p-8f + 0x1p-9f, 0x3f81, 1.0f + 0x1p-8f + 0x1p-9f},  // bf16: above the tie, up
      {1.0f + 3 * 0x1p-8f, 0x3f82, 1.0f + 3 * 0x1p-8f},          // bf16: a tie, up to the even 1 + 2^-6
      {1.0f + 0x1p-11f, 0x3f80, 1.0f},                           // tf32: a tie, to the even 1.0
      {1.0f + 3 * 0x1p-11f, 0x3f80, 1.0f + 0x1p-9f},             // tf32: a tie, up to the even
      {2.0f - 0x1p-23f, 0x4000, 2.0f},                           // the carry raises the exponent
      {3.4028235e38f, 0x7f80, INFINITY},                         // rounds past the largest: Inf
      {-1.5f, 0xbfc0, -1.5f},
  };
  for (const Case& c : cases) {
    const uint16_t b = float_to_bf16(c.x);
    const float t = round_to_tf32(c.x);
    if (b != c.bf16 || !(t == c.tf32)) {
      char text[256];
      std::snprintf(text, sizeof text,
                    "step 10.1 is not right yet: x = %.10g: float_to_bf16 gave 0x%04x (expected 0x%04x), "
                    "round_to_tf32 gave %.10g (expected %.10g)",
                    double(c.x), unsigned(b), unsigned(c.bf16), double(t), double(c.tf32));
      throw course::Error(text);
    }
  }
  if (!std::isnan(bf16_to_float(float_to_bf16(nan))) || !std::isnan(round_to_tf32(nan)))
    throw course::Error("step 10.1 is not right yet: a NaN must stay a NaN");
}

void print_formats() {
  std::printf("== 1. Number formats (10.1)\n");
  std::printf("| format | bits | exponent | mantissa | largest | smallest normal | epsilon (1 to the next) |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const char* name : {"fp32", "tf32", "bf16", "fp16"}) {
    const FormatInfo f = format_info(name);
    std::printf("| %s | %d | %d | %d | %.4g | %.4g | %.3g |\n", name, f.bits, f.exponent_bits, f.mantissa_bits,
                f.largest, f.smallest_normal, f.epsilon);
  }
}

// The error a format adds to a dot product of length K: inputs in [-1, 1) rounded to the format,
// products summed in FP32 (as the Tensor Cores do), against the exact sum of the FP32 inputs (in
// double); relative to sum |a_i b_i|.
void print_dot_errors() {
  std::printf("\nThe error of a dot product of length K, relative to sum |a_i b_i|: inputs uniform in [-1, 1),\n"
              "rounded to the format, products summed in FP32; median of 64 random pairs of vectors\n");
  std::printf("| K | fp32 | tf32 | bf16 |\n|---:|---:|---:|---:|\n");
  course::Rng rng(1010);
  for (int K : {16, 256, 4096, 65536}) {
    std::vector<double> err[3];
    for (int trial = 0; trial < 64; ++trial) {
      std::vector<float> a(K), b(K);
      for (int i = 0; i < K; ++i) a[i] = rng.uniform(-1.0f, 1.0f), b[i] = rng.uniform(-1.0f, 1.0f);
      double exact = 0, scale = 0;
      for (int i = 0; i < K; ++i) exact += double(a[i]) * b[i], scale += std::fabs(double(a[i]) * b[i]);
      for (int f = 0; f < 3; ++f) {
        float sum = 0;
        for (int i = 0; i < K; ++i) {
          float x = a[i], y = b[i];
          if (f == 1) x = round_to_tf32(x), y = round_to_tf32(y);
          if (f == 2) x = bf16_to_float(float_to_bf16(x)), y = bf16_to_float(float_to_bf16(y));
          sum += x * y;
        }
        err[f].push_back(std::fabs(sum - exact) / scale);
      }
    }
    std::printf("| %d |", K);
    for (auto& e : err) {
      std::sort(e.begin(), e.end());
      std::printf(" %.2e |", e[e.size() / 2]);
    }
    std::printf("\n");
  }
  std::printf("\nformats done\n");
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson10_tensor_cores",
                           "Lesson 10: number formats, and GEMMs on the Tensor Cores against lesson 04 and cuBLAS");
    args.add_flag("--quick", "sizes up to 1024 and 3 repeats (a fast smoke run)");
    args.add_int("--repeats", 10, 1, 1000, "timed repeats per measurement (the median is reported)");
    args.add_flag("--cpu-only", "the number formats only, as without a GPU");
    if (!args.parse(argc, argv)) return 0;

    std::printf("Lesson 10: Tensor Cores and mixed precision\n");
    check_rounding();
    const bool cpu_only = course::announce_cpu_only("10", "10.2-10.8", args.flag("--cpu-only"));
    print_formats();
    print_dot_errors();
    if (cpu_only) return 0;
    const std::string why = tensor_core_problem();
    if (!why.empty()) {
      std::printf("\nsteps 10.2-10.8 are skipped here: %s\n", why.c_str());
      return 0;
    }
    std::printf("\n%s\n%s\n", course::device_summary().c_str(), course::cuda_versions().c_str());
    const bool quick = args.flag("--quick");
    const int repeats = quick ? 3 : static_cast<int>(args.get_int("--repeats"));
    lesson10::print_gemm_table(quick, repeats);
#if COURSE_CONV_TABLE
    lesson10::print_conv_table(repeats);
#else
    std::printf("\n(the convolution table of 10.5 needs lesson 09 in the build: it compares with its FP32 kernels)\n");
#endif
    return 0;
  });
}
