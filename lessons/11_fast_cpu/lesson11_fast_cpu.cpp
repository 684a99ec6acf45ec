// Lesson 11 program: the CPU's matrix product, one rung at a time. Every rung is first checked
// against lesson 01 in double (course::validate), then timed with the host clock (median of
// repeats) at square sizes and at the GEMMs of the MNIST models; then the layers of lesson 02's
// small CNN, lesson 01's loops beside 11.4's; then a whole training step of that CNN, the batch
// whole or in 11.7's shards. No GPU needed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "course/check.hpp"
#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "course/timer.hpp"
#include "fast_cpu.hpp"
#include "fast_host_network.hpp"
#include "host_layers.hpp"
#include "host_training.hpp"

namespace {

using fast_cpu::Trans;
using host_layers::ConvShape;

// op(X)(r, c) of a row-major matrix stored rows x cols (no) or cols x rows (yes).
double at(const std::vector<float>& X, Trans t, int r, int c, int rows, int cols) {
  return t == Trans::no ? X[size_t(r) * cols + c] : X[size_t(c) * rows + r];
}

// One GEMM to check or time: C = op(A) * op(B).
struct Product {
  Trans ta, tb;
  int M, N, K;
};

struct Rung {
  std::string name;
  std::function<void(const Product&, const float*, const float*, float*)> run;
};

// Checks rows 0, step, 2*step, ... of rung's C against the same sums in double (lesson 01's dense
// loop: C = op(A) * (op(B)^T)^T, a dot product per element). Inputs in [-1, 1]: each element is a
// float sum of K products of size <= 1, so course::float_sum_atol_rtol(K) bounds its rounding.
void check(const Rung& rung, const Product& p, int rows_checked) {
  const auto A = course::random_floats(size_t(p.M) * p.K, 21), B = course::random_floats(size_t(p.K) * p.N, 22);
  std::vector<float> C(size_t(p.M) * p.N, std::numeric_limits<float>::quiet_NaN());
  rung.run(p, A.data(), B.data(), C.data());
  const int step = std::max(1, p.M / std::max(1, rows_checked));
  std::vector<double> a_rows, bt(size_t(p.N) * p.K), ref;
  std::vector<float> got;
  int rows = 0;
  for (int i = 0; i < p.M; i += step, ++rows) {
    for (int k = 0; k < p.K; ++k) a_rows.push_back(at(A, p.ta, i, k, p.M, p.K));
    got.insert(got.end(), C.begin() + size_t(i) * p.N, C.begin() + size_t(i + 1) * p.N);
  }
  for (int j = 0; j < p.N; ++j)
    for (int k = 0; k < p.K; ++k) bt[size_t(j) * p.K + k] = at(B, p.tb, k, j, p.K, p.N);
  ref.resize(size_t(rows) * p.N);
  const std::vector<double> zero(p.N, 0.0);
  host_layers::dense_forward(a_rows.data(), bt.data(), zero.data(), ref.data(), rows, p.K, p.N);
  char what[160];
  std::snprintf(what, sizeof what, "%s C (%dx%dx%d, A%s B%s)", rung.name.c_str(), p.M, p.N, p.K,
                p.ta == Trans::yes ? "^T" : "", p.tb == Trans::yes ? "^T" : "");
  course::validate(what, got, ref, course::float_sum_atol_rtol(p.K),
                   {{"row", size_t(rows)}, {"col", size_t(p.N)}});
}

struct Problem {
  std::string name;
  int M, N, K;
};

std::string cell(double gflops, double base) {
  char text[48];
  std::snprintf(text, sizeof text, "%.2f (%.1fx)", gflops, gflops / base);
  return text;
}

void gemm_table(const std::vector<Problem>& problems, const std::vector<Rung>& rungs, int repeats) {
  std::printf("\n== GEMM C = A * B (float), GFLOP/s and speed-up over lesson 01, median of %d\n", repeats);
  std::printf("lesson 01 loop: host_layers::dense_forward with B given transposed (a dot product per element of C)\n\n");
  std::printf("| problem | M x N x K |");
  for (const Rung& r : rungs) std::printf(" %s |", r.name.c_str());
  std::printf("\n|---|---|");
  for (size_t i = 0; i < rungs.size(); ++i) std::printf("---:|");
  std::printf("\n");
  for (const Problem& pr : problems) {
    const Product p{Trans::no, Trans::no, pr.M, pr.N, pr.K};
    const auto A = course::random_floats(size_t(p.M) * p.K, 1), B = course::random_floats(size_t(p.K) * p.N, 2);
    std::vector<float> C(size_t(p.M) * p.N);
    for (const Rung& r : rungs) check(r, p, 64);  // every rung right at this size before any timing
    const double flops = 2.0 * p.M * p.N * p.K;
    std::printf("| %s | %d x %d x %d |", pr.name.c_str(), p.M, p.N, p.K);
    double base = 0;
    for (const Rung& r : rungs) {
      const double ms = course::time_host([&] { r.run(p, A.data(), B.data(), C.data()); }, 1, repeats).median_ms;
      const double gflops = flops / (ms * 1e6);
      if (base == 0) base = gflops;
      std::printf(" %s |", cell(gflops, base).c_str());
      std::fflush(stdout);
    }
    std::printf("\n");
  }
}

// ---- the layers of lesson 02's small CNN ------------------------------------------------------
void layer_table(int batch, int threads, int repeats) {
  std::printf("\n== Lesson 02's small CNN at batch %d: lesson 01's layers against 11.4's (and 11.5's and 11.6's), ms, median of %d\n",
              batch, repeats);
  std::printf("each result validated against lesson 01 in double first; conv1's backward skips dx (input_grad=false)\n\n");
  std::printf("| layer | pass | lesson 01 | lesson 11, threads=1 | lesson 11, threads=%d | speed-up |\n", threads);
  std::printf("|---|---|---:|---:|---:|---:|\n");
  using course::random_floats;
  using course::to_double;
  auto row = [&](const char* layer, const char* pass, const std::function<void()>& ref,
                 const std::function<void(int)>& fast) {
    const double t01 = course::time_host(ref, 1, repeats).median_ms;
    const double t1 = course::time_host([&] { fast(1); }, 1, repeats).median_ms;
    const double tn = course::time_host([&] { fast(threads); }, 1, repeats).median_ms;
    std::printf("| %s | %s | %.3f | %.3f | %.3f | %.1fx |\n", layer, pass, t01, t1, tn, t01 / tn);
    std::fflush(stdout);
  };
  // conv1: 1 -> 10 channels, 3x3, pad 1, on 28x28.
  const ConvShape s{batch, 1, 28, 28, 10, 3, 3, 1, 1};
  {
    const auto x = random_floats(s.input_size(), 31), W = random_floats(s.weight_size(), 32),
               b = random_floats(s.out_channels, 33), dy = random_floats(s.output_size(), 34);
    std::vector<float> y(s.output_size()), dx(s.input_size()), dW(s.weight_size()), db(s.out_channels),
        work(fast_cpu::conv_workspace_floats(s));
    std::vector<double> yr(y.size()), dxr(dx.size()), dWr(dW.size()), dbr(db.size());
    const auto xd = to_double(x), Wd = to_double(W), bd = to_double(b), dyd = to_double(dy);
    host_layers::conv2d_forward(s, xd.data(), Wd.data(), bd.data(), yr.data());
    host_layers::conv2d_backward(s, xd.data(), Wd.data(), dyd.data(), dxr.data(), dWr.data(), dbr.data());
    fast_cpu::conv2d_forward(s, x.data(), W.data(), b.data(), y.data(), work.data(), threads);
    fast_cpu::conv2d_backward(s, x.data(), W.data(), dy.data(), nullptr, dW.data(), db.data(), work.data(), threads,
                              false);
    const double pixels = double(batch) * s.out_h() * s.out_w();
    course::validate("11.4 conv1 y", y, yr, course::float_sum_tolerance(10));
    course::validate("11.4 conv1 dW", dW, dWr, course::float_sum_tolerance(pixels));
    course::validate("11.4 conv1 dbias", db, dbr, course::float_sum_tolerance(pixels));
    row("conv1 3x3x10", "forward",
        [&] { host_layers::conv2d_forward(s, x.data(), W.data(), b.data(), y.data()); },
        [&](int t) { fast_cpu::conv2d_forward(s, x.data(), W.data(), b.data(), y.data(), work.data(), t); });
    row("conv1 3x3x10", "backward",
        [&] { host_layers::conv2d_backward(s, x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data()); },
        [&](int t) {
          fast_cpu::conv2d_backward(s, x.data(), W.data(), dy.data(), nullptr, dW.data(), db.data(), work.data(), t,
                                    false);
        });
    // 11.5 and 11.6: the same layer computed directly (what the network runs: 1*3*3 taps is a thin conv).
    fast_cpu::conv2d_direct_forward(s, x.data(), W.data(), b.data(), y.data(), threads);
    fast_cpu::conv2d_direct_backward(s, x.data(), W.data(), dy.data(), nullptr, dW.data(), db.data(), threads, false);
    course::validate("11.5 conv1 y", y, yr, course::float_sum_tolerance(10));
    course::validate("11.6 conv1 dW", dW, dWr, course::float_sum_tolerance(pixels));
    course::validate("11.6 conv1 dbias", db, dbr, course::float_sum_tolerance(pixels));
    row("conv1 3x3x10, 11.5 direct", "forward",
        [&] { host_layers::conv2d_forward(s, x.data(), W.data(), b.data(), y.data()); },
        [&](int t) { fast_cpu::conv2d_direct_forward(s, x.data(), W.data(), b.data(), y.data(), t); });
    row("conv1 3x3x10, 11.6 direct", "backward",
        [&] { host_layers::conv2d_backward(s, x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data()); },
        [&](int t) {
          fast_cpu::conv2d_direct_backward(s, x.data(), W.data(), dy.data(), nullptr, dW.data(), db.data(), t, false);
        });
  }
  struct Dense {
    const char* name;
    int in, out;
  };
  for (const Dense& d : {Dense{"fc1 1960->100", 1960, 100}, Dense{"fc2 100->10", 100, 10}}) {
    const auto x = random_floats(size_t(batch) * d.in, 41), W = random_floats(size_t(d.out) * d.in, 42),
               b = random_floats(d.out, 43), dy = random_floats(size_t(batch) * d.out, 44);
    std::vector<float> y(size_t(batch) * d.out), dx(x.size()), dW(W.size()), db(d.out);
    std::vector<double> yr(y.size()), dxr(dx.size()), dWr(dW.size()), dbr(db.size());
    const auto xd = to_double(x), Wd = to_double(W), bd = to_double(b), dyd = to_double(dy);
    host_layers::dense_forward(xd.data(), Wd.data(), bd.data(), yr.data(), batch, d.in, d.out);
    host_layers::dense_backward(xd.data(), Wd.data(), dyd.data(), dxr.data(), dWr.data(), dbr.data(), batch, d.in,
                                d.out);
    fast_cpu::dense_forward(x.data(), W.data(), b.data(), y.data(), batch, d.in, d.out, threads);
    fast_cpu::dense_backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data(), batch, d.in, d.out,
                             threads);
    const std::string name = std::string("11.4 ") + d.name;
    course::validate(name + " y", y, yr, course::float_sum_atol_rtol(d.in + 1));
    course::validate(name + " dx", dx, dxr, course::float_sum_atol_rtol(d.out));
    course::validate(name + " dW", dW, dWr, course::float_sum_atol_rtol(batch));
    course::validate(name + " dbias", db, dbr, course::float_sum_atol_rtol(batch));
    row(d.name, "forward", [&] { host_layers::dense_forward(x.data(), W.data(), b.data(), y.data(), batch, d.in, d.out); },
        [&](int t) { fast_cpu::dense_forward(x.data(), W.data(), b.data(), y.data(), batch, d.in, d.out, t); });
    row(d.name, "backward",
        [&] {
          host_layers::dense_backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data(), batch, d.in,
                                      d.out);
        },
        [&](int t) {
          fast_cpu::dense_backward(x.data(), W.data(), dy.data(), dx.data(), dW.data(), db.data(), batch, d.in, d.out,
                                   t);
        });
  }
}

