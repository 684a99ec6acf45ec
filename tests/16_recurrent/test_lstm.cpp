// Lesson 16, step 16.1: the LSTM cell and backpropagation through time on the CPU. References: the
// forward pass written out in double (lstm_reference.hpp), a case worked by hand, and finite
// differences of a loss of h and c for every gradient. Every output starts as NaN.
#include <cmath>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course_test.hpp"
#include "lstm_reference.hpp"
#include "recurrent.hpp"

using namespace lstm_test;
using recurrent::LstmGrads;
using recurrent::LstmParams;

namespace {

// Odd sizes: one of everything, more inputs than hidden and fewer, batches of 1 to 4.
const std::vector<LstmShape> kShapes = {{1, 1, 1, 1}, {3, 5, 2, 3}, {2, 9, 1, 5}, {4, 3, 7, 2}, {1, 17, 3, 4}};

template <typename T>
std::vector<T> as(const Vec& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <typename T>
struct Run {  // one forward pass of the code under test, in T
  std::vector<T> w_ih, w_hh, b_ih, b_hh, x, h0, c0, h, c, gates;
  LstmParams<T> params() const { return {w_ih.data(), w_hh.data(), b_ih.data(), b_hh.data()}; }
};

template <typename T>
Run<T> forward(const LstmShape& s, const Inputs& in) {
  const size_t BH = size_t(s.batch) * s.hidden, steps = size_t(s.steps);
  Run<T> r{as<T>(in.w_ih), as<T>(in.w_hh), as<T>(in.b_ih), as<T>(in.b_hh), as<T>(in.x), as<T>(in.h0), as<T>(in.c0),
           std::vector<T>(steps * BH, T(kNaN)), std::vector<T>(steps * BH, T(kNaN)),
           std::vector<T>(steps * s.gate_rows() * s.batch, T(kNaN))};
  recurrent::lstm_forward<T>(s, r.params(), r.x.data(), r.h0.data(), r.c0.data(), r.h.data(), r.c.data(),
                             r.gates.data());
  return r;
}

template <typename T>
struct Grads {
  std::vector<T> dx, dh0, dc0, w_ih, w_hh, b_ih, b_hh;
};

// lstm_backward after lstm_forward, both the code under test; dh_next and dc_next given or null.
template <typename T>
Grads<T> backward(const LstmShape& s, const Inputs& in, const LossWeights& w, bool from_next) {
  const Run<T> r = forward<T>(s, in);
  const size_t G = s.gate_rows(), BH = size_t(s.batch) * s.hidden;
  Grads<T> g{std::vector<T>(r.x.size(), T(kNaN)), std::vector<T>(BH, T(kNaN)), std::vector<T>(BH, T(kNaN)),
             std::vector<T>(G * s.inputs, T(kNaN)), std::vector<T>(G * s.hidden, T(kNaN)),
             std::vector<T>(G, T(kNaN)), std::vector<T>(G, T(kNaN))};
  const std::vector<T> dh = as<T>(w.dh), dh_next = as<T>(w.dh_next), dc_next = as<T>(w.dc_next);
  recurrent::lstm_backward<T>(s, r.params(), r.x.data(), r.h0.data(), r.c0.data(), r.h.data(), r.c.data(),
                              r.gates.data(), dh.data(), from_next ? dh_next.data() : nullptr,
                              from_next ? dc_next.data() : nullptr, g.dx.data(), g.dh0.data(), g.dc0.data(),
                              LstmGrads<T>{g.w_ih.data(), g.w_hh.data(), g.b_ih.data(), g.b_hh.data()});
  return g;
}

// Every gradient of lstm_backward against the finite differences of the loss (lstm_reference.hpp).
template <typename T>
void check_backward(const LstmShape& s, uint64_t seed, bool from_next, double atol, double rtol) {
  CAPTURE(s.batch, s.steps, s.inputs, s.hidden, from_next);
  COURSE_INPUT_SEED(seed);
  const Inputs in = random_inputs(s, seed);
  LossWeights w = random_loss(s, seed + 10);
  if (!from_next) std::fill(w.dh_next.begin(), w.dh_next.end(), 0.0), std::fill(w.dc_next.begin(), w.dc_next.end(), 0.0);
  const auto loss_of = [&](const Inputs& v) { return loss(s, v, w); };
  const Grads<T> g = backward<T>(s, in, w, from_next);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_backward dx", g.dx, finite_differences(in, &Inputs::x, loss_of),
                      (course::Shape{{"t", size_t(s.steps)}, {"b", size_t(s.batch)}, {"i", size_t(s.inputs)}}), atol,
                      rtol);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_backward dh0", g.dh0, finite_differences(in, &Inputs::h0, loss_of),
                      course::test::matrix("b", s.batch, "j", s.hidden), atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_backward dc0", g.dc0, finite_differences(in, &Inputs::c0, loss_of),
                      course::test::matrix("b", s.batch, "j", s.hidden), atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_backward dw_ih", g.w_ih,
                      finite_differences(in, &Inputs::w_ih, loss_of),
                      course::test::matrix("r", int(s.gate_rows()), "i", s.inputs), atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_backward dw_hh", g.w_hh,
                      finite_differences(in, &Inputs::w_hh, loss_of),
                      course::test::matrix("r", int(s.gate_rows()), "j", s.hidden), atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_backward db_ih", g.b_ih,
                      finite_differences(in, &Inputs::b_ih, loss_of), ::course::Shape{}, atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_backward db_hh", g.b_hh,
                      finite_differences(in, &Inputs::b_hh, loss_of), ::course::Shape{}, atol, rtol);
}

