// train_beyond: trains any network a layer list describes (lesson 12's sigmoid, tanh and dropout
// included) on MNIST, Fashion-MNIST or CIFAR-10, with SGD, Adam or your Adadelta, on the GPU (lesson
// 08's trainer and layers, yours for sigmoid, tanh, dropout and Adadelta) or on the CPU (lesson 02's
// trainer on lesson 11's layers and yours). Named networks are the description files in models/.
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "adadelta_rules.hpp"
#include "beyond_gpu_layers.hpp"
#include "beyond_host_network.hpp"
#include "fast_host_network.hpp"
#include "framework/device_choice.hpp"
#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "framework/epoch_log.hpp"
#include "host_training.hpp"
#include "step_graph.hpp"
#include "framework/train_flags.hpp"
#include "framework/gpu_trainer.hpp"
#include "gpu_kit.hpp"
#include "your_steps_check.hpp"
#include "framework/training_data.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif
#ifndef COURSE_MODELS_DIR  // lessons/12_beyond_mnist/models
#define COURSE_MODELS_DIR "models"
#endif

namespace {

// Without --epochs the CPU trains this many epochs: the GPU default (12) of mnist_cnn would take
// about an hour on two cores.
constexpr int kCpuDefaultEpochs = 1;

// The framework's GPU defaults, with the network and recipe of Keras's mnist_cnn (Adadelta, rho 0.95),
// and the algorithm of lesson 08's convolutions.
struct BeyondConfig : framework::GpuTrainConfig {
  BeyondConfig() {
    model = "mnist_cnn";
    optimizer = framework::OptimizerKind::adadelta;
    rho = 0.95f;
    epochs = 12;
  }
  mnist_gpu::ConvAlgorithm conv = mnist_gpu::ConvAlgorithm::automatic;
};

BeyondConfig config_of(const course::ArgParser& args) {
  BeyondConfig config;
  framework::FlagOptions options;
  options.layers = beyond_mnist::layer_kinds();
  options.models_dir = COURSE_MODELS_DIR;
  framework::apply_given_flags(args, config, options);
  if (args.given("--momentum")) config.momentum = static_cast<float>(args.get_float("--momentum"));
  if (args.given("--rho")) config.rho = static_cast<float>(args.get_float("--rho"));
  if (args.given("--conv")) config.conv = mnist_gpu::conv_algorithm_by_name(args.get_string("--conv"));
  return config;
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    const BeyondConfig defaults;
    course::ArgParser args("train_beyond",
                           "Lesson 12: train any network a layer list describes, on MNIST, Fashion-MNIST or CIFAR-10,\n"
                           "on the GPU or the CPU. Writes metrics.csv and pictures to --out.");
    framework::TrainFlagWords words;
    words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson12";
    words.model_help = std::string("network: mlp, lenet5, lenet5_classic, mnist_cnn, colour_cnn "
                                   "(lessons/12_beyond_mnist/models/<name>.txt), or ") +
                       host_training::kModelFlagHelp + "; lesson 12 adds the layers sigmoid, tanh and dropout<rate>";
    words.optimizers = {framework::OptimizerKind::sgd, framework::OptimizerKind::adam,
                        framework::OptimizerKind::adadelta};
    words.optimizer_help = "sgd (with --momentum), adam, or adadelta (yours, step 12.3; with --rho)";
    words.max_lr = 100.0;
    words.seed_help = "seed of the weight init, the shuffling and dropout";
    words.epochs_note = " (CPU default: " + std::to_string(kCpuDefaultEpochs) + ")";
    words.profile_help = "GPU only: before training, time every layer's forward, backward and update (lesson 08's)";
    framework::add_train_flags(args, defaults, words);
    args.add_float("--momentum", framework::flag_default(defaults.momentum), 0.0, 0.999, "SGD's momentum");
    args.add_float("--rho", framework::flag_default(defaults.rho), 0.0, 1.0,
                   "Adadelta's decay of its running averages (Keras 0.95, PyTorch 0.9)");
    args.add_choice("--conv", mnist_gpu::conv_algorithm_name(defaults.conv), {"auto", "im2col", "direct"},
                    "GPU: the algorithm of the convolutions lesson 08's layers run (lesson 08's --conv)");
    args.add_choice("--gpu-layers", "lesson09", {"lesson09", "lesson08"},
                    "GPU: conv and dense layers on lesson 09's kernels where they run them (tiled convolutions, "
                    "fused dense products), or all on lesson 08's");
    framework::add_device_flags(args, "GPU: replay the training steps from CUDA graphs (lesson 09) when every layer runs on lesson "
                                         "09's kernels or yours and the optimizer is not adam; off: launch them one "
                                         "by one");
    if (!args.parse(argc, argv)) return 0;

    const bool gpu = framework::use_gpu(args);
    BeyondConfig config = config_of(args);
    const framework::TrainingData data = framework::load_training_data(config);
    beyond_mnist::check_your_steps(gpu);  // an unwritten step stops here, in one line
    if (!gpu) {
      const int threads = framework::prepare_cpu_run(args, config, kCpuDefaultEpochs,
                                                        "about 5 minutes an epoch of mnist_cnn on two cores",
                                                        {"--profile", "--profile-steps", "--conv", "--gpu-layers", "--graph"});
      framework::HostKit kit = host_training::host_kit(beyond_mnist::network_maker(threads, config.seed),
                                                       beyond_mnist::network_description(threads),
                                                       fast_cpu::network_bytes(threads));  // lesson 11's buffers
      kit.rules.push_back(&beyond_mnist::adadelta_rule());
      framework::print_summary(framework::train_on_host(config, data, kit), "CPU");
      return 0;
    }
    const bool fast = args.get_string("--gpu-layers") == "lesson09";
    const host_training::ModelSpec spec = framework::model_for_data(config.model, data);
    // Lesson 08's kit with this lesson's layers, its loss where fused, and Adadelta.
    framework::GpuKit kit = mnist_gpu::gpu_kit(
        config.conv,
        beyond_mnist::beyond_gpu_layers(
            config.seed, fast ? beyond_mnist::GpuLayers::lesson09 : beyond_mnist::GpuLayers::lesson08, {}, config.conv),
        fast ? beyond_mnist::fused_loss_maker() : nullptr);
    kit.rules.push_back(&beyond_mnist::adadelta_device_rule());
    framework::DeviceRun run;
    run.program = "train_beyond on the GPU";
    // Whole steps in CUDA graphs need every launch on one stream and every argument fixed at capture.
    fast_training::Stream stream;
    framework::prepare_gpu_run(
        args, run, stream.get(),
        fast ? framework::graph_problem(args, config, beyond_mnist::stream_problem(spec)) : "--gpu-layers lesson08",
        fast_training::graph_replay());
    framework::print_summary(framework::train_on_gpu(config, data, kit, run), "GPU");
    return 0;
  });
}
