// Lesson 15: the GPU network of deeper CNNs (given layers on your 15.2 and 15.5) against the host
// network (DeeperHostNetwork, itself checked against the block in double) on the same weights: one
// training pass gives the same losses, gradients and running statistics, evaluation the same
// logits. Every layer's output and input gradient, those of the layers inside blocks too, and every
// gradient start as NaN. The networks reach every layer of deeper_gpu_layers.hpp: tiled, implicit
// and strided convolutions (with and without their input gradient), identity and projection
// blocks, batch norm, global average pooling, a max-pool of lesson 09's and one of lesson 08's
// (inside a block too), an implicit GEMM past 48 KiB of shared memory, on a stream and at a batch smaller
// than the largest. Then with --precision bf16's kernels (lesson 10's Tensor Cores, the strided
// convolutions' input gradients on them too), within BF16's rounding of the same host network.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "beyond_gpu_layers.hpp"  // fused_loss_maker
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/rng.hpp"
#include "course/stream.hpp"
#include "course_test.hpp"
#include "deeper_gpu_layers.hpp"
#include "deeper_host_network.hpp"
#include "network.hpp"
#include "layer_shapes.hpp"  // conv_shape_of
#include "network_compare.hpp"
#include "tensor_core_convs.hpp"  // lesson 10's Tensor Core convolutions
#include "tensor_cores.hpp"       // tensor_core_problem
#include "tf32_products.hpp"