// The steps [first, first + count) of `whole` as a sequence of their own, starting from the state
// `state` (a run of the reference over the steps before them).
Inputs segment(const LstmShape& whole, const Inputs& in, int first, int count, const Outputs& before) {
  const size_t BI = size_t(whole.batch) * whole.inputs, BH = size_t(whole.batch) * whole.hidden;
  Inputs seg = in;
  seg.x.assign(in.x.begin() + first * BI, in.x.begin() + (first + count) * BI);
  if (first > 0) {
    seg.h0.assign(before.h.begin() + (first - 1) * BH, before.h.begin() + first * BH);
    seg.c0.assign(before.c.begin() + (first - 1) * BH, before.c.begin() + first * BH);
  }
  return seg;
}

}  // namespace

TEST_CASE("lstm_forward: a case worked by hand", "[16.1]") {
  // One sequence, one input, one hidden number, one step. Every weight and bias 0: every gate's
  // pre-activation is 0, so i = f = o = sigmoid(0) = 1/2 and g = tanh(0) = 0. From c0 = 2:
  // c = 1/2 * 2 + 1/2 * 0 = 1 and h = 1/2 * tanh(1).
  const LstmShape s{1, 1, 1, 1};
  const std::vector<double> zeros(4, 0.0), x = {0.7}, h0 = {-0.4}, c0 = {2.0};
  std::vector<double> h(1, kNaN), c(1, kNaN), gates(4, kNaN);
  recurrent::lstm_forward<double>(s, {zeros.data(), zeros.data(), zeros.data(), zeros.data()}, x.data(), h0.data(),
                                  c0.data(), h.data(), c.data(), gates.data());
  REQUIRE_ALL_CLOSE(c, std::vector<double>{1.0}, 1e-15, 1e-15);
  REQUIRE_ALL_CLOSE(h, std::vector<double>{0.5 * std::tanh(1.0)}, 1e-15, 1e-15);
  REQUIRE_ALL_CLOSE(gates, (std::vector<double>{0.5, 0.5, 0.0, 0.5}), 1e-15, 1e-15);
}

