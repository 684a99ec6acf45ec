#pragma once
// Lesson 11 (given): lesson 02's network as the framework's chain of this lesson's layers
// (framework::HostStack on fast_host_layers.hpp). Dense layers and convolutions run on 11.4's
// functions (11.3's threaded GEMMs), thin convolutions (conv_is_thin) on 11.5's and 11.6's direct
// ones; the first layer's input gradient is not computed (nobody reads it). The fusion pass
// (fuse_relu_into_pool) runs a ReLU followed by a max-pool with non-overlapping windows as one pass
// each way (they only move memory: each pass saved is a trip through the activations). Other ReLUs,
// max-pools and softmax-cross-entropy stay lesson 01's. With two threads or more a training batch
// runs in 11.7's shards. The framework's CPU trainer takes it as it takes lesson 02's HostNetwork:
// the course's train program trains with it on the CPU.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fast_host_layers.hpp"
#include "framework/host_layer.hpp"
#include "host_layers.hpp"  // lesson 01's ConvShape
#include "host_training.hpp"

namespace fast_cpu {

// How a training batch meets the threads: whole (every layer on the whole batch, its products
// split over the threads where they are large enough: 11.3), or in 11.7's shards (the default).
enum class BatchSplit { whole, shards };

class FastHostNetwork : public framework::HostStack {
 public:
  // threads >= 1 (else course::Error): the threads of every conv and dense product, or of the shards.
  FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params, int threads,
                  BatchSplit split = BatchSplit::shards);

  // forward runs up to `threads` shards where every layer is lesson 02's (an example's logits do not
  // depend on the cut).
  void forward(const float* x, int batch, float* logits) override;
  float forward_backward(const float* x, const int* labels, int batch) override;
  const std::vector<float>& probabilities() const override;
  // The optimizer's update on up to `threads` threads, one for every kMinElementsPerThread elements.
  void for_ranges(size_t count, const std::function<void(size_t begin, size_t end)>& body) override;
  int threads() const { return threads_; }

  // What a FastHostNetwork of these layers holds at most, in bytes, trained at `batch` and evaluated
  // at `eval_batch` on `threads` threads: its parameters and gradients, its training buffers and
  // workspace at the largest batch it runs whole, and its shards' (buffers, workspace and, for
  // training, gradients) at the largest shard, and the layers' scratch on every thread. Worked out
  // with the rules the passes follow (the shards' cut, conv_workspace_on_cpu), before it is built.
  static uint64_t bytes_for(const std::vector<host_training::LayerPlan>& plan, int classes, int batch, int eval_batch,
                            int threads, BatchSplit split = BatchSplit::shards);