namespace {

// Both sides compute in float in other orders; batch norm divides by a batch's spread, which
// magnifies that noise a little. Losses and logits: atol 1e-4 + rtol 1e-4; gradients as whole
// tensors: |got - want| / |want| at most 1e-3. A path left out or a gradient not added is off by far more.
constexpr double kAtol = 1e-4, kRtol = 1e-4, kGradNormwise = 1e-3;
constexpr int kMaxBatch = 8;

struct Tolerances {
  double atol = kAtol, rtol = kRtol, grad_normwise = kGradNormwise;
  double zero_rms = 1e-5;  // a gradient that is 0 up to rounding (expect_gradient)
};
// BF16 keeps 8 bits of each factor (0.4 % at most, FP32 sums). One layer's input gradient stays within
// 1 % of FP32's; through a network of small batches, whose batch norms subtract near-equal sums, the
// rounding grows to 5 - 15 % of the earliest gradients. A gradient left out or wrong is off by 100 %.
constexpr Tolerances kBf16Network{0.1, 0.1, 0.25, 1e-4};
constexpr double kBf16Layer = 1e-2;

void each_layer(mnist_gpu::GpuNetwork& net, const std::function<void(mnist_gpu::Layer&)>& f) {
  std::function<void(mnist_gpu::Layer&)> visit = [&](mnist_gpu::Layer& layer) {
    f(layer);
    if (auto* block = dynamic_cast<deeper_cnns::ResidualLayer*>(&layer)) {
      for (const auto& inner : block->body()) visit(*inner);
      for (const auto& inner : block->shortcut()) visit(*inner);
    }
  };
  for (auto& layer : net.layers()) visit(*layer);
}

void poison(mnist_gpu::GpuNetwork& net) {
  each_layer(net, [](mnist_gpu::Layer& layer) {
    // A fused layer gave back a buffer its neighbour writes instead (null): nothing to poison there.
    if (layer.output())
      CUDA_CHECK(cudaMemset(layer.output(), 0xFF, size_t(kMaxBatch) * layer.out_size() * sizeof(float)));
    if (layer.input_grad())
      CUDA_CHECK(cudaMemset(layer.input_grad(), 0xFF, size_t(kMaxBatch) * layer.in_size() * sizeof(float)));
  });
  CUDA_CHECK(cudaMemset(net.parameters().grads(), 0xFF, net.parameters().total() * sizeof(float)));
}

std::vector<double> download(const float* device, size_t n) { return course::test::download_doubles(device, n); }

void expect_close(const std::string& what, const std::vector<double>& got, const std::vector<double>& want,
                  const Tolerances& tol) {
  course::test::expect_values_close(what, got, want, tol.atol, tol.rtol, "the host network");
}

// A conv bias right before batch norm has a gradient of 0 (the norm subtracts it again): both sides
// give rounding noise there, so a whole tensor within zero_rms (root mean square) of the host's passes too.
void expect_gradient(const std::string& what, const std::vector<double>& got, const std::vector<double>& want,
                     const Tolerances& tol) {
  course::test::expect_tensor_close(what, got, want, tol.grad_normwise, "the host network", tol.zero_rms);
}

struct Case {
  const char* model;
  int channels, height, width;
  bool on_stream;  // every layer on lesson 09's kernels or lesson 15's: a stream of its own
};

void check_case(const Case& c, int batch, const beyond_mnist::OtherKernels& other = {}, const Tolerances& tol = {}) {
  host_training::ModelSpec spec = host_training::model_from_text(c.model);
  spec.in_channels = c.channels, spec.height = c.height, spec.width = c.width;
  const uint64_t seed = 1507;
  std::vector<host_training::Parameter> init = host_training::init_parameters(spec, seed);
  // gamma and beta away from 1 and 0, so that a pass that ignores them shows.
  course::Rng rng(seed, 9);
  for (host_training::Parameter& p : init)
    if (p.name.rfind("bn", 0) == 0)
      for (float& v : p.value) v += rng.uniform(-0.4f, 0.4f);
  const size_t per_example = size_t(c.channels) * c.height * c.width;
  const std::vector<float> x_host = course::test::random_vector(size_t(batch) * per_example, seed, -1.f, 1.f);
  std::vector<int> labels;
  for (int i = 0; i < batch; ++i) labels.push_back(rng.uniform_int(spec.classes));
  course::DeviceBuffer<float> x(x_host);
  course::DeviceBuffer<int> dlabels(labels);

  deeper_cnns::DeeperHostNetwork want(spec, init, 2);
  mnist_gpu::GpuNetwork got(spec, init, kMaxBatch, mnist_gpu::ConvAlgorithm::automatic,
                            deeper_cnns::deeper_gpu_layers(seed, nullptr, other).get(),
                            beyond_mnist::fused_loss_maker());
  INFO(c.model << " on " << c.channels << "x" << c.height << "x" << c.width << ", batch " << batch);
  CHECK(got.runs_on_stream() == c.on_stream);
  CHECK(deeper_cnns::stream_problem(spec).empty() == c.on_stream);
  course::Stream stream;
  if (c.on_stream) got.set_stream(stream.get());

  // Training: forward, loss, backward.
  poison(got);
  got.set_training(true);
  const double loss = want.forward_backward(x_host.data(), labels.data(), batch);
  got.forward_backward(x.data(), dlabels.data(), batch);
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  double mean = 0;
  for (double row : download(got.loss().row_loss(), size_t(batch))) mean += row / batch;
  expect_close("mean loss", {mean}, {loss}, tol);
  for (size_t t = 0; t < init.size(); ++t) {
    const std::vector<float>& g = want.parameters()[t].grad;
    expect_gradient("gradient of " + got.parameters().name(t), download(got.parameters().grad(t), got.parameters().size(t)),
                    std::vector<double>(g.begin(), g.end()), tol);
  }
  // Running statistics of every batch norm, in all_layers' order on both sides.
  size_t norm = 0;
  each_layer(got, [&](mnist_gpu::Layer& layer) {
    auto* bn = dynamic_cast<deeper_cnns::BatchNormLayer*>(&layer);
    if (!bn) return;
    const size_t C = size_t(layer.plan().out_c);
    const std::vector<float>& mean_want = want.running_mean(norm), &var_want = want.running_var(norm++);
    expect_close(layer.name() + " running mean", download(bn->running_mean(), C),
                 std::vector<double>(mean_want.begin(), mean_want.end()), tol);
    expect_close(layer.name() + " running variance", download(bn->running_var(), C),
                 std::vector<double>(var_want.begin(), var_want.end()), tol);
  });
  CHECK(norm == want.batch_norm_layers());

  // The running statistics as buffers (what --profile takes and puts back): another training pass
  // moves them, and putting the taken ones back restores them exactly.
  const std::vector<float> taken = got.download_buffers();
  size_t statistics = 0;
  for (size_t k = 0; k < want.batch_norm_layers(); ++k) statistics += 2 * want.running_mean(k).size();
  REQUIRE(taken.size() == statistics);
  got.forward_backward(x.data(), dlabels.data(), batch);
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  CHECK(got.download_buffers() != taken);
  got.upload_buffers(taken);
  CHECK(got.download_buffers() == taken);
  CHECK_THROWS_AS(got.upload_buffers(std::vector<float>(taken.size() + 1)), course::Error);

  // Evaluation: the running statistics instead of the batch's.
  poison(got);
  got.set_training(false);
  got.forward(x.data(), batch);
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const size_t logits = size_t(batch) * spec.classes;
  std::vector<float> want_logits(logits);
  want.forward(x_host.data(), batch, want_logits.data());
  expect_close("logits in evaluation", download(got.logits(), logits),
               std::vector<double>(want_logits.begin(), want_logits.end()), tol);
  if (c.on_stream) got.set_stream(nullptr);
}

const Case kCases[] = {
    // implicit first conv (no dx) then bn; an identity block of tiled convolutions; a projection
    // block whose body starts with a strided conv (dx at stride 1 of dy spread out) and whose
    // shortcut is a strided 1x1 conv with dx; global average pooling; a dense layer.
    {"conv3x3x8p1,bn,relu,res(conv3x3x8p1,bn,relu,conv3x3x8p1,bn),relu,res(conv3x3x16p1s2,bn,relu,conv3x3x16p1,bn),"
     "relu,globalavg,dense10",
     3, 12, 11, true},
    // a block whose body ends in a conv (no norm after its last product), and a block of one conv and
    // its norm.
    {"conv3x3x8p1,bn,relu,res(conv3x3x8p1,bn,relu,conv3x3x8p1),relu,res(conv3x3x8p1,bn),relu,globalavg,dense10", 2, 9,
     7, true},
    // blocks whose last norm adds the shortcut with no ReLU after the block: an identity one, then a
    // projection one.
    {"conv3x3x8p1,bn,relu,res(conv3x3x8p1,bn,relu,conv3x3x8p1,bn),res(conv3x3x8p1s2,bn),globalavg,dense10", 2, 9, 7,
     true},
    // a plain ReLU before a block, then one fused after a block before the next: each block's backward
    // add masks with its input (that ReLU's output) and writes the ReLU's input gradient itself.
    {"conv3x3x4p1,relu,res(conv3x3x4p1,bn),relu,res(conv3x3x4p1),globalavg,dense10", 1, 8, 9, true},
    // a max-pool after a relu (lesson 09's) and one after batch norm (lesson 08's, default stream).
    {"conv5x5x6,bn,pool2,relu,conv5x5x16,relu,pool2,dense10", 1, 20, 20, false},
    // lesson 08's max-pool inside a block, a stride-4 projection, a strided conv that is a dense product.
    {"conv3x3x4p1,res(conv3x3x6p1,bn,pool3,conv3x3x6p1s1,bn),relu,conv3x3x5s2,bn,globalavg,dense10", 2, 10, 9, false},
    // an implicit GEMM whose table of 576 x 3 x 3 keys and tiles need more than 48 KiB of shared memory
    // (ResNet-152's last stages have 512 x 3 x 3).
    {"conv3x3x576p1,bn,relu,conv3x3x8p1s2,bn,relu,globalavg,dense10", 3, 6, 5, true},
};

}  // namespace

