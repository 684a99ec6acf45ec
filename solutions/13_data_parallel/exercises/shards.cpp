// Lesson 13, step 13.1: ranks and shards.
#include <string>

#include "course/error.hpp"
#include "data_parallel.hpp"
#include "framework/nccl_check.hpp"

namespace data_parallel {

Shard shard_of(int batch, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks || batch < 0)
    throw course::Error("shard_of: need ranks >= 1, 0 <= rank < ranks and batch >= 0; got batch " +
                        std::to_string(batch) + ", ranks " + std::to_string(ranks) + ", rank " + std::to_string(rank));
  const int base = batch / ranks, extra = batch % ranks;
  // Ranks before `rank` took base each, plus one each for those among the first `extra`.
  const int first = rank * base + (rank < extra ? rank : extra);
  return {first, base + (rank < extra ? 1 : 0)};
}

void broadcast_parameters(const Rank& rank, framework::ParameterStore& params, cudaStream_t stream) {
  NCCL_CHECK(ncclBroadcast(params.values(), params.values(), params.total(), ncclFloat, 0, rank.comm, stream));
}

}  // namespace data_parallel