// ---- 11.7: a whole training step --------------------------------------------------------------
// Forward, loss and backward of lesson 02's small CNN at `batch` on the network built on your
// layers: the batch whole (11.3 splits what products it can) and in 11.7's shards. Each way's loss
// and gradients are first checked against lesson 02's HostNetwork (lesson 01's loops).
void step_table(int batch, int threads, int repeats) {
  std::printf("\n== 11.7 a training step of lesson 02's small CNN at batch %d (forward, loss, backward), ms, "
              "median of %d\n", batch, repeats);
  std::printf("each way's loss and gradients validated against lesson 02's HostNetwork (lesson 01's layers) "
              "first\n\n");
  const host_training::ModelSpec spec = host_training::model_by_name("small");
  const std::vector<host_training::Parameter> init = host_training::init_parameters(spec, 11);
  const std::vector<float> x = course::random_floats(size_t(batch) * 784, 61, 0, 0.0f, 1.0f);
  std::vector<int> labels(static_cast<size_t>(batch));
  for (int b = 0; b < batch; ++b) labels[size_t(b)] = (b * 7 + 3) % spec.classes;
  host_training::HostNetwork reference(spec, init);
  const float ref_loss = reference.forward_backward(x.data(), labels.data(), batch);

  struct Way {
    const char* name;
    int threads;
    fast_cpu::BatchSplit split;
  };
  const std::vector<Way> ways = {{"the whole batch", 1, fast_cpu::BatchSplit::whole},
                                 {"the whole batch, 11.3 splits the products", threads, fast_cpu::BatchSplit::whole},
                                 {"11.7 shards of 16 examples, one thread each", threads, fast_cpu::BatchSplit::shards}};
  std::printf("| way | threads | ms | speed-up |\n|---|---:|---:|---:|\n");
  double base = 0;
  for (const Way& w : ways) {
    fast_cpu::FastHostNetwork net(spec, init, w.threads, w.split);
    const float loss = net.forward_backward(x.data(), labels.data(), batch);
    const std::string what = std::string(w.name) + ", threads=" + std::to_string(w.threads);
    course::validate(what + ": loss", std::vector<float>{loss}, std::vector<float>{ref_loss}, {1e-5, 1e-4});
    for (size_t t = 0; t < init.size(); ++t) {
      const std::vector<float>& want = reference.parameters()[t].grad;
      double largest = 0;
      for (float g : want) largest = std::max(largest, double(std::fabs(g)));
      course::validate(what + ": d" + init[t].name, net.parameters()[t].grad, want, {1e-5 * largest, 1e-3});
    }
    const double ms =
        course::time_host([&] { net.forward_backward(x.data(), labels.data(), batch); }, 3, repeats).median_ms;
    if (base == 0) base = ms;
    std::printf("| %s | %d | %.3f | %.2fx |\n", w.name, w.threads, ms, base / ms);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    const int cores = std::max(1, int(std::thread::hardware_concurrency()));
    course::ArgParser args("lesson11_fast_cpu",
                           "The CPU's GEMM, one idea per rung (11.1 blocking, 11.2 SIMD register tiles, 11.3 threads):\n"
                           "each rung validated against lesson 01 in double, then timed; then lesson 02's small CNN,\n"
                           "layer by layer (11.4, 11.5, 11.6) and a whole training step (11.7 shards).");
    args.add_flag("--quick", "256^3 and the small model's shapes only, 3 repeats (a fast smoke run)");
    args.add_int("--threads", cores, 1, 1024, "threads of the last column (default: all cores of this machine)");
    args.add_int("--repeats", 5, 1, 1000, "timed repeats per measurement (the median is reported)");
    if (!args.parse(argc, argv)) return 0;
    const bool quick = args.flag("--quick");
    const int repeats = quick && !args.given("--repeats") ? 3 : int(args.get_int("--repeats"));
    const int threads = int(args.get_int("--threads"));

    std::printf("Lesson 11: the CPU done right\n");
    std::printf("%s, %d hardware threads; g++ %d.%d -O3, %s\n", course::cpu_model_name().c_str(), cores, __GNUC__,
                __GNUC_MINOR__,
#ifdef COURSE_NATIVE_BUILD
                "COURSE_NATIVE=ON (-march=native)"
#else
                "COURSE_NATIVE=OFF (baseline x86-64: SSE2)"
#endif
    );

    auto with = [](auto gemm) {
      return [gemm](const Product& p, const float* A, const float* B, float* C) { gemm(p, A, B, C); };
    };
    char last[32];
    std::snprintf(last, sizeof last, "11.3 threads=%d", threads);
    std::vector<float> bt_scratch;
    const std::vector<Rung> rungs = {
        {"lesson 01 loop", with([&bt_scratch](const Product& p, const float* A, const float* B, float* C) {
           // Lesson 01's dense loop computes x * W^T: give it B transposed (outside the timing it
           // would not matter: the copy is N*K, the product N*M*K).
           bt_scratch.resize(size_t(p.N) * p.K);
           for (int k = 0; k < p.K; ++k)
             for (int j = 0; j < p.N; ++j) bt_scratch[size_t(j) * p.K + k] = B[size_t(k) * p.N + j];
           const std::vector<float> zero(p.N, 0.0f);
           host_layers::dense_forward(A, bt_scratch.data(), zero.data(), C, p.M, p.K, p.N);
         })},
        {"11.1 blocked", with([](const Product& p, const float* A, const float* B, float* C) {
           fast_cpu::gemm_blocked(p.ta, p.tb, p.M, p.N, p.K, A, B, C);
         })},
        {"11.2 SIMD", with([](const Product& p, const float* A, const float* B, float* C) {
           fast_cpu::gemm_simd(p.ta, p.tb, p.M, p.N, p.K, A, B, C);
         })},
        {"11.3 threads=1", with([](const Product& p, const float* A, const float* B, float* C) {
           fast_cpu::gemm_threads(p.ta, p.tb, p.M, p.N, p.K, A, B, C, 1);
         })},
        {last, with([threads](const Product& p, const float* A, const float* B, float* C) {
           fast_cpu::gemm_threads(p.ta, p.tb, p.M, p.N, p.K, A, B, C, threads);
         })},
    };

    // Odd shapes, every transpose: all of C against double, for every rung but lesson 01's.
    std::printf("\nvalidation against lesson 01 in double (odd shapes, A and B as stored or transposed):\n");
    const std::vector<Product> odd = {{Trans::no, Trans::no, 127, 129, 33},   {Trans::no, Trans::yes, 33, 17, 1000},
                                      {Trans::yes, Trans::no, 129, 3, 127},   {Trans::yes, Trans::yes, 17, 1000, 3},
                                      {Trans::no, Trans::no, 1, 1, 1},        {Trans::no, Trans::yes, 3, 513, 300}};
    for (size_t r = 1; r < rungs.size(); ++r) {
      for (const Product& p : odd) check(rungs[r], p, p.M);
      std::printf("  %-16s ok\n", rungs[r].name.c_str());
    }
    std::vector<Problem> problems = {{"square", 256, 256, 256}};
    if (!quick) {
      problems.push_back({"square", 512, 512, 512});
      problems.push_back({"square", 1024, 1024, 1024});
    }
    // Lesson 02's small CNN at batch 32: fc1 1960 -> 100, fc2 100 -> 10, conv1 (1 -> 10 channels,
    // 3x3, pad 1, 28x28) as W [10 x 9] * col [9 x 32*784]; model A's fc1 3136 -> 512 at batch 128.
    problems.push_back({"small CNN fc1, batch 32", 32, 100, 1960});
    problems.push_back({"small CNN fc2, batch 32", 32, 10, 100});
    problems.push_back({"small CNN conv1 as GEMM, batch 32", 10, 32 * 28 * 28, 9});
    if (!quick) problems.push_back({"model A fc1, batch 128", 128, 512, 3136});
    gemm_table(problems, rungs, repeats);
    layer_table(32, threads, repeats);
    step_table(32, threads, 5 * repeats);  // a step is short and noisy: more repeats
    std::printf("\nlesson 11 done\n");
    return 0;
  });
}
