// train_mixed: lesson 09's trainer with the convolutions on the Tensor Cores (10.5, 10.6) when
// --precision bf16: same recipe, same flags, one more.
#include <memory>
#include <string>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "epoch_log.hpp"
#include "fast_train_flags.hpp"
#include "fast_trainer.hpp"
#include "tensor_core_convs.hpp"
#include "tensor_cores.hpp"
#include "training_data.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("train_mixed",
                           "Lesson 10: lesson 09's trainer with the convolutions' products on the Tensor Cores in BF16\n"
                           "(--precision bf16) or in FP32 as lesson 09 (--precision fp32). Same recipe and flags as train_fast.");
    fast_training::add_fast_train_flags(args, std::string(COURSE_OUTPUT_DIR) + "/lesson10");
    args.add_choice("--precision", "bf16", {"fp32", "bf16"},
                    "bf16: convolutions' forward and input gradient on the Tensor Cores (BF16 products, FP32 sums); "
                    "fp32: lesson 09's kernels");
    if (!args.parse(argc, argv)) return 0;

    course::require_gpu("train_mixed");
    fast_training::FastTrainConfig config = fast_training::fast_train_config(args);
    const bool bf16 = args.get_string("--precision") == "bf16";
    if (bf16) {
      const std::string why = tensor_cores::tensor_core_problem();
      if (!why.empty()) throw course::Error("--precision bf16: " + why + "; use --precision fp32");
      config.conv_kernels = std::make_shared<tensor_cores::TensorCoreConvs>();
    }
    const host_training::TrainingData data = host_training::load_training_data(config);
    host_training::print_summary(fast_training::train_fast(config, data), bf16 ? "GPU, BF16 convolutions" : "GPU, fast");
    return 0;
  });
}
