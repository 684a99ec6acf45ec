// train_deeper: trains a network with batch norm, global average pooling and res blocks (ResNet-20
// by default) on Fashion-MNIST, MNIST or CIFAR-10, on the GPU (the framework's trainer with lesson 15's
// layers, whole steps replayed from CUDA graphs) or on the CPU (the CPU trainer on the host
// network). Named networks are the description files in models/.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "beyond_gpu_layers.hpp"  // fused_loss_maker
#include "branch.hpp"             // lesson 09's second stream (09.12)
#include "course/cli.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "deeper_gpu_layers.hpp"
#include "deeper_host_network.hpp"
#include "framework/device_choice.hpp"
#include "framework/epoch_log.hpp"
#include "framework/gpu_trainer.hpp"
#include "framework/rank_trainer.hpp"
#include "framework/train_flags.hpp"
#include "framework/training_data.hpp"
#include "fast_gpu_layers.hpp"  // lesson 12's use_branch
#include "fast_host_network.hpp"  // lesson 11's count of a layer list's buffers
#include "gpu_kit.hpp"            // lesson 08's layers, kernels and update rules
#include "host_training.hpp"
#include "layer_shapes.hpp"  // conv_shape_of
#include "replica_run.hpp"  // lesson 13's replica on each rank
#include "step_graph.hpp"
#include "tensor_core_convs.hpp"  // lesson 10's Tensor Core convolutions (--precision bf16)
#include "tensor_cores.hpp"
#include "tf32_products.hpp"
#include "your_steps_check.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif
#ifndef COURSE_DEEPER_MODELS_DIR  // lessons/15_deeper_cnns/models
#define COURSE_DEEPER_MODELS_DIR "models"
#endif

