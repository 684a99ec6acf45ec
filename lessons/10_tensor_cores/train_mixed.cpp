// train_mixed: lesson 09's network with its products on the Tensor Cores: the convolutions in BF16
// (10.5-10.7) and the other products in TF32 with --precision bf16, every product in TF32 with
// --precision tf32. Same recipe, same flags, one more.
#include <memory>
#include <string>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "framework/epoch_log.hpp"
#include "fast_train_flags.hpp"
#include "fast_run.hpp"
#include "framework/gpu_trainer.hpp"
#include "tensor_core_convs.hpp"
#include "tensor_cores.hpp"
#include "tf32_products.hpp"
#include "framework/training_data.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("train_mixed",
                           "Lesson 10: lesson 09's network with its products on the Tensor Cores: --precision bf16 (the\n"
                           "convolutions in BF16, the other products in TF32), tf32 (every product on lesson 09's implicit-GEMM\n"
                           "engine in TF32) or fp32 (lesson 09 as it is). Same recipe and flags as train_fast.");
    fast_training::add_fast_train_flags(args, std::string(COURSE_OUTPUT_DIR) + "/lesson10");
    fast_training::add_step_shape_flags(args, "the step's counters");
    args.add_choice("--precision", "bf16", {"fp32", "tf32", "bf16"},
                    "bf16: convolutions' forward and input gradient (and conv2's weight gradient) on the Tensor Cores "
                    "in BF16, the dense layers and conv1's weight gradient in TF32; tf32: every conv an implicit GEMM, "
                    "it and the dense layers in TF32; fp32: lesson 09's kernels. Sums in FP32 always. With --thin on "
                    "(the default) conv1 runs on lesson 09's thin kernels, in FP32");
    args.add_choice("--one-wave", "on", {"on", "off"},
                    "10.9 with --precision bf16: on: 10.6's and 10.7's grids split to fill one wave of the GPU; off: "
                    "one block an image (10.6) and 2 images a block (10.7)");
    if (!args.parse(argc, argv)) return 0;

    course::require_gpu("train_mixed");
    fast_training::FastTrainConfig config = fast_training::fast_train_config(args);
    const fast_training::StepShape shape = fast_training::step_shape(args);
    config.branches = shape.branches, config.thin = shape.thin;
    const std::string precision = args.get_string("--precision");
    if (precision != "fp32") {
      const std::string why = tensor_cores::tensor_core_problem();
      if (!why.empty()) throw course::Error("--precision " + precision + ": " + why + "; use --precision fp32");
      config.products = &tensor_cores::tf32_products();
    }
    if (precision == "bf16")
      config.conv_kernels = std::make_shared<tensor_cores::TensorCoreConvs>(args.get_string("--one-wave") == "on");
    if (precision == "tf32") config.conv = fast_training::ConvEngine::implicit_gemm;  // the tiled kernels are FP32
    const framework::TrainingData data = framework::load_training_data(config);
    const char* label = precision == "bf16" ? "GPU, BF16 convolutions, TF32 dense" : precision == "tf32" ? "GPU, TF32" : "GPU, fast";
    // The framework's GPU trainer on lesson 09's network, its products and convolutions swapped for these.
    const fast_training::FastRun fast(config, "train_mixed");
    framework::print_summary(framework::train_on_gpu(config, data, fast.kit(), fast.run, fast.counters), label);
    return 0;
  });
}
