// Lesson 16, step 16.1 inside the framework: your LSTM as the model language's lstm<H> layer
// (lstm_host_layer.hpp), chained with a dense head as every network of the course is chained.
// References: the LSTM written out in double (lstm_reference.hpp) and the head in double. Every
// gradient the layers write starts as NaN.
#include <cmath>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course_test.hpp"
#include "framework/layer.hpp"
#include "framework/model.hpp"
#include "lstm_host_layer.hpp"
#include "lstm_reference.hpp"

using namespace lstm_test;

namespace {

// A sequence network lstm<H>,dense<O> on I values a step, its LSTM's weights those of `in`, and its
// layers made by lesson 16's makers.
struct Chain {
  framework::ModelSpec spec;
  std::vector<framework::LayerPlan> plan;
  std::vector<framework::Parameter> params;
  framework::HostLayerMakers::Layers layers;

  Chain(const LstmShape& s, int outputs, const Inputs& in, uint64_t seed) {
    spec = framework::model_from_text("lstm" + std::to_string(s.hidden) + ",dense" + std::to_string(outputs));
    spec.in_channels = s.inputs, spec.height = 1, spec.width = 1, spec.classes = outputs;
    plan = framework::plan_layers(spec);
    params = framework::init_parameters(spec, seed);
    const Vec* lstm[] = {&in.w_ih, &in.w_hh, &in.b_ih, &in.b_hh};
    for (size_t k = 0; k < 4; ++k) params[k].value.assign(lstm[k]->begin(), lstm[k]->end());
    for (framework::Parameter& p : params) p.grad.assign(p.value.size(), float(kNaN));
    framework::HostLayerContext context;
    context.params = &params;
    layers = recurrent::sequence_host_layers().make(plan, context);
  }
  recurrent::LstmOnCpu& lstm() { return dynamic_cast<recurrent::LstmOnCpu&>(*layers.front()); }
};

std::vector<float> rows_of(const float* data, size_t first, size_t count) {
  return std::vector<float>(data + first, data + first + count);
}

}  // namespace

// Tolerances: float against double through 6 steps, as 16.1's own float checks (2e-5); the
// gradients 1e-3 relative (16.1's float backward pass).
TEST_CASE("lstm<H> as a framework layer: a chain with a dense head on every step, forward and backward, against "
          "the LSTM in double",
          "[16.1]") {
  const LstmShape s{3, 6, 2, 5};  // 3 sequences of 6 steps, 2 inputs a step, 5 units
  const int outputs = 3, rows = s.batch * s.steps;
  COURSE_INPUT_SEED(1610);
  Inputs in = random_inputs(s, 1610);
  std::fill(in.h0.begin(), in.h0.end(), 0.0), std::fill(in.c0.begin(), in.c0.end(), 0.0);  // a layer starts at 0
  Chain chain(s, outputs, in, 7);
  const std::vector<float> x(in.x.begin(), in.x.end());
  framework::set_steps(chain.layers, s.steps);
  const float* y = framework::chain_forward(chain.layers, x.data(), rows);

  const Outputs ref = reference_forward(s, in);
  const course::Shape state{{"t", size_t(s.steps)}, {"b", size_t(s.batch)}, {"j", size_t(s.hidden)}};
  REQUIRE_NAMED_CLOSE("lstm layer: h of every step (its output)",
                      course::test::to_double(rows_of(chain.layers[0]->output(), 0, ref.h.size())), ref.h, state, 2e-5,
                      2e-5);
  // The head reads each row (a step of a sequence) alone: y = W h + b.
  const std::vector<float>&W = chain.params[4].value, &bias = chain.params[5].value;
  Vec head(size_t(rows) * outputs);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < outputs; ++o) {
      double sum = bias[size_t(o)];
      for (int j = 0; j < s.hidden; ++j) sum += W[size_t(o * s.hidden + j)] * ref.h[size_t(r * s.hidden + j)];
      head[size_t(r * outputs + o)] = sum;
    }
  REQUIRE_NAMED_CLOSE("the chain's output: the head on every step", course::test::to_double(rows_of(y, 0, head.size())),
                      head, course::test::matrix("row", rows, "o", outputs), 2e-5, 2e-5);

  // Backward from a random dL/dy: the head sends W^T dy to every step's h.
  const Vec dy = course::random_doubles(head.size(), 1611, -1.0f, 1.0f);
  LossWeights w{Vec(ref.h.size(), 0.0), Vec(size_t(s.batch) * s.hidden, 0.0), Vec(size_t(s.batch) * s.hidden, 0.0)};
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < s.hidden; ++j)
      for (int o = 0; o < outputs; ++o)
        w.dh[size_t(r * s.hidden + j)] += W[size_t(o * s.hidden + j)] * dy[size_t(r * outputs + o)];
  const Gradients g = reference_backward(s, in, w);
  const std::vector<float> dy_f(dy.begin(), dy.end());
  const float* dx = framework::chain_backward(chain.layers, x.data(), dy_f.data(), rows);
  const auto& p = chain.params;
  REQUIRE_NAMED_CLOSE("lstm layer: dx", course::test::to_double(rows_of(dx, 0, g.dx.size())), g.dx,
                      (course::Shape{{"t", size_t(s.steps)}, {"b", size_t(s.batch)}, {"i", size_t(s.inputs)}}), 1e-3,
                      1e-3);
  REQUIRE_NAMED_CLOSE("lstm layer: dw_ih", course::test::to_double(p[0].grad), g.w_ih,
                      course::test::matrix("r", int(s.gate_rows()), "i", s.inputs), 1e-3, 1e-3);
  REQUIRE_NAMED_CLOSE("lstm layer: dw_hh", course::test::to_double(p[1].grad), g.w_hh,
                      course::test::matrix("r", int(s.gate_rows()), "j", s.hidden), 1e-3, 1e-3);
  REQUIRE_NAMED_CLOSE("lstm layer: db_ih", course::test::to_double(p[2].grad), g.b, ::course::Shape{}, 1e-3, 1e-3);
  REQUIRE_NAMED_CLOSE("lstm layer: db_hh", course::test::to_double(p[3].grad), g.b, ::course::Shape{}, 1e-3, 1e-3);
  for (size_t k = 4; k < 6; ++k)
    for (float v : p[k].grad) REQUIRE(std::isfinite(v));  // the head's gradients written too
}

