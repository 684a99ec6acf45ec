#pragma once
// Shared by lesson 08's tests: synthetic data sets, device buffers with a guard zone, and the
// "fragile decision" count the equivalence test (08-train_step) uses to pick inputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/idx.hpp"
#include "course/rng.hpp"
#include "course_test.hpp"
#include "host_training.hpp"

namespace mnist_gpu_test {

// n grey images of h x w with pixels uniform in [0, 1) (random, never all equal) and labels
// uniform in 0..classes-1: no MNIST needed.
inline course::Dataset synthetic_dataset(int n, int h, int w, uint64_t seed, int classes = 10) {
  course::Dataset d;
  d.images = course::HostTensor({n, 1, h, w});
  course::Rng rng(seed, 7);
  rng.fill_uniform(d.images.vec(), 0.0f, 1.0f);
  d.labels.resize(size_t(n));
  for (int& l : d.labels) l = rng.uniform_int(classes);
  return d;
}

constexpr size_t kGuard = 29;  // elements after the data that no kernel may touch

// A device buffer of n + kGuard elements, every byte 0xFF (NaN for float, -1 for int).
template <typename T>
course::DeviceBuffer<T> poisoned(size_t n) {
  course::DeviceBuffer<T> buf(n + kGuard);
  buf.poison();
  return buf;
}

// Waits for the GPU, checks that the guard zone still holds 0xFF bytes, returns the first n.
template <typename T>
std::vector<T> download_checked(const course::DeviceBuffer<T>& buf, size_t n) {
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> all = buf.to_host();
  REQUIRE(all.size() == n + kGuard);
  size_t touched = 0;
  for (size_t i = n; i < all.size(); ++i) {
    const T v = all[i];
    const unsigned char* b = reinterpret_cast<const unsigned char*>(&v);
    for (size_t k = 0; k < sizeof(T); ++k) touched += b[k] != 0xFF ? 1 : 0;
  }
  INFO("the kernel wrote into the " << kGuard << " elements after the last one (n = " << n << ")");
  REQUIRE(touched == 0);
  all.resize(n);
  return all;
}

// ---- fragile decisions -------------------------------------------------------------------------
// Two float implementations of the same network (the CPU's lesson 01 loops and the GPU's
// kernels) add their sums in different orders, so every activation differs by a few ulps. That
// is harmless everywhere except at the network's two discrete decisions:
//   * a max-pool window whose two largest values are within that noise of each other may pick a
//     different input, and the whole gradient of that output goes elsewhere;
//   * a ReLU input within the noise of 0 may pass the gradient on one side and not the other
//     (only where no max-pool follows: before a max-pool only the window's winner matters).
// Both are legitimate, but they make the two gradients differ by far more than rounding. So the
// equivalence test uses inputs where no decision is fragile at any of its steps, checked here.
//
// The noise is measured, not guessed: the forward pass runs in float (as the CPU trainer does)
// and in double (nearly exact), and a layer's margin is kNoiseFactor times the largest
// |float - double| over that layer's values. The CPU's float sums are sequential, the least
// accurate order; the GPU's blocked and fused sums are no worse, so |GPU - CPU| stays within
// about twice the CPU's own error, and a factor 4 leaves room.
constexpr double kNoiseFactor = 4.0;

// Counts the fragile decisions of one forward pass of `batch` examples (host pointers).
inline int fragile_decisions(const host_training::ModelSpec& spec, const std::vector<host_training::Parameter>& params,
                             const float* x, int batch) {
  using host_training::LayerKind;
  const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec);
  std::vector<std::vector<float>> f(plan.size() + 1);   // activations in float
  std::vector<std::vector<double>> d(plan.size() + 1);  // the same in double
  std::vector<double> margin(plan.size() + 1, 0.0);     // kNoiseFactor * max |f - d| per tensor
  f[0].assign(x, x + size_t(batch) * plan[0].in_size());
  d[0].assign(f[0].begin(), f[0].end());
  auto as_double = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  int fragile = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    const host_training::LayerPlan& p = plan[i];
    f[i + 1].assign(size_t(batch) * p.out_size(), 0.0f);
    d[i + 1].assign(f[i + 1].size(), 0.0);
    host_layers::ConvShape cs;
    cs.batch = batch, cs.in_channels = p.in_c, cs.height = p.in_h, cs.width = p.in_w, cs.out_channels = p.out_c;
    cs.kernel_h = cs.kernel_w = p.spec.kernel, cs.stride = p.spec.stride, cs.pad = p.spec.pad;
    host_layers::PoolShape ps;
    ps.batch = batch, ps.channels = p.in_c, ps.height = p.in_h, ps.width = p.in_w;
    ps.window = p.spec.window, ps.stride = p.spec.stride;
    const bool has_params = p.weight >= 0;
    const std::vector<float> empty;
    const std::vector<float>& wf = has_params ? params[size_t(p.weight)].value : empty;
    const std::vector<float>& bf = has_params ? params[size_t(p.weight) + 1].value : empty;
    const std::vector<double> wd = as_double(wf), bd = as_double(bf);
    switch (p.spec.kind) {
      case LayerKind::conv:
        host_layers::conv2d_forward(cs, f[i].data(), wf.data(), bf.data(), f[i + 1].data());
        host_layers::conv2d_forward(cs, d[i].data(), wd.data(), bd.data(), d[i + 1].data());
        break;
      case LayerKind::relu: {
        host_layers::relu_forward(f[i].data(), f[i + 1].data(), f[i].size());
        host_layers::relu_forward(d[i].data(), d[i + 1].data(), d[i].size());
        const bool pool_next = i + 1 < plan.size() && plan[i + 1].spec.kind == LayerKind::maxpool;
        if (!pool_next)
          for (float u : f[i]) fragile += std::fabs(u) <= margin[i] ? 1 : 0;
        break;
      }
      case LayerKind::maxpool: {
        host_layers::maxpool_forward(ps, f[i].data(), f[i + 1].data(), static_cast<int*>(nullptr));
        host_layers::maxpool_forward(ps, d[i].data(), d[i + 1].data(), static_cast<int*>(nullptr));
        // The values before the ReLU (when one precedes) tell whether a zero could turn positive.
        const bool relu_before = i > 0 && plan[i - 1].spec.kind == LayerKind::relu;
        const std::vector<float>& in = f[i];
        const std::vector<float>& pre = relu_before ? f[i - 1] : f[i];
        const double m = margin[i];
        for (int n = 0; n < batch; ++n)
          for (int c = 0; c < p.in_c; ++c)
            for (int oh = 0; oh < p.out_h; ++oh)
              for (int ow = 0; ow < p.out_w; ++ow) {
                std::vector<size_t> window;
                for (int a = 0; a < ps.window; ++a)
                  for (int b = 0; b < ps.window; ++b)
                    window.push_back(((size_t(n) * p.in_c + c) * p.in_h + oh * ps.stride + a) * p.in_w +
                                     ow * ps.stride + b);
                size_t best = window[0];
                for (size_t k : window)
                  if (in[k] > in[best]) best = k;
                bool unsafe = false;
                if (in[best] == 0.0f && relu_before) {  // all clipped to 0: none may be near 0 before the ReLU
                  for (size_t k : window) unsafe = unsafe || pre[k] > -m;
                } else {
                  for (size_t k : window) unsafe = unsafe || (k != best && double(in[k]) >= double(in[best]) - 2 * m);
                }
                fragile += unsafe ? 1 : 0;
              }
        break;
      }
      case LayerKind::dense:
        host_layers::dense_forward(f[i].data(), wf.data(), bf.data(), f[i + 1].data(), batch,
                                   static_cast<int>(p.in_size()), p.out_c);
        host_layers::dense_forward(d[i].data(), wd.data(), bd.data(), d[i + 1].data(), batch,
                                   static_cast<int>(p.in_size()), p.out_c);
        break;
      default:
        FAIL("fragile_decisions: layer '" << host_training::layer_text(p.spec) << "' is not one of lesson 02's");
    }
    double largest = 0;
    for (size_t k = 0; k < f[i + 1].size(); ++k) largest = std::max(largest, std::fabs(double(f[i + 1][k]) - d[i + 1][k]));
    margin[i + 1] = kNoiseFactor * largest;
  }
  return fragile;
}

}  // namespace mnist_gpu_test
