#pragma once
// Lesson 16: a recurrent network. An LSTM reads a sequence one step at a time and carries a state
// (h, the output, and c, the cell) from each step to the next. A step's work is small and the next
// step waits for it: that is what this lesson measures on the CPU and the GPU.
//
// Every function checks its arguments first (check_lstm) and throws course::Error naming itself;
// nothing is written then.
#include <cstddef>

namespace recurrent {

// One LSTM layer over `batch` sequences of `steps` time steps: `inputs` numbers go in at each step,
// `hidden` numbers of h (and of c) come out.
struct LstmShape {
  int batch = 1, steps = 1, inputs = 1, hidden = 1;
  size_t gate_rows() const { return 4 * size_t(hidden); }  // the four gates' rows of the weights
};

// The weights and biases in PyTorch's nn.LSTM layout: the four gates' rows stacked in the order
// i (input), f (forget), g (candidate), o (output).
//   w_ih [4H x I]   w_hh [4H x H]   b_ih [4H]   b_hh [4H]
template <typename T>
struct LstmParams {
  const T *w_ih, *w_hh, *b_ih, *b_hh;
};
// Their gradients, in the same layout.
template <typename T>
struct LstmGrads {
  T *w_ih, *w_hh, *b_ih, *b_hh;
};

// Throws course::Error("<function>: ...") unless every size is >= 1 and every tensor of the shape
// (the largest: the gates, steps x batch x 4H) has fewer than 2^31 elements.
void check_lstm(const char* function, const LstmShape& s);
// Throws course::Error("<function>: a tensor is null") unless all_given (every pointer the function
// needs is non-null, e.g. check_tensors("lstm_forward", x && h0 && ...)).
void check_tensors(const char* function, bool all_given);

// ---- 16.1 the LSTM cell and backpropagation through time, on the CPU ------------------------------
// Layouts, time-major (nn.LSTM's default): x [T][B][I]; h0, c0 [B][H]; h, c [T][B][H]; gates [T][B][4H].
//
// lstm_forward: for t = 0 .. T-1, for every sequence b (h_{-1} = h0, c_{-1} = c0):
//   a   = w_ih x_t + b_ih + w_hh h_{t-1} + b_hh         4H numbers: a_i, a_f, a_g, a_o (H each)
//   i   = sigmoid(a_i)   f = sigmoid(a_f)   g = tanh(a_g)   o = sigmoid(a_o)
//   c_t = f * c_{t-1} + i * g
//   h_t = o * tanh(c_t)
// It writes h, c, and gates = (i, f, g, o) of every step: what the backward pass needs.
// A null pointer among the tensors throws (check first, then compute).
template <typename T>
void lstm_forward(const LstmShape& s, const LstmParams<T>& p, const T* x, const T* h0, const T* c0, T* h, T* c,
                  T* gates);

// lstm_backward: backpropagation through time, from t = T-1 down to 0. dh [T][B][H] is the loss's
// gradient with respect to each h_t from outside the layer (a head on every step, or zeros);
// dh_next and dc_next [B][H] that of h_{T-1} and c_{T-1} from after the last step (the next segment
// of a longer sequence; null: none, the sequence ends here). Each step receives the gradient of its
// h_t (dh plus what step t+1 sent back) and of its c_t, and sends back those of h_{t-1} and c_{t-1}.
// Writes, all overwritten:
//   dx [T][B][I]; dh0, dc0 [B][H] (what reaches the initial state);
//   g: the parameters' gradients, summed over every step and sequence.
// x, h0, c0, h, c, gates: as lstm_forward read and wrote them.
template <typename T>
void lstm_backward(const LstmShape& s, const LstmParams<T>& p, const T* x, const T* h0, const T* c0, const T* h,
                   const T* c, const T* gates, const T* dh, const T* dh_next, const T* dc_next, T* dx, T* dh0,
                   T* dc0, const LstmGrads<T>& g);

}  // namespace recurrent
