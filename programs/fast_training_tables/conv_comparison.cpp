// Lesson 09's tables (a program above the lessons): the convolution table of the program
// (conv_comparison.hpp).
#include "conv_comparison.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "conv_direct.hpp"
#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/timer.hpp"
#include "im2col.hpp"
#ifdef COURSE_HAVE_CUDNN
#include "cudnn_conv.hpp"
#endif

namespace lesson09 {

namespace {

using course::DeviceBuffer;
using host_layers::ConvShape;

// Every output is a float sum of `terms` products of values in [-1, 1]: course::float_sum_atol
// (course/check.hpp says why) against double; twice the terms against another float result
// (both round), and 1e-4 relative for cuDNN's algorithms that round differently (FFT, Winograd).
course::Tolerance against_double(double terms) { return {course::float_sum_atol(terms), 1e-5}; }
course::Tolerance against_float(double terms) { return {course::float_sum_atol(2 * terms), 1e-4}; }

double k_terms(const ConvShape& s) { return double(s.in_channels) * s.kernel_h * s.kernel_w + 1; }
double dx_terms(const ConvShape& s) { return double(s.out_channels) * s.kernel_h * s.kernel_w; }
double pixel_terms(const ConvShape& s) { return double(s.batch) * s.out_h() * s.out_w(); }

struct Tensors {
  DeviceBuffer<float> x, W, b, dy, y, dx, dW, db;
  explicit Tensors(const ConvShape& s)
      : x(course::random_floats(s.input_size(), 91)), W(course::random_floats(s.weight_size(), 92)),
        b(course::random_floats(s.out_channels, 93)), dy(course::random_floats(s.output_size(), 94)),
        y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(s.out_channels) {}
  void poison() {
    for (auto* buf : {&y, &dx, &dW, &db}) buf->poison();
  }
};

// The implicit GEMMs on two images against lesson 01 in double.
void validate_against_host(const ConvShape& full) {
  ConvShape s = full;
  s.batch = std::min(full.batch, 2);
  const auto x = course::random_floats(s.input_size(), 11), W = course::random_floats(s.weight_size(), 12);
  const auto b = course::random_floats(s.out_channels, 13), dy = course::random_floats(s.output_size(), 14);
  const auto xd = course::to_double(x), Wd = course::to_double(W), bd = course::to_double(b),
             dyd = course::to_double(dy);
  std::vector<double> y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(s.out_channels);
  host_layers::conv2d_forward(s, xd.data(), Wd.data(), bd.data(), y.data());
  host_layers::conv2d_backward(s, xd.data(), Wd.data(), dyd.data(), dx.data(), dW.data(), db.data());

  DeviceBuffer<float> d_x(x), d_W(W), d_b(b), d_dy(dy), d_y(s.output_size()), d_dx(s.input_size()),
      d_dW(s.weight_size()), d_db(s.out_channels), work(fast_training::conv_implicit_workspace_floats(s));
  for (auto* buf : {&d_y, &d_dx, &d_dW, &d_db, &work}) buf->poison();
  fast_training::conv2d_forward_implicit(s, d_x.data(), d_W.data(), d_b.data(), d_y.data());
  fast_training::conv2d_backward_data_implicit(s, d_W.data(), d_dy.data(), d_dx.data(), work.data());
  fast_training::conv2d_backward_weight_implicit(s, d_x.data(), d_dy.data(), d_dW.data(), d_db.data(), work.data());
  course::validate("implicit y", d_y.to_host(), y, against_double(k_terms(s)));
  course::validate("implicit dx", d_dx.to_host(), dx, against_double(dx_terms(s)));
  course::validate("implicit dW", d_dW.to_host(), dW, against_double(pixel_terms(s)));
  course::validate("implicit dbias", d_db.to_host(), db, against_double(pixel_terms(s)));
}

// One way of running the three passes. A pass it does not have separately is empty; `backward`
// runs both backward passes (dx, then dW and dbias).
struct Algorithm {
  std::string name;
  std::function<void(Tensors&)> forward, backward_data, backward_weight, backward;
  bool dropped[3] = {false, false, false};  // a cuDNN pass whose every algorithm failed the check
};

std::string cell(double ms, double flops) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3f (%.1f)", ms, flops / (ms * 1e-3) / 1e12);
  return text;
}

}  // namespace

