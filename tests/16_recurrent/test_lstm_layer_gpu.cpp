// Lesson 16, steps 16.2 and 16.3 inside the framework: your recurrence in the GPU's lstm<H> layer
// (lstm_gpu_layer.hpp), chained with the one-output head as the sine task's GPU network is, against
// the LSTM and the head written out in double (lstm_reference.hpp). Every buffer a layer writes starts
// as NaN (the layers' own outputs are poisoned before each pass).
#include <cmath>
#include <string>
#include <vector>

#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course/stream.hpp"
#include "course_test.hpp"
#include "framework/layer.hpp"
#include "framework/model.hpp"
#include "framework/parameter_store.hpp"
#include "lstm_gpu_layer.hpp"
#include "lstm_reference.hpp"

using namespace lstm_test;
using recurrent::Recurrence;

namespace {

std::vector<double> host(const float* device, size_t n) {
  std::vector<float> values(n);
  CUDA_CHECK(cudaMemcpy(values.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return course::test::to_double(values);
}

void poison(float* device, size_t n) { CUDA_CHECK(cudaMemset(device, 0xFF, n * sizeof(float))); }

// lstm<H>,dense1 on I values a step, the LSTM's weights those of `in`: forward and backward on the
// GPU with recurrence r, every output against the double reference.
void check_chain(Recurrence r, const LstmShape& s, uint64_t seed) {
  CAPTURE(s.batch, s.steps, s.inputs, s.hidden);
  COURSE_INPUT_SEED(seed);
  Inputs in = random_inputs(s, seed);
  std::fill(in.h0.begin(), in.h0.end(), 0.0), std::fill(in.c0.begin(), in.c0.end(), 0.0);  // a layer starts at 0
  framework::ModelSpec spec = framework::model_from_text("lstm" + std::to_string(s.hidden) + ",dense1");
  spec.in_channels = s.inputs, spec.height = 1, spec.width = 1, spec.classes = 1;
  std::vector<framework::Parameter> params = framework::init_parameters(spec, seed);
  const Vec* lstm[] = {&in.w_ih, &in.w_hh, &in.b_ih, &in.b_hh};
  for (size_t k = 0; k < 4; ++k) params[k].value.assign(lstm[k]->begin(), lstm[k]->end());
  framework::ParameterStore store(params);
  poison(store.grads(), store.total());
  const int rows = s.batch * s.steps;
  framework::DeviceLayerContext context;
  context.max_batch = rows;
  context.params = [&](const framework::LayerPlan& plan, size_t k) {
    return framework::ParamView{store.value(size_t(plan.weight) + k), store.grad(size_t(plan.weight) + k)};
  };
  auto layers = recurrent::sequence_gpu_layers(r)->make(framework::plan_layers(spec), context);
  course::Stream stream;
  for (const auto& layer : layers) layer->set_stream(stream.get());
  framework::set_steps(layers, s.steps);
  for (const auto& layer : layers) poison(layer->output(), size_t(rows) * layer->out_size());
  const course::DeviceBuffer<float> x(std::vector<float>(in.x.begin(), in.x.end()));
  const float* y = framework::chain_forward(layers, x.data(), rows);

  const Outputs ref = reference_forward(s, in);
  const course::Shape state{{"t", size_t(s.steps)}, {"b", size_t(s.batch)}, {"j", size_t(s.hidden)}};
  REQUIRE_NAMED_CLOSE("lstm layer on the GPU: h of every step", host(layers[0]->output(), ref.h.size()), ref.h, state,
                      1e-4, 1e-4);
  const std::vector<float>&w = params[4].value, &b = params[5].value;
  Vec head(static_cast<size_t>(rows));
  for (int row = 0; row < rows; ++row) {
    double sum = b[0];
    for (int j = 0; j < s.hidden; ++j) sum += w[size_t(j)] * ref.h[size_t(row * s.hidden + j)];
    head[size_t(row)] = sum;
  }
  REQUIRE_NAMED_CLOSE("the one-output head on every step", host(y, head.size()), head,
                      course::test::matrix("row", rows, "o", 1), 1e-4, 1e-4);

  const Vec dy = course::random_doubles(head.size(), seed + 1, -1.0f, 1.0f);
  LossWeights lw{Vec(ref.h.size(), 0.0), Vec(size_t(s.batch) * s.hidden, 0.0), Vec(size_t(s.batch) * s.hidden, 0.0)};
  Vec dw(size_t(s.hidden), 0.0);
  double db = 0;
  for (int row = 0; row < rows; ++row) {
    db += dy[size_t(row)];
    for (int j = 0; j < s.hidden; ++j) {
      lw.dh[size_t(row * s.hidden + j)] = w[size_t(j)] * dy[size_t(row)];
      dw[size_t(j)] += dy[size_t(row)] * ref.h[size_t(row * s.hidden + j)];
    }
  }
  const Gradients g = reference_backward(s, in, lw);
  for (const auto& layer : layers) poison(layer->input_grad(), size_t(rows) * layer->in_size());
  const course::DeviceBuffer<float> dy_device(std::vector<float>(dy.begin(), dy.end()));
  framework::chain_backward(layers, x.data(), dy_device.data(), rows);
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const std::vector<framework::Parameter> got = store.download();
  REQUIRE_NAMED_CLOSE("lstm layer on the GPU: dw_ih", course::test::to_double(got[0].grad), g.w_ih,
                      course::test::matrix("r", int(s.gate_rows()), "i", s.inputs), 2e-3, 2e-3);
  REQUIRE_NAMED_CLOSE("lstm layer on the GPU: dw_hh", course::test::to_double(got[1].grad), g.w_hh,
                      course::test::matrix("r", int(s.gate_rows()), "j", s.hidden), 2e-3, 2e-3);
  REQUIRE_NAMED_CLOSE("lstm layer on the GPU: db_ih", course::test::to_double(got[2].grad), g.b, ::course::Shape{},
                      2e-3, 2e-3);
  REQUIRE_NAMED_CLOSE("lstm layer on the GPU: db_hh", course::test::to_double(got[3].grad), g.b, ::course::Shape{},
                      2e-3, 2e-3);
  REQUIRE_NAMED_CLOSE("the head's weight gradient", course::test::to_double(got[4].grad), dw, ::course::Shape{}, 1e-3,
                      1e-3);
  REQUIRE_NAMED_CLOSE("the head's bias gradient", course::test::to_double(got[5].grad), Vec{db}, ::course::Shape{},
                      1e-3, 1e-3);
  // The head hands every step's h its gradient; the network's input (data) gets none.
  REQUIRE_NAMED_CLOSE("the head's input gradient", host(layers[1]->input_grad(), lw.dh.size()), lw.dh, state, 1e-5,
                      1e-5);
}

void check_refusals(Recurrence r) {
  framework::ModelSpec spec = framework::model_from_text("lstm4,dense1");
  spec.in_channels = 1, spec.height = 1, spec.width = 1, spec.classes = 1;
  framework::ParameterStore store(framework::init_parameters(spec, 1));
  framework::DeviceLayerContext context;
  context.max_batch = 12;
  context.params = [&](const framework::LayerPlan& plan, size_t k) {
    return framework::ParamView{store.value(size_t(plan.weight) + k), store.grad(size_t(plan.weight) + k)};
  };
  auto layers = recurrent::sequence_gpu_layers(r)->make(framework::plan_layers(spec), context);
  course::DeviceBuffer<float> x(12);
  x.zero();
  CHECK_THROWS_WITH(layers[0]->forward(x.data(), 12),
                    "lstm1 forward: set_steps first (it sizes the passes' workspace)");
  framework::set_steps(layers, 5);
  CHECK_THROWS_WITH(layers[0]->forward(x.data(), 12), "lstm1 forward: 12 rows are not whole sequences of 5 steps");
  CHECK_THROWS_WITH(framework::set_steps(layers, 13), "lstm1: sequences of 13 steps in passes of at most 12 rows");
  spec = framework::model_from_text("lstm4,dense2");
  spec.in_channels = 1, spec.height = 1, spec.width = 1, spec.classes = 2;
  framework::ParameterStore two(framework::init_parameters(spec, 1));
  context.params = [&](const framework::LayerPlan& plan, size_t k) {
    return framework::ParamView{two.value(size_t(plan.weight) + k), two.grad(size_t(plan.weight) + k)};
  };
  CHECK_THROWS_WITH(recurrent::sequence_gpu_layers(r)->make(framework::plan_layers(spec), context),
                    "fc1: the GPU's sequence network has a head of one output, not dense2");
}

// The sine task's shape (97 waves, here of 9 steps), odd ones, 51 units (a block's threads not a whole
// warp).
const std::vector<LstmShape> kShapes = {{3, 5, 2, 3}, {97, 9, 1, 5}, {5, 7, 1, 51}};

}  // namespace

TEST_CASE("16.2 inside the framework's GPU lstm layer: a chain with the one-output head, forward and backward",
          "[16.2]") {
  uint64_t seed = 16900;
  for (const LstmShape& s : kShapes) check_chain(Recurrence::steps, s, seed += 10);
  check_refusals(Recurrence::steps);
}

TEST_CASE("16.3 inside the framework's GPU lstm layer: a chain with the one-output head, forward and backward",
          "[16.3]") {
  uint64_t seed = 16950;
  for (const LstmShape& s : kShapes) check_chain(Recurrence::persistent, s, seed += 10);
  check_refusals(Recurrence::persistent);
}
