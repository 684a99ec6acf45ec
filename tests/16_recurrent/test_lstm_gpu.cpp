// Lesson 16, steps 16.2 and 16.3: the recurrence on the GPU, one step at a time and in one launch,
// against the LSTM written out in double (lstm_reference.hpp: the forward pass, and backpropagation
// through time, itself checked against finite differences). Every output starts as NaN.
#include <cmath>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "lstm_reference.hpp"
#include "recurrent_gpu.hpp"

using namespace lstm_test;
using course::DeviceBuffer;
using recurrent::PersistentPlan;
using recurrent::Recurrence;

namespace {

// Odd sizes: one of everything; more inputs than hidden and fewer; 97 sequences of 5 units (the
// sine task's batch and the source's layer); 51 and 70 units (a block's threads not a whole warp).
const std::vector<LstmShape> kShapes = {{1, 1, 1, 1}, {3, 5, 2, 3}, {97, 4, 1, 5}, {5, 33, 1, 17}, {7, 6, 3, 51},
                                        {2, 4, 5, 70}};

// Tolerances. Float against double: sums of at most 4H + I terms per step, and an error in h_t feeds
// every later step; over up to 33 steps of values of order 1 that stays below 5e-5 (1e-4 with room).
// The gradients add T x B rows of such terms (the weights') or carry them back through every step:
// 2e-3 absolute and relative with room (lesson 16.1's float check allows 1e-3 over 5 steps).
constexpr double kForwardTol = 1e-4, kBackwardTol = 2e-3;

std::vector<float> as_float(const Vec& v) { return std::vector<float>(v.begin(), v.end()); }
std::vector<double> host(const DeviceBuffer<float>& b) { return course::test::to_double(b.to_host()); }
DeviceBuffer<float> poisoned(size_t n) {
  DeviceBuffer<float> b(n);
  b.poison();
  return b;
}

course::Shape state_shape(const LstmShape& s) {
  return {{"t", size_t(s.steps)}, {"b", size_t(s.batch)}, {"j", size_t(s.hidden)}};
}
course::Shape gate_shape(const LstmShape& s) {
  return {{"t", size_t(s.steps)}, {"b", size_t(s.batch)}, {"gate row", s.gate_rows()}};
}

// One LSTM's tensors on the device.
struct Device {
  DeviceBuffer<float> w_ih, w_hh, b_ih, b_hh, x, h0, c0, h, c, gates;
  Device(const LstmShape& s, const Inputs& in)
      : w_ih(as_float(in.w_ih)), w_hh(as_float(in.w_hh)), b_ih(as_float(in.b_ih)), b_hh(as_float(in.b_hh)),
        x(as_float(in.x)), h0(as_float(in.h0)), c0(as_float(in.c0)),
        h(poisoned(size_t(s.steps) * s.batch * s.hidden)), c(poisoned(h.size())),
        gates(poisoned(h.size() * 4)) {}
  recurrent::LstmParams<float> params() const { return {w_ih.data(), w_hh.data(), b_ih.data(), b_hh.data()}; }
};

// The whole pass of recurrent_gpu.hpp with recurrence r, against the double reference.
void check_whole_pass(Recurrence r, const char* file, const LstmShape& s, uint64_t seed) {
  CAPTURE(s.batch, s.steps, s.inputs, s.hidden);
  COURSE_INPUT_SEED(seed);
  const Inputs in = random_inputs(s, seed);
  const LossWeights w = random_loss(s, seed + 10);
  const Outputs ref = reference_forward(s, in);
  const Gradients gref = reference_backward(s, in, w);
  Device d(s, in);
  DeviceBuffer<float> workspace = poisoned(recurrent::lstm_gpu_workspace_floats(s));
  recurrent::lstm_forward_gpu(r, s, d.params(), d.x.data(), d.h0.data(), d.c0.data(), d.h.data(), d.c.data(),
                              d.gates.data(), workspace.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string where = std::string(file) + ": lstm_forward_gpu (" + recurrent::recurrence_name(r) + ") ";
  REQUIRE_NAMED_CLOSE(where + "h", host(d.h), ref.h, state_shape(s), kForwardTol, kForwardTol);
  REQUIRE_NAMED_CLOSE(where + "c", host(d.c), ref.c, state_shape(s), kForwardTol, kForwardTol);
  REQUIRE_NAMED_CLOSE(where + "gates", host(d.gates), ref.gates, gate_shape(s), kForwardTol, kForwardTol);

  // Backward from the GPU's own forward pass; dh_next and dc_next given.
  const size_t BH = size_t(s.batch) * s.hidden, G = s.gate_rows();
  DeviceBuffer<float> dh(as_float(w.dh)), dh_next(as_float(w.dh_next)), dc_next(as_float(w.dc_next));
  DeviceBuffer<float> dx = poisoned(in.x.size()), dh0 = poisoned(BH), dc0 = poisoned(BH);
  DeviceBuffer<float> gw_ih = poisoned(G * s.inputs), gw_hh = poisoned(G * s.hidden), gb_ih = poisoned(G),
                      gb_hh = poisoned(G);
  workspace.poison();
  recurrent::lstm_backward_gpu(r, s, d.params(), d.x.data(), d.h0.data(), d.c0.data(), d.h.data(), d.c.data(),
                               d.gates.data(), dh.data(), dh_next.data(), dc_next.data(), dx.data(), dh0.data(),
                               dc0.data(), {gw_ih.data(), gw_hh.data(), gb_ih.data(), gb_hh.data()},
                               workspace.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string back = std::string(file) + ": lstm_backward_gpu (" + recurrent::recurrence_name(r) + ") ";
  const double tol = kBackwardTol;
  REQUIRE_NAMED_CLOSE(back + "dh0", host(dh0), gref.dh0, course::test::matrix("b", s.batch, "j", s.hidden), tol, tol);
  REQUIRE_NAMED_CLOSE(back + "dc0", host(dc0), gref.dc0, course::test::matrix("b", s.batch, "j", s.hidden), tol, tol);
  REQUIRE_NAMED_CLOSE(back + "dx", host(dx), gref.dx, ::course::Shape{}, tol, tol);
  REQUIRE_NAMED_CLOSE(back + "dw_hh", host(gw_hh), gref.w_hh, course::test::matrix("r", int(G), "j", s.hidden), tol,
                      tol);
  REQUIRE_NAMED_CLOSE(back + "dw_ih", host(gw_ih), gref.w_ih, course::test::matrix("r", int(G), "i", s.inputs), tol,
                      tol);
  REQUIRE_NAMED_CLOSE(back + "db_ih", host(gb_ih), gref.b, ::course::Shape{}, tol, tol);
  REQUIRE_NAMED_CLOSE(back + "db_hh", host(gb_hh), gref.b, ::course::Shape{}, tol, tol);
  // dx null (the inputs are data): the rest unchanged.
  gw_hh.poison(), dh0.poison();
  recurrent::lstm_backward_gpu(r, s, d.params(), d.x.data(), d.h0.data(), d.c0.data(), d.h.data(), d.c.data(),
                               d.gates.data(), dh.data(), dh_next.data(), dc_next.data(), nullptr, dh0.data(),
                               dc0.data(), {gw_ih.data(), gw_hh.data(), gb_ih.data(), gb_hh.data()},
                               workspace.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  REQUIRE_NAMED_CLOSE(back + "dw_hh (dx null)", host(gw_hh), gref.w_hh, ::course::Shape{}, tol, tol);
  REQUIRE_NAMED_CLOSE(back + "dh0 (dx null)", host(dh0), gref.dh0, ::course::Shape{}, tol, tol);
}

// The reference's backward pass against the finite differences of its loss: what the GPU steps are
// compared with is right.
void check_reference(const LstmShape& s, uint64_t seed) {
  const Inputs in = random_inputs(s, seed);
  const LossWeights w = random_loss(s, seed + 10);
  const Gradients g = reference_backward(s, in, w);
  const auto loss_of = [&](const Inputs& v) { return loss(s, v, w); };
  REQUIRE_NAMED_CLOSE("reference_backward dw_hh", g.w_hh, finite_differences(in, &Inputs::w_hh, loss_of),
                      ::course::Shape{}, 1e-7, 1e-7);
  REQUIRE_NAMED_CLOSE("reference_backward dx", g.dx, finite_differences(in, &Inputs::x, loss_of), ::course::Shape{},
                      1e-7, 1e-7);
  REQUIRE_NAMED_CLOSE("reference_backward dh0", g.dh0, finite_differences(in, &Inputs::h0, loss_of),
                      ::course::Shape{}, 1e-7, 1e-7);
  REQUIRE_NAMED_CLOSE("reference_backward dc0", g.dc0, finite_differences(in, &Inputs::c0, loss_of),
                      ::course::Shape{}, 1e-7, 1e-7);
  REQUIRE_NAMED_CLOSE("reference_backward db", g.b, finite_differences(in, &Inputs::b_ih, loss_of), ::course::Shape{},
                      1e-7, 1e-7);
}

// A plan made by hand (recurrent_gpu.hpp's PersistentPlan), for shapes plan_persistent never picks.
PersistentPlan hand_plan(const LstmShape& s, int units, int rows, int row_lanes, int slices, int chunk, bool ring) {
  PersistentPlan p;
  p.units = units, p.unit_groups = (s.hidden + units - 1) / units;
  p.rows = rows, p.batch_groups = (s.batch + rows - 1) / rows;
  p.slices = slices, p.threads_per_unit = row_lanes * slices, p.threads = (p.threads_per_unit * units + 31) / 32 * 32;
  p.chunk = chunk;
  p.ring = ring;
  const size_t vectors = size_t(p.unit_groups == 1 ? 2 : 1) * chunk * rows;
  const size_t ring_floats = size_t(recurrent::kRingSteps) * units * rows * recurrent::kRingSegments;
  p.shared_bytes = (size_t(4) * units * (s.hidden + 1) + vectors + (ring ? ring_floats : 0)) * sizeof(float);
  return p;
}

// The persistent recurrence alone with a given plan: the input projection made on the host, the
// gates, h and c against the reference, then da, dh0 and dc0.
void check_plan(const LstmShape& s, const PersistentPlan& p, uint64_t seed) {
  CAPTURE(s.batch, s.steps, s.inputs, s.hidden, p.units, p.unit_groups, p.rows, p.batch_groups, p.slices,
          p.row_lanes(), p.chunk, p.ring);
  COURSE_INPUT_SEED(seed);
  const Inputs in = random_inputs(s, seed);
  const LossWeights w = random_loss(s, seed + 10);
  const Outputs ref = reference_forward(s, in);
  const Gradients gref = reference_backward(s, in, w);
  const size_t G = s.gate_rows(), I = size_t(s.inputs), rows = size_t(s.steps) * s.batch;
  std::vector<float> projection(rows * G);
  for (size_t n = 0; n < rows; ++n)
    for (size_t r = 0; r < G; ++r) {
      double sum = in.b_ih[r];
      for (size_t k = 0; k < I; ++k) sum += in.w_ih[r * I + k] * in.x[n * I + k];
      projection[n * G + r] = float(sum);
    }
  Device d(s, in);
  d.gates.upload(projection);
  recurrent::recurrence_forward_persistent(s, p, d.w_hh.data(), d.b_hh.data(), d.h0.data(), d.c0.data(),
                                           d.gates.data(), d.h.data(), d.c.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const char* file = "exercises/recurrence_persistent.cu: recurrence_forward_persistent ";
  REQUIRE_NAMED_CLOSE(std::string(file) + "h", host(d.h), ref.h, state_shape(s), kForwardTol, kForwardTol);
  REQUIRE_NAMED_CLOSE(std::string(file) + "c", host(d.c), ref.c, state_shape(s), kForwardTol, kForwardTol);
  REQUIRE_NAMED_CLOSE(std::string(file) + "gates", host(d.gates), ref.gates, gate_shape(s), kForwardTol, kForwardTol);
  const size_t BH = size_t(s.batch) * s.hidden;
  DeviceBuffer<float> dh(as_float(w.dh)), dh_next(as_float(w.dh_next)), dc_next(as_float(w.dc_next));
  DeviceBuffer<float> da = poisoned(rows * G), dh0 = poisoned(BH), dc0 = poisoned(BH);
  recurrent::recurrence_backward_persistent(s, p, d.w_hh.data(), d.c0.data(), d.c.data(), d.gates.data(), dh.data(),
                                            dh_next.data(), dc_next.data(), da.data(), dh0.data(), dc0.data(),
                                            nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const char* back = "exercises/recurrence_persistent.cu: recurrence_backward_persistent ";
  REQUIRE_NAMED_CLOSE(std::string(back) + "da", host(da), gref.da, gate_shape(s), kBackwardTol, kBackwardTol);
  REQUIRE_NAMED_CLOSE(std::string(back) + "dh0", host(dh0), gref.dh0, ::course::Shape{}, kBackwardTol, kBackwardTol);
  REQUIRE_NAMED_CLOSE(std::string(back) + "dc0", host(dc0), gref.dc0, ::course::Shape{}, kBackwardTol, kBackwardTol);
}

// Bad shapes and null tensors: refused before anything is launched (the outputs stay NaN).
void check_refusals(Recurrence r) {
  const LstmShape s{2, 3, 1, 4};
  const Inputs in = random_inputs(s, 16900);
  Device d(s, in);
  DeviceBuffer<float> workspace = poisoned(recurrent::lstm_gpu_workspace_floats(s));
  const auto forward = [&](const LstmShape& shape, const float* x) {
    recurrent::lstm_forward_gpu(r, shape, d.params(), x, d.h0.data(), d.c0.data(), d.h.data(), d.c.data(),
                                d.gates.data(), workspace.data(), nullptr);
  };
  CHECK_THROWS_AS(forward({2, 0, 1, 4}, d.x.data()), course::Error);
  CHECK_THROWS_AS(forward(s, nullptr), course::Error);
  if (r == Recurrence::steps) {
    CHECK_THROWS_AS(recurrent::recurrence_forward_steps(s, d.w_hh.data(), nullptr, d.h0.data(), d.c0.data(),
                                                        d.gates.data(), d.h.data(), d.c.data(), workspace.data(),
                                                        nullptr),
                    course::Error);
    CHECK_THROWS_AS(recurrent::recurrence_backward_steps({0, 3, 1, 4}, d.w_hh.data(), d.c0.data(), d.c.data(),
                                                         d.gates.data(), d.h.data(), nullptr, nullptr, d.gates.data(),
                                                         d.h0.data(), d.c0.data(), workspace.data(), nullptr),
                    course::Error);
  } else {
    const PersistentPlan p = recurrent::plan_persistent(s);
    CHECK_THROWS_AS(recurrent::recurrence_forward_persistent(s, p, d.w_hh.data(), d.b_hh.data(), d.h0.data(),
                                                             nullptr, d.gates.data(), d.h.data(), d.c.data(), nullptr),
                    course::Error);
    CHECK_THROWS_AS(recurrent::recurrence_backward_persistent(s, p, d.w_hh.data(), d.c0.data(), d.c.data(),
                                                              d.gates.data(), nullptr, nullptr, nullptr,
                                                              d.gates.data(), d.h0.data(), d.c0.data(), nullptr),
                    course::Error);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  for (float v : d.h.to_host()) CHECK(std::isnan(v));
  for (float v : d.gates.to_host()) CHECK(std::isnan(v));
}

}  // namespace

TEST_CASE("the double reference's backpropagation through time equals finite differences", "[16.2]") {
  check_reference({2, 5, 3, 4}, 16500);
}

TEST_CASE("16.2 one step at a time: h, c, gates and every gradient against the LSTM in double", "[16.2]") {
  uint64_t seed = 16600;
  for (const LstmShape& s : kShapes)
    check_whole_pass(Recurrence::steps, "exercises/recurrence_steps.cu", s, seed += 20);
}

TEST_CASE("16.2 bad shapes and null tensors are refused before any launch", "[16.2]") {
  check_refusals(Recurrence::steps);
}

TEST_CASE("16.3 one launch with the plan for the shape: h, c, gates and every gradient against the LSTM in double",
          "[16.3]") {
  uint64_t seed = 16700;
  for (const LstmShape& s : kShapes)
    check_whole_pass(Recurrence::persistent, "exercises/recurrence_persistent.cu", s, seed += 20);
}

TEST_CASE("16.3 plans made by hand: units over several blocks, several rows a thread, short chunks", "[16.3]") {
  uint64_t seed = 16800;
  // 37 units in blocks of 8 (the last has 5): the blocks wait for each other between steps; each sum
  // in 4 slices, 2 lanes of rows; the inputs read as each step needs them (no ring).
  check_plan({6, 9, 2, 37}, hand_plan({6, 9, 2, 37}, 8, 6, 2, 4, 32, false), seed += 20);
  // 17 units in blocks of 4, 11 rows in groups of 7 (then 4), 3 lanes of rows (3 rows for some),
  // sums in 2 slices, chunks of 5 of H: every loop has a short last round; the inputs through the ring.
  check_plan({11, 7, 1, 17}, hand_plan({11, 7, 1, 17}, 4, 7, 3, 2, 5, true), seed += 20);
  // 20 units in blocks of 6 (the last has 2), 4 rows for every thread of 2 lanes, 2 slices.
  check_plan({9, 5, 1, 20}, hand_plan({9, 5, 1, 20}, 6, 8, 2, 2, 32, true), seed += 20);
  // One unit a block, one row a block, one thread a unit, no ring.
  check_plan({3, 5, 3, 6}, hand_plan({3, 5, 3, 6}, 1, 1, 1, 1, 4, false), seed += 20);
  // Every unit in one block (h and da kept in shared memory), 4 rows for some threads, two batch
  // groups, sums in 8 slices (more slices than some sums have terms), the ring.
  check_plan({13, 6, 2, 9}, hand_plan({13, 6, 2, 9}, 9, 10, 3, 8, 4 * 9, true), seed += 20);
  // Every unit in one block, 2 rows for some threads (3 lanes of 5 rows), 2 slices of 6 terms (12
  // units): few enough terms a thread for the weights to fit in registers; the ring.
  check_plan({10, 7, 1, 12}, hand_plan({10, 7, 1, 12}, 12, 5, 3, 2, 4 * 12, true), seed += 20);
  // Every unit in one block, a row a thread, the ring: the sums in 4 slices of 10 terms (40 units,
  // 5 batch groups, the last of one row), in 16 slices of 2 terms, in 32 slices (most without a term).
  check_plan({13, 5, 2, 40}, hand_plan({13, 5, 2, 40}, 40, 3, 3, 4, 4 * 40, true), seed += 20);
  check_plan({4, 6, 1, 20}, hand_plan({4, 6, 1, 20}, 20, 1, 1, 16, 4 * 20, true), seed += 20);
  check_plan({3, 5, 1, 9}, hand_plan({3, 5, 1, 9}, 9, 1, 1, 32, 4 * 9, true), seed += 20);
  // plan_persistent with units capped: its own split of 51 units.
  const LstmShape s{9, 12, 1, 51};
  check_plan(s, recurrent::plan_persistent(s, 7), seed += 20);
}

TEST_CASE("16.3 bad shapes and null tensors are refused before any launch", "[16.3]") {
  check_refusals(Recurrence::persistent);
}