 protected:
  // A network that runs more layer kinds than lesson 02's (an activation, dropout): `makers` makes
  // every kind of `accepted` (this lesson's among them, add_fast_host_layers); `seed` is the
  // context's (dropout's masks). The layers are lesson 11's chain with its fusion pass.
  FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params, int threads,
                  const framework::HostLayerMakers& makers, const framework::LayerKinds& accepted, uint64_t seed);

 private:
  // 11.7's shards: with two threads or more, a training batch is cut into shards of at least
  // kShardExamples examples (at most kMaxShards), each run through its own copy of the layers (own
  // activations and gradients, this network's weights) by one thread, the gradients then summed in
  // shard order. Shard 0 writes its gradients straight into this network's, so the sum adds the
  // others into them in place. The cut depends on the batch alone, so every thread count from 2 up
  // gives the same bits; one thread runs the whole batch (no shard's gradient to add: the fastest).
  static constexpr int kShardExamples = 16, kMaxShards = 8;
  struct Shard {
    std::vector<host_training::Parameter> grads;  // shard 0: none (it writes this network's)
    std::vector<float> workspace;
    framework::HostLayerMakers::Layers layers;
    std::unique_ptr<SoftmaxCrossEntropyOnCpu> loss;
  };
  // False with one thread, with BatchSplit::whole, or where a layer is not lesson 02's (dropout's
  // masks and the statistics of a batch would change with the cut).
  bool may_shard() const;
  static bool may_shard(int threads, BatchSplit split, const std::vector<host_training::LayerPlan>& plan);
  // The shards a training batch and an inference batch are cut into: 1 where !may_shard().
  static int training_shards(int batch, bool may_shard);
  static int inference_shards(int batch, int threads, bool may_shard);
  // lesson 11's chain of layers for plan_, on `threads` threads, the gradients into `grads`, the
  // convolutions' workspace `workspace`; then the makers' passes (fuse_relu_into_pool).
  framework::HostLayerMakers::Layers layers_for(int threads, std::vector<host_training::Parameter>& grads,
                                                std::vector<float>& workspace);
  void grow_shards(size_t count, bool gradients);

  int threads_;
  BatchSplit split_ = BatchSplit::shards;
  const framework::HostLayerMakers* makers_;
  uint64_t seed_;
  std::vector<float> workspace_;  // the convolutions' im2col scratch, grown on demand
  std::vector<std::unique_ptr<Shard>> shards_;  // grown on demand
  std::vector<float> shard_probs_;  // the probabilities of a batch trained in shards
  bool trained_in_shards_ = false;
};

// Lesson 11's layers for a FastHostNetwork: conv, dense, relu and maxpool (add_fast_host_layers).
const framework::HostLayerMakers& fast_host_layers();

// A convolution as this lesson's networks run one: on 11.5's and 11.6's direct functions where it is thin
// (conv_is_thin), else on 11.4's im2col + GEMM, `workspace` grown to fit: the one rule for every
// host network built on this lesson's layers.
void conv_forward_on_cpu(const host_layers::ConvShape& s, const float* x, const float* w, const float* b, float* y,
                         std::vector<float>& workspace, int threads);
void conv_backward_on_cpu(const host_layers::ConvShape& s, const float* x, const float* w, const float* dy, float* dx,
                          float* dw, float* db, std::vector<float>& workspace, int threads, bool input_grad);
// The floats the two functions above grow `workspace` to for a convolution of shape s: 11.4's
// conv_workspace_floats, none for a thin one (11.5's and 11.6's direct functions take no workspace).
size_t conv_workspace_on_cpu(const host_layers::ConvShape& s);
// The most floats any convolution of `plan` (res blocks opened) needs as its workspace at `batch`.
size_t largest_conv_workspace(const std::vector<host_training::LayerPlan>& plan, int batch);
// About what lesson 11's layers allocate for themselves on each of `threads` threads while they run
// (11.2's packed blocks, kept by every thread; 11.5's padded planes, 11.6's partial sums), in bytes:
// an estimate from above.
uint64_t scratch_bytes_on_cpu(const std::vector<host_training::LayerPlan>& plan, int threads);

// For host_training::train: makes FastHostNetworks with `threads` threads; and the words the
// trainer prints for them.
host_training::NetworkMaker network_maker(int threads);
host_training::NetworkBytes network_bytes(int threads);  // FastHostNetwork::bytes_for with these threads

// What a network that runs a layer list's layers one after another on these layers, without shards
// (residual blocks and batch norms included), holds at most in bytes, trained at `batch` and
// evaluated at `eval_batch` on `threads` threads: the parameters and gradients, every layer's output
// and argmax at the larger batch, its input gradient at `batch`, a batch norm's statistics, the
// convolutions' workspace (conv_workspace_on_cpu) and the layers' scratch.
uint64_t layer_list_bytes(const std::vector<host_training::LayerPlan>& plan, int classes, int batch, int eval_batch,
                          int threads);
host_training::NetworkBytes layer_list_network_bytes(int threads);  // layer_list_bytes with these threads
std::string network_description(int threads);

}  // namespace fast_cpu
