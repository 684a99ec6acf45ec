// Lesson 16, step 16.1: the LSTM cell over a sequence, forward, and backpropagation through time.
// YOUR FILE. The contracts are in recurrent.hpp. Uncomment the parameter names when you write it.
#include <cmath>
#include <cstddef>
#include <vector>

#include "course/error.hpp"
#include "recurrent.hpp"

namespace recurrent {

template <typename T>
void lstm_forward(const LstmShape& /*s*/, const LstmParams<T>& /*p*/, const T* /*x*/, const T* /*h0*/,
                  const T* /*c0*/, T* /*h*/, T* /*c*/, T* /*gates*/) {
  // TODO(16.1): check_lstm and check_tensors first; then step by step, sequence by sequence, the four
  // gates' pre-activations from x_t and h_{t-1}, their activations into gates, c_t and h_t.
  course::todo("16.1", "lstm_forward");
}

template <typename T>
void lstm_backward(const LstmShape& /*s*/, const LstmParams<T>& /*p*/, const T* /*x*/, const T* /*h0*/,
                   const T* /*c0*/, const T* /*h*/, const T* /*c*/, const T* /*gates*/, const T* /*dh*/,
                   const T* /*dh_next*/, const T* /*dc_next*/, T* /*dx*/, T* /*dh0*/, T* /*dc0*/,
                   const LstmGrads<T>& /*g*/) {
  // TODO(16.1): check first; zero the parameters' gradients; carry the gradients of h and c back from
  // t = T-1 (dh_next, dc_next, or zeros) to t = 0, each step through its gates; dh0 and dc0 at the end.
  course::todo("16.1", "lstm_backward");
}

template void lstm_forward<float>(const LstmShape&, const LstmParams<float>&, const float*, const float*, const float*,
                                  float*, float*, float*);
template void lstm_forward<double>(const LstmShape&, const LstmParams<double>&, const double*, const double*,
                                   const double*, double*, double*, double*);
template void lstm_backward<float>(const LstmShape&, const LstmParams<float>&, const float*, const float*,
                                   const float*, const float*, const float*, const float*, const float*,
                                   const float*, const float*, float*, float*, float*, const LstmGrads<float>&);
template void lstm_backward<double>(const LstmShape&, const LstmParams<double>&, const double*, const double*,
                                    const double*, const double*, const double*, const double*, const double*,
                                    const double*, const double*, double*, double*, double*,
                                    const LstmGrads<double>&);

}  // namespace recurrent
