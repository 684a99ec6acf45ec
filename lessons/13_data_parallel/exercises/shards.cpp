// Lesson 13, step 13.1: ranks and shards. YOUR FILE: shard_of and broadcast_parameters
// (data_parallel.hpp says what each must do).
#include "course/error.hpp"
#include "data_parallel.hpp"
#include "framework/nccl_check.hpp"

namespace data_parallel {

Shard shard_of(int batch, int ranks, int rank) {
  // TODO(13.1): refuse bad arguments (course::Error); then rank's contiguous share of the batch:
  // batch / ranks each, one more for the first batch % ranks ranks, in rank order.
  (void)batch, (void)ranks, (void)rank;
  course::todo("13.1", "shard_of");
}

void broadcast_parameters(const Rank& rank, framework::ParameterStore& params, cudaStream_t stream) {
  // TODO(13.1): one ncclBroadcast of params.values() (all params.total() floats) from rank 0, in
  // place, over rank.comm on `stream` (NCCL_CHECK around it).
  (void)rank, (void)params, (void)stream;
  course::todo("13.1", "broadcast_parameters");
}

}  // namespace data_parallel