TEST_CASE("the GPU network of deeper CNNs equals the host network: losses, gradients, statistics, logits",
          "[15-gpu_network]") {
  for (const Case& c : kCases)
    for (int batch : {kMaxBatch, 3}) check_case(c, batch);
}

TEST_CASE("spread_by_stride_gpu places dy's values stride apart and zeros between; a shape that does not fit throws",
          "[15-gpu_network]") {
  const int planes = 3, oh = 4, ow = 3, height = 8, width = 6, stride = 2;
  const std::vector<float> dy = course::test::random_vector(size_t(planes) * oh * ow, 77, -1.f, 1.f);
  course::DeviceBuffer<float> d_dy(dy), spread(size_t(planes) * height * width);
  CUDA_CHECK(cudaMemset(spread.data(), 0xFF, spread.size() * sizeof(float)));
  deeper_cnns::spread_by_stride_gpu(d_dy.data(), spread.data(), planes, oh, ow, height, width, stride, nullptr);
  const std::vector<double> got = download(spread.data(), spread.size());
  for (int p = 0; p < planes; ++p)
    for (int i = 0; i < height; ++i)
      for (int j = 0; j < width; ++j) {
        const bool on = i % stride == 0 && j % stride == 0;
        const double want = on ? dy[(size_t(p) * oh + i / stride) * ow + j / stride] : 0.0;
        INFO("spread[" << p << "][" << i << "][" << j << "]");
        REQUIRE(got[(size_t(p) * height + i) * width + j] == want);
      }
  CHECK_THROWS_AS(deeper_cnns::spread_by_stride_gpu(d_dy.data(), spread.data(), planes, oh, ow, 6, width, stride, nullptr),
                  course::Error);
}

