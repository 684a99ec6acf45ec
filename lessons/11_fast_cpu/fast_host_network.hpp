#pragma once
// Lesson 11 (given): lesson 02's HostNetwork on this lesson's layers. Dense layers and convolutions
// run on 11.4's functions (11.3's threaded GEMMs), thin convolutions (conv_is_thin) on 11.5's and 11.6's
// direct ones; the first layer's input gradient is not computed (nobody reads it). A ReLU followed
// by a max-pool with non-overlapping windows runs as one pass forward and one backward (they only
// move memory: each pass saved is a trip through the activations). Other ReLUs, max-pools and
// softmax-cross-entropy stay lesson 01's. With two threads or more a training batch runs in 11.7's
// shards. Lesson 02's trainer, evaluation and pictures take it as they take a HostNetwork: the
// course's train program trains with it on the CPU.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host_layers.hpp"  // lesson 01's ConvShape
#include "host_training.hpp"

namespace fast_cpu {

// How a training batch meets the threads: whole (every layer on the whole batch, its products
// split over the threads where they are large enough: 11.3), or in 11.7's shards (the default).
enum class BatchSplit { whole, shards };

class FastHostNetwork : public host_training::HostNetwork {
 public:
  // threads >= 1 (else course::Error): the threads of every conv and dense product, or of the shards.
  FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params, int threads,
                  BatchSplit split = BatchSplit::shards);

  // forward runs up to `threads` shards where every layer is lesson 02's (an example's logits do not
  // depend on the cut).
  void forward(const float* x, int batch, float* logits) override;
  float forward_backward(const float* x, const int* labels, int batch) override;
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
  // For a derived network that runs more layer kinds than lesson 02's (an activation, dropout): it passes
  // a larger framework::LayerKinds and runs them in the two functions below, which FastHostNetwork calls for every
  // layer that is not lesson 02's. Layer i reads acts_[i] and writes acts_[i + 1]; its backward
  // turns dout = dL/d acts_[i + 1] into din = dL/d acts_[i] (not called for the first layer, whose
  // input gradient nobody reads). Here both throw.
  FastHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params, int threads,
                  const framework::LayerKinds& accepted);
  virtual void extra_forward(size_t layer, int batch, bool training);
  virtual void extra_backward(size_t layer, int batch);

 private:
  // 11.7's shards: with two threads or more, a training batch is cut into shards of at least
  // kShardExamples examples (at most kMaxShards), each run through the whole network by one thread
  // with its own activations and gradients (shards_, each a network of one thread), the gradients then
  // summed in shard order. The cut depends on the batch alone, so every thread count from 2 up gives
  // the same bits; one thread runs the whole batch (no shard's gradient to add: the fastest there).
  static constexpr int kShardExamples = 16, kMaxShards = 8;
  // False with one thread, with BatchSplit::whole, or where a layer is not lesson 02's (a derived
  // network's extra_* reads its own acts_, which a shard does not have).
  bool may_shard() const;
  static bool may_shard(int threads, BatchSplit split, const std::vector<host_training::LayerPlan>& plan);
  // The shards a training batch and an inference batch are cut into: 1 where !may_shard().
  static int training_shards(int batch, bool may_shard);
  static int inference_shards(int batch, int threads, bool may_shard);
  int training_shards(int batch) const;
  // A shard of this network: its layers, no weights (it reads this network's), gradients for training.
  FastHostNetwork(const FastHostNetwork& owner, bool gradients);
  void grow_shards(size_t count, bool gradients);
  // One forward and backward pass on `batch` examples reading the weights of `weights` (this
  // network, or the one a shard works for); the loss gradient is that of the mean over `mean_over`
  // examples. Returns the mean loss over `batch`; the gradients land in this network's parameters.
  float pass(const FastHostNetwork& weights, const float* x, const int* labels, int batch, int mean_over);
  // acts_[0] -> acts_.back(), keeping every layer's input; training: false for inference (forward)
  void forward_layers(const FastHostNetwork& weights, int batch, bool training);
  bool relu_into_pool(size_t layer) const;  // a ReLU that runs together with the max-pool after it
  int threads_;
  BatchSplit split_ = BatchSplit::shards;
  std::vector<float> workspace_;   // the convolutions' im2col scratch, grown on demand
  std::vector<std::unique_ptr<FastHostNetwork>> shards_;  // one thread each, grown on demand
};

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