TEST_CASE("lstm<H> as a framework layer: a carried state continues a sequence; rows that are not whole steps, or "
          "another count of sequences, are refused",
          "[16.1]") {
  const LstmShape s{2, 7, 1, 4};
  COURSE_INPUT_SEED(1620);
  Inputs in = random_inputs(s, 1620);
  std::fill(in.h0.begin(), in.h0.end(), 0.0), std::fill(in.c0.begin(), in.c0.end(), 0.0);
  const std::vector<float> x(in.x.begin(), in.x.end());
  const size_t BH = size_t(s.batch) * s.hidden;

  Chain whole(s, 1, in, 3), pieces(s, 1, in, 3);
  framework::set_steps(whole.layers, s.steps);
  framework::chain_forward(whole.layers, x.data(), s.batch * s.steps);
  const std::vector<float> all = rows_of(whole.layers[0]->output(), 0, BH * s.steps);

  // Steps 0-2, then 3-6 from where they ended: the same h as the whole sequence at once.
  pieces.lstm().carry_state(true);
  framework::set_steps(pieces.layers, 3);
  framework::chain_forward(pieces.layers, x.data(), s.batch * 3);
  REQUIRE_ALL_CLOSE(rows_of(pieces.layers[0]->output(), 0, 3 * BH), rows_of(all.data(), 0, 3 * BH), 1e-6, 1e-6);
  framework::set_steps(pieces.layers, 4);
  framework::chain_forward(pieces.layers, x.data() + 3 * s.batch, s.batch * 4);
  REQUIRE_ALL_CLOSE(rows_of(pieces.layers[0]->output(), 0, 4 * BH), rows_of(all.data(), 3 * BH, 4 * BH), 1e-6,
                    1e-6);
  // Without the carry, the same four steps start from zero: another h.
  pieces.lstm().carry_state(false);
  framework::chain_forward(pieces.layers, x.data() + 3 * s.batch, s.batch * 4);
  CHECK(rows_of(pieces.layers[0]->output(), 0, BH) != rows_of(all.data(), 3 * BH, BH));

  // 14 rows are not whole sequences of 4 steps; a carried state of 2 sequences cannot start 1.
  CHECK_THROWS_WITH(framework::chain_forward(pieces.layers, x.data(), 14),
                    "lstm4: 14 rows are not whole sequences of 4 steps");
  pieces.lstm().carry_state(true);
  framework::chain_forward(pieces.layers, x.data(), 8);  // 2 sequences of 4 steps
  framework::set_steps(pieces.layers, 1);
  CHECK_THROWS_WITH(framework::chain_forward(pieces.layers, x.data(), 1),
                    "lstm4: a carried state of 2 sequences cannot start 1");
  CHECK_THROWS_WITH(framework::set_steps(pieces.layers, 0), "lstm4: a sequence needs at least one step, got 0");
}
