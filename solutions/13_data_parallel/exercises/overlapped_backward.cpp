// Lesson 13, step 13.3: overlap the all-reduce with the backward pass.
#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "data_parallel.hpp"

namespace data_parallel {

void OverlappedBackward::forward_backward(framework::DeviceNetwork& net, const float* x, const int* labels, int batch,
                                          const ReduceBucket& reduce) {
  // How many tensors each bucket still waits for; a report brings a layer's two (weight, bias).
  std::vector<size_t> waiting(buckets_.size());
  for (size_t k = 0; k < buckets_.size(); ++k) waiting[k] = buckets_[k].tensors;
  size_t reduced = 0;
  net.set_gradient_hook([&](size_t weight) {
    const size_t k = bucket_of_tensor_.at(weight);
    waiting[k] -= 2;
    if (waiting[k] != 0) return;
    // The launches that wrote the bucket are on net.stream() by now: mark that point, and let the
    // reduction stream start from it while the network's stream goes on with earlier layers.
    CUDA_CHECK(cudaEventRecord(ready_[k], net.stream()));
    CUDA_CHECK(cudaStreamWaitEvent(comm_.get(), ready_[k], 0));
    reduce(buckets_[k], comm_.get());
    ++reduced;
  });
  try {
    net.forward_backward(x, labels, batch);
  } catch (...) {
    net.set_gradient_hook(nullptr);
    throw;
  }
  net.set_gradient_hook(nullptr);
  if (reduced != buckets_.size())
    throw course::Error("OverlappedBackward: the backward pass reported the layers of " + std::to_string(reduced) +
                        " of " + std::to_string(buckets_.size()) + " buckets");
  // Join: the network's stream goes on only once every reduction is done.
  CUDA_CHECK(cudaEventRecord(reduced_, comm_.get()));
  CUDA_CHECK(cudaStreamWaitEvent(net.stream(), reduced_, 0));
}

}  // namespace data_parallel
