// Lesson 09: where a training step's time can go (09.1), the convolutions as implicit GEMMs
// (09.2-09.4), checked, then timed beside lessons 05 and 07 and cuDNN, and the fusions (09.5, 09.6)
// beside the separate kernels they replace. Without a GPU (or with
// --cpu-only) it prints the cost table alone, from step 09.1's counts.
#include <cstdio>
#include <string>
#include <vector>

#include "conv_comparison.hpp"
#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "fast_training.hpp"
#include "roofline.hpp"
#include "fusion_comparison.hpp"
#include "step_costs.hpp"
#ifdef COURSE_HAVE_CUDNN
#include "cudnn_conv.hpp"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson09_fast_training",
                           "Model A's training step on a roofline (09.1), then the convolutions as implicit GEMMs "
                           "(09.2-09.4)\nchecked and timed beside im2col + GEMM (lesson 07), the direct kernels "
                           "(lesson 05) and cuDNN;\nthen the fused ReLU + max-pool and softmax-CE (09.5, 09.6).");
    args.add_int("--batch", 128, 1, 4096, "examples per training step");
    args.add_flag("--quick", "batch 16 unless --batch is given, 3 repeats (a fast smoke run)");
    args.add_int("--repeats", 20, 1, 1000, "timed repeats per measurement (the median is reported)");
    args.add_flag("--cpu-only", "print the cost table only, as without a GPU");
    if (!args.parse(argc, argv)) return 0;

    const bool quick = args.flag("--quick");
    const int batch = quick && !args.given("--batch") ? 16 : static_cast<int>(args.get_int("--batch"));
    const int repeats = quick && !args.given("--repeats") ? 3 : static_cast<int>(args.get_int("--repeats"));
    const int warmup = quick ? 1 : 3;
    const host_training::ModelSpec spec = host_training::model_by_name("a");

    if (course::announce_cpu_only("09", "09.2-09.11", args.flag("--cpu-only"))) {
      std::printf("== Model A's training step, batch %d: what each pass must compute and move (09.1)\n", batch);
      lesson09::print_step_costs(spec, batch, nullptr);
      std::printf("\ncost table done\n");
      return 0;
    }

    std::printf("Lesson 09: fast FP32 training%s\n", quick ? " (--quick)" : "");
    std::printf("%s\n%s\n", course::device_summary().c_str(), course::cuda_versions().c_str());
    const fast_training::Ceilings ceilings = fast_training::device_ceilings();
    std::printf("ceilings: FP32 %.1f TFLOP/s, DRAM %.0f GB/s (%s); ridge %.1f flops/byte\n",
                ceilings.flops_per_s / 1e12, ceilings.bytes_per_s / 1e9, ceilings.source.c_str(), ceilings.ridge());

    std::printf("\n== 1. Model A's training step, batch %d: what each pass must compute and move (09.1)\n", batch);
    const double least = lesson09::print_step_costs(spec, batch, &ceilings);
    std::printf("no step of model A at batch %d can take less than %.0f us on this GPU in FP32\n", batch, least * 1e6);

    std::printf("\n== 2. The convolutions: implicit GEMMs (09.2-09.4) and tiled (09.10, 09.11): ms (TFLOP/s), median of %d, CUDA events\n",
                repeats);
    const std::vector<lesson09::NamedConv> layers = {
        {"conv1", {batch, 1, 28, 28, 32, 5, 5, 1, 2}},
        {"conv2", {batch, 32, 14, 14, 64, 5, 5, 1, 2}},
    };
    for (const auto& layer : layers) lesson09::compare_conv(layer, ceilings, warmup, repeats);
    std::printf("\nconvolutions done\n");

    std::printf("\n== 3. Fusions (09.5, 09.6) at model A's shapes, batch %d: median of %d, CUDA events\n", batch,
                repeats);
    lesson09::compare_fusions(batch, warmup, repeats);
    std::printf("\nfusions done\n");
    return 0;
  });
}
