#pragma once
// The course framework: ranks. One thread per GPU, each a RANK of one NCCL communicator: every rank
// runs the same code on its own GPU and its own shard of each batch, and the ranks meet only in
// collectives (broadcast, all-reduce), which every rank must call, in the same order, with the
// same sizes, or they all wait forever.
//
//   main thread: ncclGetUniqueId ----------------------------------------------+
//   thread r:    cudaSetDevice(devices[r]) -> ncclCommInitRank(ranks, id, r) -> body(rank) -> leave
//
// The unique id is made once and handed to every rank: it names the communicator they build
// together (ncclCommInitRank returns on each rank once all of them called it).
#include <nccl.h>

#include <functional>
#include <string>
#include <vector>

#include "framework/host_barrier.hpp"  // the ranks' threads meet on the host

namespace framework {

struct Rank {
  int rank = 0;       // 0 .. ranks-1
  int ranks = 1;      // how many take part
  int device = 0;     // this rank's GPU (current in its thread)
  ncclComm_t comm = nullptr;
};

// GPUs 0 .. count-1; throws course::Error when this machine has fewer usable GPUs.
std::vector<int> first_devices(int count);
int usable_gpus();  // 0 without a usable GPU

// Runs body(rank) on one thread per device (rank r on devices[r], each device once) and waits for
// them. Rank r's thread makes its device current and joins the communicator before body, leaves it
// after. The first error of any rank is rethrown here once every thread ended. When a rank fails
// while the others wait for it in a collective, they would wait forever: after a grace period the
// program then prints that rank's error and exits with status 1.
void run_ranks(const std::vector<int>& devices, const std::function<void(const Rank&)>& body);

// NCCL's version as "2.28.9" (the library's, which may differ from the header's).
std::string nccl_version();

}  // namespace framework
