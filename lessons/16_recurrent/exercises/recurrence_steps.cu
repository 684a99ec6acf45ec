// Lesson 16, step 16.2: the LSTM's recurrence on the GPU, one step at a time.
// YOUR FILE. The contract is in recurrent_gpu.hpp; lesson 09's dense products are in
// fast_training.hpp. Uncomment the parameter names when you write it.
#include <string>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "fast_training.hpp"  // lesson 09's dense products
#include "recurrent_gpu.hpp"

namespace recurrent {

void recurrence_forward_steps(const LstmShape& /*s*/, const float* /*w_hh*/, const float* /*b_hh*/,
                              const float* /*h0*/, const float* /*c0*/, float* /*gates*/, float* /*h*/, float* /*c*/,
                              float* /*workspace*/, cudaStream_t /*stream*/) {
  // TODO(16.2): check first (check_lstm, check_tensors); then for each step, w_hh h_{t-1} + b_hh with
  // lesson 09's dense forward into the workspace, and one kernel that adds it to the step's gates,
  // applies the activations and writes c_t and h_t.
  course::todo("16.2", "recurrence_forward_steps");
}

void recurrence_backward_steps(const LstmShape& /*s*/, const float* /*w_hh*/, const float* /*c0*/,
                               const float* /*c*/, const float* /*gates*/, const float* /*dh*/,
                               const float* /*dh_next*/, const float* /*dc_next*/, float* /*da*/, float* /*dh0*/,
                               float* /*dc0*/, float* /*workspace*/, cudaStream_t /*stream*/) {
  // TODO(16.2): check first; the carried gradients of h and c start as dh_next and dc_next (or
  // zeros); for each step from the last, one kernel through the cell into da_t, then lesson 09's
  // dense backward (data) for what goes to h_{t-1}; dh0 and dc0 at the end.
  course::todo("16.2", "recurrence_backward_steps");
}

}  // namespace recurrent