namespace {

// Without --epochs the CPU trains this many epochs: ResNet-20 takes minutes an epoch on two cores.
constexpr int kCpuDefaultEpochs = 1;

// ResNet-20 on Fashion-MNIST, SGD with momentum 0.9 at batch 128.
struct DeeperConfig : framework::GpuTrainConfig {
  DeeperConfig() {
    model = "resnet20";
    dataset = "fashion";
    epochs = 10;
    default_sgd_lr = 0.05f;
  }
};

// Counts the convolutions of `plans` (res blocks' included) and those `kernels` run at `batch`.
void count_convolutions(const std::vector<host_training::LayerPlan>& plans, const fast_training::ConvKernels& kernels,
                        int batch, int& convs, int& theirs) {
  for (const host_training::LayerPlan& p : plans) {
    count_convolutions(p.body, kernels, batch, convs, theirs);
    count_convolutions(p.shortcut, kernels, batch, convs, theirs);
    if (p.spec.kind != host_training::LayerKind::conv) continue;
    ++convs;
    if (!beyond_mnist::conv_is_dense(p) && kernels.runs(host_training::conv_shape_of(p, batch))) ++theirs;
  }
}

// --precision bf16: lesson 10's Tensor Core convolutions (BF16 products, FP32 sums) for the stride-1
// convolutions and the strided ones' input gradients (at stride 1), TF32 for the other products;
// fp32: none (lesson 09's FP32 kernels throughout).
beyond_mnist::OtherKernels precision_kernels(const course::ArgParser& args, const host_training::ModelSpec& spec,
                                             int batch) {
  beyond_mnist::OtherKernels other;
  if (args.get_string("--precision") == "fp32") return other;
  const std::string why = tensor_cores::tensor_core_problem();
  if (!why.empty()) throw course::Error("--precision bf16: " + why + "; use --precision fp32");
  other.conv = std::make_shared<tensor_cores::TensorCoreConvs>();
  other.products = &tensor_cores::tf32_products();
  int convs = 0, theirs = 0;
  count_convolutions(host_training::plan_layers(spec), *other.conv, batch, convs, theirs);
  std::printf("precision: bf16: %d of %d convolutions on lesson 10's Tensor Cores (BF16 products, FP32 sums), and "
              "the strided ones' input gradients; the other products in TF32\n", theirs, convs);
  return other;
}

// --gpus 2 and more: the framework's run on ranks, lesson 13's replica with lesson 15's network on each. The gradients are
// averaged once the backward pass has returned: a res block is one layer of many parameters, so the
// network cannot say layer by layer when its gradients are final (lesson 13's overlap needs that).
framework::TrainSummary train_data_parallel(const course::ArgParser& args, const DeeperConfig& config,
                                            const framework::TrainingData& data, const host_training::ModelSpec& spec,
                                            int gpus, const beyond_mnist::OtherKernels& other) {
  if (args.flag("--profile"))
    throw course::Error("--profile: a data-parallel step holds NCCL's kernels, which the profile cannot time one by "
                        "one; --gpus 1 profiles the same network on one GPU");
  const std::string problem = deeper_cnns::stream_problem(spec);
  if (!problem.empty()) throw course::Error("--gpus " + std::to_string(gpus) + ": every layer of a replica launches "
                                            "on its rank's stream; " + problem);
  if (args.given("--threads")) std::printf("note: --threads applies to the CPU only; ignored\n");
  data_parallel::ParallelTrainConfig parallel;
  static_cast<framework::GpuTrainConfig&>(parallel) = config;
  parallel.gpus = gpus;
  parallel.overlap = false;
  parallel.graph = args.get_string("--graph") == "on";
  const bool synced = args.get_string("--batch-norm") == "synced";
  if (synced) {
    // Synchronized statistics need every GPU in every pass: no step may leave one without an image.
    const int all = std::min(config.batch * gpus, data.train.count()), last = data.train.count() % all;
    if (last != 0 && last < gpus)
      throw course::Error("--batch-norm synced: the epoch's last step has " + std::to_string(last) +
                          " image(s) for " + std::to_string(gpus) + " GPUs, and a GPU without one would leave the "
                          "others waiting; change --batch or --train-limit");
  }
  parallel.network_text = synced ? "lesson 15's layers, batch norm synchronized over the GPUs"
                                 : "lesson 15's layers, batch norm per GPU";
  parallel.make_network = [synced, other](const host_training::ModelSpec& s,
                                          const std::vector<host_training::Parameter>& init, int max_batch,
                                          cudaStream_t stream, uint64_t seed,
                                          const framework::Rank& rank) -> std::unique_ptr<framework::DeviceNetwork> {
    const auto layers = deeper_cnns::deeper_gpu_layers(seed, synced ? &rank : nullptr, other);
    auto net = std::make_unique<mnist_gpu::GpuNetwork>(s, init, max_batch, mnist_gpu::ConvAlgorithm::automatic,
                                                       layers.get(), beyond_mnist::fused_loss_maker());
    net->set_stream(stream);
    return net;
  };
  // The framework's run on one rank per GPU, each rank's replica lesson 13's with this network.
  return framework::train_on_ranks(parallel, data, data_parallel::devices_of(parallel),
                                   [&](const framework::Rank& rank) {
                                     return data_parallel::replica_run(parallel, data, rank, "train_deeper --gpus");
                                   });
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    const DeeperConfig defaults;
    course::ArgParser args("train_deeper",
                           "Lesson 15: train a network with batch norm and res blocks (ResNet-20 unless --model says\n"
                           "otherwise) on the GPU or the CPU. Writes metrics.csv and pictures to --out.");
    framework::TrainFlagWords words;
    words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson15";
    words.model_help = std::string("network: resnet20 (lessons/15_deeper_cnns/models/<name>.txt), or ") +
                       host_training::kModelFlagHelp + "; lesson 15 adds bn, globalavg and res(<layers>)";
    words.seed_help = "seed of the weight init, the shuffling and dropout";
    words.epochs_note = " (CPU default: " + std::to_string(kCpuDefaultEpochs) + ")";
    words.profile_help = "GPU only: before training, time every layer's forward, backward and update (lesson 08's)";
    framework::add_train_flags(args, defaults, words);
    framework::add_device_flags(args, "GPU: replay the training steps from CUDA graphs (lesson 09) when every "
                                         "layer runs on a stream of its own and the optimizer is not adam; off: "
                                         "launch them one by one");
    args.add_int("--gpus", 1, 1, 64,
                 "GPUs to train on: 2 or more run lesson 13's data parallelism (a rank a GPU, --batch per GPU, the "
                 "gradients averaged by NCCL after each backward pass)");
    args.add_choice("--precision", "fp32", {"fp32", "bf16"},
                    "GPU: fp32 (lesson 09's kernels) or bf16 (the stride-1 convolutions on lesson 10's Tensor "
                    "Cores, BF16 products and FP32 sums, and the strided ones' input gradients; the other products in TF32; "
                    "batch norm and the rest FP32)");
    args.add_choice("--branches", "on", {"on", "off"},
                    "one GPU: every conv's and dense layer's weight gradient on a second stream beside the input "
                    "gradients, the loss and accuracy counters beside the update (lesson 09's 09.12); off: one "
                    "stream");
    args.add_choice("--batch-norm", "per-gpu", {"per-gpu", "synced"},
                    "with --gpus 2 and more: each GPU's batch norm takes its statistics from its share of the batch "
                    "(per-gpu), or from the whole batch on every GPU (synced: NCCL between your 15.6 stages)");
    args.add_string("--lr-drops", "",
                    "GPU: step decay, the ResNet paper's schedule: from the start of each of these epochs (e.g. 6,9) "
                    "the learning rate is a tenth of the one before (default: --lr throughout)");
    if (!args.parse(argc, argv)) return 0;

    const bool gpu = framework::use_gpu(args);
    DeeperConfig config;
    framework::FlagOptions options;
    options.layers = deeper_cnns::layer_kinds();
    options.models_dir = COURSE_DEEPER_MODELS_DIR;
    framework::apply_given_flags(args, config, options);
    config.lr_drops = framework::parse_lr_drops(args.get_string("--lr-drops"), config.epochs);
    if (!gpu && !config.lr_drops.empty())
      throw course::Error("--lr-drops: the CPU trainer keeps one learning rate; leave --lr-drops out or use --device "
                          "gpu");
    const framework::TrainingData data = framework::load_training_data(config);
    deeper_cnns::check_your_steps(gpu);  // an unwritten step stops here, in one line
    if (gpu) deeper_cnns::check_your_block_passes();
    if (!gpu) {
      const int threads = framework::prepare_cpu_run(args, config, kCpuDefaultEpochs, "",
                                                        {"--profile", "--profile-steps", "--graph", "--gpus",
                                                         "--batch-norm", "--precision", "--branches"});
      const framework::HostKit kit =
          host_training::host_kit(deeper_cnns::network_maker(threads, config.seed),
                                  deeper_cnns::network_description(threads), fast_cpu::layer_list_network_bytes(threads));
      framework::print_summary(framework::train_on_host(config, data, kit), "CPU");
      return 0;
    }
    const host_training::ModelSpec spec = framework::model_for_data(config.model, data);
    const int gpus = int(args.get_int("--gpus"));
    const beyond_mnist::OtherKernels other = precision_kernels(args, spec, config.batch);
    if (gpus == 1 && args.given("--batch-norm"))
      std::printf("note: --batch-norm applies to several GPUs (--gpus 2 and more); ignored\n");
    if (gpus > 1 && args.given("--branches"))
      std::printf("note: --branches applies to one GPU (lesson 13's ranks keep one stream each); ignored\n");
    if (gpus > 1) {
      framework::print_summary(train_data_parallel(args, config, data, spec, gpus, other),
                               "GPU x" + std::to_string(gpus) + ", data parallel");
      return 0;
    }
    // Lesson 08's kit with this lesson's layers and lesson 12's fused loss.
    const framework::GpuKit kit =
        mnist_gpu::gpu_kit(mnist_gpu::ConvAlgorithm::automatic, deeper_cnns::deeper_gpu_layers(config.seed, nullptr, other),
                           beyond_mnist::fused_loss_maker());
    framework::DeviceRun run;
    run.program = "train_deeper on the GPU";
    // Whole steps in CUDA graphs need every launch on one stream and every argument fixed at capture.
    fast_training::Stream stream;
    const std::string layers_problem = deeper_cnns::stream_problem(spec);
    framework::prepare_gpu_run(args, run, stream.get(), framework::graph_problem(args, config, layers_problem),
                               fast_training::graph_replay());
    // 09.12's branch: the weight gradients need nobody but the update, so they run on a second stream
    // beside the input gradients (in a captured step, a second branch of the graph); the loss and
    // accuracy counters run beside the update. Every layer must launch on the step's stream.
    fast_training::Branch branch(stream.get());
    framework::CounterStream counters;
    // (Not with --profile: its per-layer times are taken on the step's stream alone.)
    if (args.get_string("--branches") == "on" && layers_problem.empty() && !args.given("--profile")) {
      run.stream = stream.get();
      run.check_steps = [&branch](framework::DeviceNetwork& net) {
        beyond_mnist::use_branch(dynamic_cast<mnist_gpu::GpuNetwork&>(net), &branch);  // the kit's network
      };
      counters = fast_training::counters_aside(branch);
      run.steps_text += "; weight gradients and counters on a second stream (lesson 09's 09.12)";
    } else if (args.given("--branches") && args.get_string("--branches") == "on") {
      std::printf("note: --branches on needs one GPU, every layer on the step's stream and no --profile; one stream\n");
    }
    framework::print_summary(framework::train_on_gpu(config, data, kit, run, counters),
                             other.conv ? "GPU, BF16 convolutions" : "GPU");
    return 0;
  });
}