// Tolerances: double against double differs by the order of a few sums of at most 4H + I terms
// (1e-12 with room). Float keeps 24 bits, and an error in h_t feeds every later step: 17 steps of
// values of order 1 stay within 1e-5 (2e-5 with room).
TEST_CASE("lstm_forward: the formulas in double, float and double, odd shapes", "[16.1]") {
  uint64_t seed = 16100;
  for (const LstmShape& s : kShapes) {
    CAPTURE(s.batch, s.steps, s.inputs, s.hidden);
    COURSE_INPUT_SEED(seed + 1);
    const Inputs in = random_inputs(s, ++seed);
    const Outputs ref = reference_forward(s, in);
    const course::Shape state{{"t", size_t(s.steps)}, {"b", size_t(s.batch)}, {"j", size_t(s.hidden)}};
    const course::Shape gates{{"t", size_t(s.steps)}, {"b", size_t(s.batch)}, {"gate row", s.gate_rows()}};
    const Run<double> d = forward<double>(s, in);
    REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_forward h (double)", d.h, ref.h, state, 1e-12, 1e-12);
    REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_forward c (double)", d.c, ref.c, state, 1e-12, 1e-12);
    REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_forward gates (double)", d.gates, ref.gates, gates, 1e-12, 1e-12);
    const Run<float> f = forward<float>(s, in);
    REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_forward h (float)", course::test::to_double(f.h), ref.h, state, 2e-5, 2e-5);
    REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_forward c (float)", course::test::to_double(f.c), ref.c, state, 2e-5, 2e-5);
    REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: lstm_forward gates (float)", course::test::to_double(f.gates), ref.gates, gates, 2e-5,
                        2e-5);
  }
}

// Tolerances: the finite differences are good to about 1e-9 (lstm_reference.hpp), and the double
// backward pass to 1e-12: 1e-7 with room. Float: the forward pass's 2e-5 carried back through the
// same steps, 1e-3 relative with room.
TEST_CASE("lstm_backward: every gradient against finite differences, initial state included", "[16.1]") {
  uint64_t seed = 16200;
  for (const LstmShape& s : kShapes) {
    check_backward<double>(s, seed += 20, false, 1e-7, 1e-7);
    check_backward<double>(s, seed += 20, true, 1e-7, 1e-7);
  }
  check_backward<float>({3, 5, 2, 3}, seed += 20, true, 1e-3, 1e-3);
}

TEST_CASE("lstm_backward: a sequence in two segments, the state's gradients passed back, is the whole sequence",
          "[16.1]") {
  // Segment 2 runs backward first from dh_next and dc_next of the whole loss; its dh0 and dc0 are
  // segment 1's dh_next and dc_next. The parameters' gradients of the two add up to the whole
  // sequence's, which the finite differences of the whole loss give.
  const LstmShape whole{2, 7, 3, 4};
  COURSE_INPUT_SEED(16300);
  const Inputs in = random_inputs(whole, 16300);
  const LossWeights w = random_loss(whole, 16310);
  const Outputs ref = reference_forward(whole, in);
  const size_t BH = size_t(whole.batch) * whole.hidden;
  const LstmShape first{2, 3, 3, 4}, second{2, 4, 3, 4};
  const Inputs in1 = segment(whole, in, 0, 3, ref), in2 = segment(whole, in, 3, 4, ref);
  LossWeights w2{Vec(w.dh.begin() + 3 * BH, w.dh.end()), w.dh_next, w.dc_next};
  const Grads<double> g2 = backward<double>(second, in2, w2, true);
  LossWeights w1{Vec(w.dh.begin(), w.dh.begin() + 3 * BH), g2.dh0, g2.dc0};
  const Grads<double> g1 = backward<double>(first, in1, w1, true);
  const auto loss_of = [&](const Inputs& v) { return loss(whole, v, w); };
  Vec dw_hh(g1.w_hh.size()), dx(g1.dx);
  for (size_t e = 0; e < dw_hh.size(); ++e) dw_hh[e] = g1.w_hh[e] + g2.w_hh[e];
  dx.insert(dx.end(), g2.dx.begin(), g2.dx.end());
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: dw_hh of the two segments", dw_hh,
                      finite_differences(in, &Inputs::w_hh, loss_of), ::course::Shape{}, 1e-7, 1e-7);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: dx of the two segments", dx, finite_differences(in, &Inputs::x, loss_of),
                      ::course::Shape{}, 1e-7, 1e-7);
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: dc0 through both segments", g1.dc0,
                      finite_differences(in, &Inputs::c0, loss_of), ::course::Shape{}, 1e-7, 1e-7);
}