void compare_conv(const NamedConv& layer, const fast_training::Ceilings& ceilings, int warmup, int repeats) {
  const ConvShape& s = layer.s;
  std::printf("\n%s: N=%d %d->%d channels %dx%d, kernel %dx%d, stride %d, pad %d\n", layer.name.c_str(), s.batch,
              s.in_channels, s.out_channels, s.height, s.width, s.kernel_h, s.kernel_w, s.stride, s.pad);
  validate_against_host(s);

  Tensors t(s);
  DeviceBuffer<float> implicit_work(fast_training::conv_implicit_workspace_floats(s));
  DeviceBuffer<float> gemm_work(im2col::conv_gemm_workspace_floats(s));
  DeviceBuffer<float> direct_work(conv_direct::conv2d_backward_weight_workspace(s));
  float *iw = implicit_work.data(), *gw = gemm_work.data(), *dw = direct_work.data();

  std::vector<Algorithm> algos;
  algos.push_back(
      {"implicit GEMM",
       [s](Tensors& t) { fast_training::conv2d_forward_implicit(s, t.x.data(), t.W.data(), t.b.data(), t.y.data()); },
       [s, iw](Tensors& t) { fast_training::conv2d_backward_data_implicit(s, t.W.data(), t.dy.data(), t.dx.data(), iw); },
       [s, iw](Tensors& t) {
         fast_training::conv2d_backward_weight_implicit(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data(), iw);
       },
       nullptr});
  // 09.10 and 09.11 where they run: the forward includes writing the weights in the kernel's order
  // (once per weight update in a trainer), dx reads them.
  const bool tiled = fast_training::conv_tiled_problem(s).empty();
  DeviceBuffer<float> tiled_weights(tiled ? fast_training::conv_tiled_weights_size(s) : 1);
  DeviceBuffer<float> tiled_work(tiled ? fast_training::conv_tiled_dw_workspace_floats(s) : 1);
  float *tw = tiled_weights.data(), *tdw = tiled_work.data();
  if (tiled)
    algos.push_back(
        {"tiled (09.10, 09.11)",
         [s, tw](Tensors& t) {
           fast_training::conv_tiled_weights(s, t.W.data(), tw);
           fast_training::conv2d_forward_tiled(s, t.x.data(), tw, t.b.data(), t.y.data());
         },
         [s, tw](Tensors& t) { fast_training::conv2d_backward_data_tiled(s, tw, t.dy.data(), t.dx.data()); },
         [s, tdw](Tensors& t) {
           fast_training::conv2d_backward_weight_tiled(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data(), tdw);
         },
         nullptr});
  algos.push_back({"im2col + GEMM",
                   [s, gw](Tensors& t) { im2col::conv2d_forward_gemm(s, t.x.data(), t.W.data(), t.b.data(), t.y.data(), gw); },
                   nullptr, nullptr, [s, gw](Tensors& t) {
                     im2col::conv2d_backward_gemm(s, t.x.data(), t.W.data(), t.dy.data(), t.dx.data(), t.dW.data(),
                                                  t.db.data(), gw);
                   }});
  algos.push_back(
      {"direct",
       [s](Tensors& t) { conv_direct::conv2d_forward(s, t.x.data(), t.W.data(), t.b.data(), t.y.data()); },
       [s](Tensors& t) { conv_direct::conv2d_backward_input(s, t.W.data(), t.dy.data(), t.dx.data()); },
       [s, dw](Tensors& t) {
         conv_direct::conv2d_backward_weight(s, t.x.data(), t.dy.data(), t.dW.data(), t.db.data(), dw);
       },
       nullptr});
  std::string cudnn_note;
#ifdef COURSE_HAVE_CUDNN
  std::shared_ptr<im2col_bench::CudnnConv> conv;
  try {
    conv = std::make_shared<im2col_bench::CudnnConv>(s);
    algos.push_back({"cuDNN", [conv](Tensors& t) { conv->forward(t.x.data(), t.W.data(), t.b.data(), t.y.data()); },
                     [conv](Tensors& t) { conv->backward_data(t.W.data(), t.dy.data(), t.dx.data()); },
                     [conv](Tensors& t) { conv->backward_weight(t.x.data(), t.dy.data(), t.dW.data(), t.db.data()); },
                     nullptr});
  } catch (const course::Error& e) {
    cudnn_note = std::string("not available (") + e.what() + ")";
  }
#else
  cudnn_note = "not available (not found when CMake configured)";
#endif

  // Every algorithm's results against im2col + GEMM (lesson 07) on the whole batch, pass by pass.
  const Algorithm& reference = *std::find_if(algos.begin(), algos.end(),
                                             [](const Algorithm& a) { return a.name == "im2col + GEMM"; });
  t.poison();
  reference.forward(t);
  reference.backward(t);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> y_ref = t.y.to_host(), dx_ref = t.dx.to_host(), dW_ref = t.dW.to_host(),
                           db_ref = t.db.to_host();
  for (Algorithm& a : algos) {
    if (&a == &reference) continue;
    for (int pass = 0; pass < 3; ++pass)
      for (;;) {
        t.poison();
        const auto& run = pass == 0 ? a.forward : pass == 1 ? a.backward_data : a.backward_weight;
        run(t);
        CUDA_CHECK(cudaDeviceSynchronize());
        try {
          if (pass == 0) course::validate(a.name + " y", t.y.to_host(), y_ref, against_float(k_terms(s)));
          if (pass == 1) course::validate(a.name + " dx", t.dx.to_host(), dx_ref, against_float(dx_terms(s)));
          if (pass == 2) {
            course::validate(a.name + " dW", t.dW.to_host(), dW_ref, against_float(pixel_terms(s)));
            course::validate(a.name + " dbias", t.db.to_host(), db_ref, against_float(pixel_terms(s)));
          }
          break;
        } catch (const course::Error& e) {
          if (a.name != "cuDNN") throw;  // the course's kernels must agree; cuDNN is only a yardstick
#ifdef COURSE_HAVE_CUDNN
          using CudnnPass = im2col_bench::CudnnConv::Pass;
          const CudnnPass which = pass == 0 ? CudnnPass::forward : pass == 1 ? CudnnPass::backward_data
                                                                             : CudnnPass::backward_weight;
          std::printf("  cuDNN's algorithm fails the check (%s)\n", e.what());
          if (conv->use_next_algorithm(which)) {
            std::printf("    trying cuDNN's next-fastest algorithm for that pass\n");
            continue;
          }
#endif
          std::printf("    no cuDNN algorithm passes: that pass is left out\n");
          a.dropped[pass] = true;
          break;
        }
      }
  }
#ifdef COURSE_HAVE_CUDNN
  if (conv) cudnn_note = conv->algorithms();
#endif
  std::printf("  validated: implicit GEMM against lesson 01 (double, %d image(s)); every column against "
              "im2col + GEMM\n  cuDNN: %s\n",
              std::min(s.batch, 2), cudnn_note.c_str());

  // ms (TFLOP/s) per pass; '-' where an algorithm has no such separate pass.
  const double flops = 2.0 * s.batch * s.out_channels * s.out_h() * s.out_w() * s.in_channels * s.kernel_h * s.kernel_w;
  const fast_training::PassCost fwd_cost{flops, 4.0 * (s.input_size() + s.weight_size() + s.out_channels + s.output_size())};
  const fast_training::PassCost data_cost{flops, 4.0 * (s.weight_size() + s.output_size() + s.input_size())};
  const fast_training::PassCost weight_cost{flops, 4.0 * (s.input_size() + s.output_size() + s.weight_size() + s.out_channels)};
  const fast_training::PassCost both_cost{2 * flops, data_cost.bytes + weight_cost.bytes - 4.0 * s.output_size()};
  struct PassRow {
    const char* name;
    fast_training::PassCost cost;
    std::function<void(Tensors&)> Algorithm::*member;
  };
  const PassRow passes[] = {{"forward", fwd_cost, &Algorithm::forward},
                            {"backward dx", data_cost, &Algorithm::backward_data},
                            {"backward dW + dbias", weight_cost, &Algorithm::backward_weight},
                            {"backward, both", both_cost, &Algorithm::backward}};
  int row = 0;
  std::printf("\n| %s | pass | least time (us) |", layer.name.c_str());
  for (const Algorithm& a : algos) std::printf(" %s |", a.name.c_str());
  std::printf("\n|---|---|---:|");
  for (size_t i = 0; i < algos.size(); ++i) std::printf("---:|");
  std::printf("\n");
  for (const PassRow& p : passes) {
    std::printf("| %s | %s | %.1f |", layer.name.c_str(), p.name, fast_training::roofline_seconds(p.cost, ceilings) * 1e6);
    const int pass = row++;
    for (const Algorithm& a : algos) {
      const bool dropped = pass < 3 ? a.dropped[pass] : a.dropped[1] || a.dropped[2];
      std::function<void()> run;
      if (p.member == &Algorithm::backward && !a.backward)
        run = [&] { a.backward_data(t), a.backward_weight(t); };
      else if (a.*(p.member))
        run = [&] { (a.*(p.member))(t); };
      if (!run || dropped) {
        std::printf(" - |");
        continue;
      }
      const double ms = course::time_gpu(run, warmup, repeats).median_ms;
      std::printf(" %s |", cell(ms, p.cost.flops).c_str());
    }
    std::printf("\n");
  }
}

}  // namespace lesson09