TEST_CASE("with lesson 10's Tensor Core convolutions the GPU network stays within BF16's rounding of the host "
          "network; the strided convolutions' input gradients run on them too",
          "[15-gpu_network_bf16]") {
  INFO(tensor_cores::tensor_core_problem());  // its program asks for compute capability 8.0 (MIN_CC 80)
  REQUIRE(tensor_cores::tensor_core_problem().empty());
  beyond_mnist::OtherKernels other;
  other.conv = std::make_shared<tensor_cores::TensorCoreConvs>();
  other.products = &tensor_cores::tf32_products();
  // 16 and 32 channels: 10.6 runs the stride-1 convolutions, the strided 3 x 3 and 1 x 1 ones' input
  // gradients at stride 1 (9 x 10, odd sizes) and the identity block; the first conv (3 channels) runs on 10.5.
  const Case c{"conv3x3x16p1,bn,relu,res(conv3x3x16p1,bn,relu,conv3x3x16p1,bn),relu,"
               "res(conv3x3x32p1s2,bn,relu,conv3x3x32p1,bn),relu,globalavg,dense10",
               3, 9, 10, true};
  {  // The strided layers say which kernels run their input gradient.
    host_training::ModelSpec spec = host_training::model_from_text(c.model);
    spec.in_channels = c.channels, spec.height = c.height, spec.width = c.width;
    mnist_gpu::GpuNetwork net(spec, host_training::init_parameters(spec, 1), kMaxBatch,
                                    mnist_gpu::ConvAlgorithm::automatic,
                                    deeper_cnns::deeper_gpu_layers(1, nullptr, other).get(),
                                    beyond_mnist::fused_loss_maker());
    int strided = 0;
    each_layer(net, [&](mnist_gpu::Layer& layer) {
      if (!dynamic_cast<deeper_cnns::StridedConvLayer*>(&layer)) return;
      ++strided;
      CHECK(layer.kernels().find("Tensor Cores") != std::string::npos);
    });
    CHECK(strided == 2);
  }
  for (int batch : {kMaxBatch, 3}) check_case(c, batch, other, kBf16Network);
}

