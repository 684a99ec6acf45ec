// Lesson 13, step 13.2: the all-reduce of gradients.
#include <string>

#include "course/error.hpp"
#include "data_parallel.hpp"
#include "framework/nccl_check.hpp"

namespace data_parallel {

void allreduce_mean(const Rank& rank, float* data, size_t count, int shard, int batch, cudaStream_t stream) {
  if (batch < 1 || shard < 0 || shard > batch)
    throw course::Error("allreduce_mean: need batch >= 1 and 0 <= shard <= batch; got shard " + std::to_string(shard) +
                        " of " + std::to_string(batch));
  // Each rank's mean over its shard, weighted by its share of the batch: sum_r (n_r / n) g_r.
  float weight = float(shard) / float(batch);
  ncclRedOp_t weighted_sum;
  NCCL_CHECK(ncclRedOpCreatePreMulSum(&weighted_sum, &weight, ncclFloat, ncclScalarHostImmediate, rank.comm));
  NCCL_CHECK(ncclAllReduce(data, data, count, ncclFloat, weighted_sum, rank.comm, stream));
  NCCL_CHECK(ncclRedOpDestroy(weighted_sum, rank.comm));  // allowed once the call that used it returned
}

}  // namespace data_parallel
