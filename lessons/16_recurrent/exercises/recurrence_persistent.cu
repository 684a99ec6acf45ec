// Lesson 16, step 16.3: the LSTM's recurrence in one launch (a persistent kernel).
// YOUR FILE. The contract and the plan (which block owns which units and rows) are in
// recurrent_gpu.hpp. Uncomment the parameter names when you write it.
#include <cooperative_groups.h>

#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "recurrent_gpu.hpp"

namespace recurrent {

void recurrence_forward_persistent(const LstmShape& /*s*/, const PersistentPlan& /*plan*/, const float* /*w_hh*/,
                                   const float* /*b_hh*/, const float* /*h0*/, const float* /*c0*/, float* /*gates*/,
                                   float* /*h*/, float* /*c*/, cudaStream_t /*stream*/) {
  // TODO(16.3): check first (check_lstm, check_tensors); one cooperative launch of plan.blocks()
  // blocks of plan.threads threads with plan.shared_bytes of shared memory, whose kernel loads its
  // units' w_hh rows once and runs every step, waiting between steps as the plan says.
  course::todo("16.3", "recurrence_forward_persistent");
}

void recurrence_backward_persistent(const LstmShape& /*s*/, const PersistentPlan& /*plan*/, const float* /*w_hh*/,
                                    const float* /*c0*/, const float* /*c*/, const float* /*gates*/,
                                    const float* /*dh*/, const float* /*dh_next*/, const float* /*dc_next*/,
                                    float* /*da*/, float* /*dh0*/, float* /*dc0*/, cudaStream_t /*stream*/) {
  // TODO(16.3): check first; one cooperative launch, as forward, running the steps backwards: each
  // block's cells into da_t, a wait, then its units' share of da_t w_hh for the step before.
  course::todo("16.3", "recurrence_backward_persistent");
}

}  // namespace recurrent
