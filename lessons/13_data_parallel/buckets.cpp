// Lesson 13 (given): buckets of layers and what OverlappedBackward holds (data_parallel.hpp).
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "data_parallel.hpp"

namespace data_parallel {

std::vector<Bucket> make_buckets(const framework::ParameterStore& params, size_t max_floats) {
  const size_t tensors = params.tensors();
  if (tensors == 0 || tensors % 2 != 0)
    throw course::Error("make_buckets: expected layers of a weight and a bias each, got " + std::to_string(tensors) +
                        " tensors");
  // Floats from tensor t to the start of tensor end (to the end of the store for the last one).
  auto span_end = [&](size_t end) { return end == tensors ? params.total() : params.offset(end); };
  std::vector<Bucket> buckets;
  size_t end = tensors;  // the bucket being filled ends before this tensor
  for (size_t layer = tensors / 2; layer-- > 0;) {
    const size_t first = 2 * layer;
    const bool empty = end == first + 2;
    if (!empty && span_end(end) - params.offset(first) > max_floats) {
      // Close the bucket at the layer after this one; this layer starts the next.
      const size_t start = first + 2;
      buckets.push_back({start, end - start, params.offset(start), span_end(end) - params.offset(start)});
      end = start;
    }
  }
  buckets.push_back({0, end, params.offset(0), span_end(end) - params.offset(0)});
  return buckets;
}

OverlappedBackward::OverlappedBackward(const framework::ParameterStore& params, size_t bucket_floats)
    : buckets_(make_buckets(params, bucket_floats)), bucket_of_tensor_(params.tensors()) {
  for (size_t k = 0; k < buckets_.size(); ++k)
    for (size_t t = 0; t < buckets_[k].tensors; ++t) bucket_of_tensor_[buckets_[k].first_tensor + t] = k;
  // Events only order work (no timing): the cheapest kind, and the kind a graph capture records.
  ready_.resize(buckets_.size());
  for (cudaEvent_t& e : ready_) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventCreateWithFlags(&reduced_, cudaEventDisableTiming));
}

OverlappedBackward::~OverlappedBackward() {
  for (cudaEvent_t e : ready_) cudaEventDestroy(e);
  cudaEventDestroy(reduced_);
}

}  // namespace data_parallel