TEST_CASE("a strided convolution's input gradient on lesson 10's Tensor Cores equals lesson 09's FP32 one within "
          "BF16's rounding",
          "[15-gpu_network_bf16]") {
  INFO(tensor_cores::tensor_core_problem());
  REQUIRE(tensor_cores::tensor_core_problem().empty());
  const auto tensor_cores = std::make_shared<tensor_cores::TensorCoreConvs>();
  // 16 -> 32 channels from 9 x 10 (odd: the spread dy's last row stays zero): 3 x 3 (10.6) and 1 x 1.
  for (const char* conv : {"conv3x3x32p1s2", "conv1x1x32s2"}) {
    host_training::ModelSpec spec = host_training::model_from_text(std::string(conv) + ",globalavg,dense10");
    spec.in_channels = 16, spec.height = 9, spec.width = 10;
    const host_training::LayerPlan plan = host_training::plan_layers(spec)[0];
    const int batch = 5;
    const host_layers::ConvShape s = host_training::conv_shape_of(plan, batch);
    INFO(conv << ", batch " << batch);
    course::DeviceBuffer<float> W(course::test::random_vector(s.weight_size(), 41, -0.3f, 0.3f)),
        bias(course::test::random_vector(size_t(s.out_channels), 42)),
        x(course::test::random_vector(size_t(batch) * plan.in_size(), 43)),
        dy(course::test::random_vector(size_t(batch) * plan.out_size(), 44)), grads_fp32(s.weight_size() + 64),
        grads_bf16(s.weight_size() + 64);
    const mnist_gpu::ParamView w32{W.data(), grads_fp32.data()}, b32{bias.data(), grads_fp32.data() + s.weight_size()};
    const mnist_gpu::ParamView w16{W.data(), grads_bf16.data()}, b16{bias.data(), grads_bf16.data() + s.weight_size()};
    deeper_cnns::StridedConvLayer fp32("conv1", plan, batch, w32, b32);
    deeper_cnns::StridedConvLayer bf16("conv1", plan, batch, w16, b16, nullptr, tensor_cores);
    CHECK(fp32.kernels().find("Tensor Cores") == std::string::npos);
    CHECK(bf16.kernels().find("Tensor Cores") != std::string::npos);
    std::vector<std::vector<double>> dx;
    for (deeper_cnns::StridedConvLayer* layer : {&fp32, &bf16}) {
      layer->forward(x.data(), batch);
      CUDA_CHECK(cudaMemset(layer->input_grad(), 0xFF, size_t(batch) * plan.in_size() * sizeof(float)));
      layer->backward(x.data(), dy.data(), batch);
      CUDA_CHECK(cudaDeviceSynchronize());
      dx.push_back(download(layer->input_grad(), size_t(batch) * plan.in_size()));
    }
    course::test::expect_tensor_close("dx on the Tensor Cores", dx[1], dx[0], kBf16Layer, "lesson 09's FP32 kernels");
  }
}

TEST_CASE("deeper_gpu_layers' passes make the fusions they name: a ReLU in the norm or block before it, a block "
          "masking the gradient of the ReLU before it, a norm's statistics from the conv before it",
          "[15-gpu_network_bf16]") {
  INFO(tensor_cores::tensor_core_problem());
  REQUIRE(tensor_cores::tensor_core_problem().empty());
  beyond_mnist::OtherKernels other;
  other.conv = std::make_shared<tensor_cores::TensorCoreConvs>();
  other.products = &tensor_cores::tf32_products();
  const auto makers = deeper_cnns::deeper_gpu_layers(1, nullptr, other);
  const std::vector<std::string> passes = makers->pass_names();
  REQUIRE(passes.size() == 5);  // lesson 12's two, then this lesson's three in their order
  CHECK(passes[2] == deeper_cnns::kFuseReluIntoNormOrBlock);
  CHECK(passes[3] == deeper_cnns::kMaskGradientInBlock);
  CHECK(passes[4] == deeper_cnns::kStatisticsInConv);
  host_training::ModelSpec spec =
      host_training::model_from_text("conv3x3x16p1,bn,relu,res(conv3x3x16p1,bn,relu,conv3x3x16p1,bn),relu,"
                                     "res(conv3x3x16p1),globalavg,dense10");
  spec.in_channels = 16, spec.height = 9, spec.width = 10;  // 10.6 runs every conv: it writes statistics
  mnist_gpu::GpuNetwork net(spec, host_training::init_parameters(spec, 1), kMaxBatch,
                            mnist_gpu::ConvAlgorithm::automatic, makers.get(), beyond_mnist::fused_loss_maker());
  std::vector<std::string> kernels;
  std::string all;  // for the message
  each_layer(net, [&](mnist_gpu::Layer& layer) {
    kernels.push_back(layer.name() + ": " + layer.kernels());
    all += kernels.back() + "\n";
  });
  const auto has = [&](const std::string& name, const std::string& text) {
    for (const std::string& k : kernels)
      if (k.rfind(name + ": ", 0) == 0) return k.find(text) != std::string::npos;
    return false;
  };
  INFO(all);
  CHECK(has("bn1", "its statistics from the conv before it"));
  CHECK(has("res1.bn1", "its statistics from the conv before it"));
  CHECK(has("relu1", "fused into the layer before it"));            // into bn1
  CHECK(has("res1.relu1", "fused into the layer before it"));       // into the block's bn1
  CHECK(has("relu2", "fused into the layers before and after it"));  // res1's add, res2's backward
  CHECK(net.layers()[2]->input_grad() == nullptr);  // relu1 hands its dy to bn1: its own buffer went back
  CHECK(net.layers()[1]->output() == nullptr);      // bn1 writes relu1's output
}
