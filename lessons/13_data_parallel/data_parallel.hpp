#pragma once
// Lesson 13: data parallelism. Every rank (ranks.hpp: one GPU each) holds the whole network; a
// batch is cut into one shard per rank; each rank runs forward and backward on its shard; the
// gradients are averaged over the ranks (an all-reduce); every rank then takes the same optimizer
// step from the same gradients, so the weights stay the same everywhere without ever being sent.
//
//   rank 0: shard 0 -> forward/backward -> g0 --\                       /-- step -> w'
//                                                all-reduce: (n0 g0 + n1 g1) / (n0 + n1)
//   rank 1: shard 1 -> forward/backward -> g1 --/                       \-- step -> w'
//
// With N ranks of batch B each, that is exactly the step of one GPU with batch N*B (up to the
// order of float additions). What it costs is the all-reduce: 2 (N-1)/N times the gradients' bytes
// through each GPU's links per step, whatever the batch. What it earns is the computation of N-1
// shards. Step 13.3 hides part of the cost by reducing each layer's gradients while the layers
// before it are still computing theirs.
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "framework/parameter_store.hpp"
#include "framework/ranks.hpp"
#include "framework/device_network.hpp"
#include "step_graph.hpp"

namespace data_parallel {

// A rank (its number, how many take part, its GPU, the communicator) is the framework's, as are the
// threads that run the ranks (framework/ranks.hpp).
using framework::Rank;

// ---- step 13.1: ranks and shards -------------------------------------------------------------
// Rank `rank`'s part of a batch of `batch` examples split over `ranks` ranks: contiguous, in rank
// order, sizes differing by at most one (the first batch % ranks ranks take one more). Every example
// is in exactly one shard; a shard is empty (count 0, first == batch) when batch < ranks and the
// rank comes after the examples. Throws course::Error unless ranks >= 1, 0 <= rank < ranks and
// batch >= 0.
struct Shard {
  int first = 0;  // the first example of the batch this rank takes
  int count = 0;  // how many
};
Shard shard_of(int batch, int ranks, int rank);

// Every rank's parameter VALUES become rank 0's: one ncclBroadcast from rank 0 over all of
// params.values() (padding included: it is zero everywhere), in place, on `stream`, without the
// host waiting. Gradients are not touched. Every rank must call it (a collective).
void broadcast_parameters(const Rank& rank, framework::ParameterStore& params, cudaStream_t stream);

// ---- step 13.2: the all-reduce of gradients --------------------------------------------------
// data[0 .. count) on every rank becomes  sum over ranks r of (shard_r / batch) * data_r,  where
// shard_r is rank r's `shard` argument. When data_r is the mean gradient over rank r's shard and
// the shards make up the batch, that is the mean gradient over the whole batch, even when the
// shards differ in size. One ncclAllReduce in place on `stream`, with a reduction that multiplies
// each rank's input by that rank's weight before the sum (ncclRedOpCreatePreMulSum, the weight read
// from the host at once), destroyed once the all-reduce is enqueued. Every rank must call it, a rank
// with an empty shard too (its data, whatever it holds, then weighs zero). count 0 is allowed.
// Throws course::Error unless batch >= 1 and 0 <= shard <= batch.
void allreduce_mean(const Rank& rank, float* data, size_t count, int shard, int batch, cudaStream_t stream);

// ---- given: buckets ------------------------------------------------------------------------------
// A run of whole layers (each weight with its bias) whose gradients are contiguous in the
// framework::ParameterStore: tensors first_tensor .. first_tensor + tensors - 1, floats offset .. offset + count
// - 1 of grads() (their padding included).
struct Bucket {
  size_t first_tensor = 0, tensors = 0;
  size_t offset = 0, count = 0;
};
// The layers grouped into buckets in BACKWARD order (the last layers first: their gradients are
// written first), each bucket as many layers as fit in max_floats (at least one layer). Together
// they cover grads() from the first tensor's offset to the end. max_floats 0: one layer a bucket.
std::vector<Bucket> make_buckets(const framework::ParameterStore& params, size_t max_floats);

// ---- step 13.3: overlap the all-reduce with the backward pass ----------------------------------
class OverlappedBackward {
 public:
  // What reduces one bucket's gradients: enqueue it on `stream`, don't wait (13.2's all-reduce
  // over the bucket, in the trainer; a test's own kernel in the tests).
  using ReduceBucket = std::function<void(const Bucket& bucket, cudaStream_t stream)>;

  // Given: the buckets of make_buckets(params, bucket_floats), a stream for the reductions, and one
  // event per bucket plus one for the end.
  OverlappedBackward(const framework::ParameterStore& params, size_t bucket_floats);
  ~OverlappedBackward();
  OverlappedBackward(const OverlappedBackward&) = delete;
  OverlappedBackward& operator=(const OverlappedBackward&) = delete;

  // 13.3: net.forward_backward(x, labels, batch), and each bucket's reduce enqueued on
  // comm_stream() AS SOON AS the backward pass has enqueued the launches that write the bucket's
  // gradients (the network's gradient hook says when: framework/device_network.hpp), after them (an
  // event on the network's stream, waited for by comm_stream()), in bucket order. Returns with net.stream()
  // waiting for every reduction (an event on comm_stream()), so what is enqueued on net.stream()
  // next (the optimizer's step) sees reduced gradients; the host never waits. The network's hook is
  // removed again before returning. Every launch goes to net.stream() or comm_stream(), so a graph
  // captured from net.stream() holds all of it. Throws course::Error when the backward pass did not
  // report every bucket's layers.
  void forward_backward(framework::DeviceNetwork& net, const float* x, const int* labels, int batch, const ReduceBucket& reduce);

  const std::vector<Bucket>& buckets() const { return buckets_; }
  cudaStream_t comm_stream() const { return comm_.get(); }

 private:
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_tensor_;  // the bucket that holds each parameter tensor
  fast_training::Stream comm_;
  std::vector<cudaEvent_t> ready_;        // ready_[k]: bucket k's gradients are written
  cudaEvent_t reduced_ = nullptr;         // every bucket is reduced
};

}  // namespace data_parallel