TEST_CASE("lstm_backward: truncated backpropagation stops at the segment's start, and that changes the gradient",
          "[16.1]") {
  // Truncated BPTT: segment 2 starts from the state segment 1 left and sends nothing back into it.
  // Its gradients are those of its loss with that state held fixed; the full gradient of the same
  // loss also flows through segment 1's steps, and differs.
  const LstmShape whole{2, 8, 2, 3};
  COURSE_INPUT_SEED(16400);
  const Inputs in = random_inputs(whole, 16400);
  const Outputs ref = reference_forward(whole, in);
  const LstmShape second{2, 4, 2, 3};
  const Inputs in2 = segment(whole, in, 4, 4, ref);
  LossWeights w2 = random_loss(second, 16410);
  std::fill(w2.dh_next.begin(), w2.dh_next.end(), 0.0), std::fill(w2.dc_next.begin(), w2.dc_next.end(), 0.0);
  const Grads<double> truncated = backward<double>(second, in2, w2, false);
  const Vec held = finite_differences(in2, &Inputs::w_hh, [&](const Inputs& v) { return loss(second, v, w2); });
  REQUIRE_NAMED_CLOSE("exercises/lstm.cpp: dw_hh of the segment, its start held", truncated.w_hh, held,
                      ::course::Shape{}, 1e-7, 1e-7);
  // The same loss as a loss of the whole sequence: zero weight on segment 1's h.
  const size_t BH = size_t(whole.batch) * whole.hidden;
  LossWeights w{Vec(4 * BH, 0.0), w2.dh_next, w2.dc_next};
  w.dh.insert(w.dh.end(), w2.dh.begin(), w2.dh.end());
  const Vec full = finite_differences(in, &Inputs::w_hh, [&](const Inputs& v) { return loss(whole, v, w); });
  double largest = 0;
  for (size_t e = 0; e < full.size(); ++e) largest = std::max(largest, std::abs(full[e] - truncated.w_hh[e]));
  INFO("the largest difference between the truncated and the full dw_hh: " << largest);
  CHECK(largest > 1e-3);
}

TEST_CASE("lstm_forward and lstm_backward: a bad shape or a missing tensor throws, naming the function", "[16.1]") {
  const LstmShape s{2, 3, 2, 2};
  const Inputs in = random_inputs(s, 16500);
  Run<double> r = forward<double>(s, in);
  std::vector<double> h(r.h.size(), kNaN);
  const auto throws = [&](const LstmShape& bad, const double* x, const char* needle) {
    try {
      recurrent::lstm_forward<double>(bad, r.params(), x, r.h0.data(), r.c0.data(), h.data(), r.c.data(),
                                      r.gates.data());
    } catch (const course::Error& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
      return true;
    }
    return false;
  };
  CHECK(throws({0, 3, 2, 2}, r.x.data(), "lstm_forward: batch, steps, inputs and hidden must be >= 1"));
  CHECK(throws({2, 3, 2, -1}, r.x.data(), "lstm_forward: batch, steps, inputs and hidden must be >= 1"));
  CHECK(throws({1 << 20, 1 << 10, 1, 1}, r.x.data(), "2^31 elements"));
  CHECK(throws(s, nullptr, "lstm_forward"));
  for (double v : h) CHECK(std::isnan(v));  // nothing written
  std::vector<double> dx(r.x.size()), d0(r.h0.size()), g(64);
  std::string message;
  try {
    recurrent::lstm_backward<double>({2, 0, 2, 2}, r.params(), r.x.data(), r.h0.data(), r.c0.data(), r.h.data(),
                                     r.c.data(), r.gates.data(), r.h.data(), nullptr, nullptr, dx.data(), d0.data(),
                                     d0.data(), LstmGrads<double>{g.data(), g.data(), g.data(), g.data()});
  } catch (const course::Error& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("lstm_backward: batch, steps, inputs and hidden must be >= 1") != std::string::npos);
}
