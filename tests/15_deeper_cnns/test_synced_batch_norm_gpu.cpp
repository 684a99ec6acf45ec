// Lesson 15's batch norm over several GPUs (given code, synced_batch_norm.hpp, on your 15.6): a batch
// split over the GPUs, each its share through a synchronized BatchNormLayer, must give what batch norm
// gives the whole batch, in double: the same y rows, statistics and running statistics on every GPU,
// the same dx rows; each GPU's dgamma and dbeta the batch's sums times its share, adding up to the
// batch's. Shares of different sizes; outputs poisoned. Built twice: over two GPUs (SKIPPED with
// fewer), and over one (the same layer with a communicator of one GPU: its kernels and collectives on
// any GPU machine, where the sanitizers can run them).
#include <mutex>
#include <vector>

#include "batch_norm_reference.hpp"
#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course_test.hpp"
#include "deeper_gpu_layers.hpp"
#include "deeper_host_network.hpp"  // kBatchNormEps, kBatchNormMomentum
#include "framework/model.hpp"
#include "framework/ranks.hpp"

using bn_test::Vec;
using deeper_cnns::BatchNormShape;

namespace {

// What rank r's layer gave, on the host.
struct RankResult {
  std::vector<float> y, dx, mean, inv_std, running_mean, running_var, dgamma, dbeta;
};

Vec rounded(const Vec& v) {  // each value as a float holds it
  Vec r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = double(float(v[i]));
  return r;
}

std::vector<float> download(const float* device, size_t n) {
  std::vector<float> host(n);
  CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

}  // namespace

#ifndef SYNCED_TEST_RANKS
#define SYNCED_TEST_RANKS 2
#endif

namespace {

void check_synchronized_over(const int ranks) {
  // {5, 2, 40, 30}: slices of one image, 3 on one GPU and 2 on the other (padded with entries of count 0).
  const BatchNormShape shapes[] = {{7, 3, 5, 4}, {128, 16, 28, 28}, {3, 2, 1, 3}, {5, 2, 40, 30}};
  uint64_t seed = 1570;
  for (const BatchNormShape& s : shapes) {
    CAPTURE(s.batch, s.channels, s.height, s.width);
    const int C = s.channels, plane = s.height * s.width;
    // The inputs as the GPUs see them (float), and the whole batch's passes on them in double.
    const Vec x = rounded(bn_test::channel_input(s, ++seed)), dy = rounded(course::random_doubles(s.size(), ++seed, -1.f, 1.f));
    const Vec gamma = rounded(course::random_doubles(static_cast<size_t>(C), ++seed, 0.5f, 1.5f));
    const Vec beta = rounded(course::random_doubles(static_cast<size_t>(C), ++seed, -0.5f, 0.5f));
    const bn_test::Reference want = bn_test::reference_train(s, x, gamma, beta, double(deeper_cnns::kBatchNormEps));
    const double M = double(s.per_channel());
    Vec want_db(static_cast<size_t>(C), 0.0), want_dg(static_cast<size_t>(C), 0.0), want_dx(s.size(), 0.0);
    for (int n = 0; n < s.batch; ++n)
      for (int c = 0; c < C; ++c)
        for (int p = 0; p < plane; ++p) {
          const size_t k = bn_test::index_of(s, n, c, p), ch = static_cast<size_t>(c);
          want_db[ch] += dy[k];
          want_dg[ch] += dy[k] * (x[k] - want.mean[ch]) * want.inv_std[ch];
        }
    for (int n = 0; n < s.batch; ++n)
      for (int c = 0; c < C; ++c)
        for (int p = 0; p < plane; ++p) {
          const size_t k = bn_test::index_of(s, n, c, p), ch = static_cast<size_t>(c);
          const double xhat = (x[k] - want.mean[ch]) * want.inv_std[ch];
          want_dx[k] = gamma[ch] * want.inv_std[ch] * (dy[k] - want_db[ch] / M - xhat * want_dg[ch] / M);
        }

    std::vector<RankResult> got(ranks);
    // Contiguous shares, the first GPUs' the larger (as lesson 13 cuts a batch).
    struct Share {
      int first, count;
    };
    std::vector<Share> shards;
    for (int r = 0, first = 0; r < ranks; ++r) {
      const int count = s.batch / ranks + (r < s.batch % ranks ? 1 : 0);
      shards.push_back({first, count});
      first += count;
    }
    const course::Shape channels{{"c", static_cast<size_t>(C)}};
    framework::run_ranks(framework::first_devices(ranks), [&](const framework::Rank& rank) {
      const Share& mine = shards[size_t(rank.rank)];
      const BatchNormShape part{mine.count, C, s.height, s.width};
      const size_t first = size_t(mine.first) * C * plane, values = part.size();
      framework::ModelSpec spec = framework::model_from_text("bn,dense2");
      spec.in_channels = C, spec.height = s.height, spec.width = s.width, spec.classes = 2;
      const std::vector<framework::LayerPlan> plan = framework::plan_layers(spec);
      course::DeviceBuffer<float> d_gamma(bn_test::as<float>(gamma)), d_beta(bn_test::as<float>(beta));
      course::DeviceBuffer<float> d_dgamma{static_cast<size_t>(C)}, d_dbeta{static_cast<size_t>(C)};
      d_dgamma.poison(), d_dbeta.poison();
      const std::vector<float> x_all = bn_test::as<float>(x), dy_all = bn_test::as<float>(dy);
      course::DeviceBuffer<float> d_x(std::vector<float>(x_all.begin() + long(first), x_all.begin() + long(first + values)));
      course::DeviceBuffer<float> d_dy(
          std::vector<float>(dy_all.begin() + long(first), dy_all.begin() + long(first + values)));
      // Each GPU's layer for its own share: their largest batches differ, and so may their slices.
      deeper_cnns::BatchNormLayer layer("bn1", plan[0], part.batch, mnist_gpu::ParamView{d_gamma.data(), d_dgamma.data()},
                                       mnist_gpu::ParamView{d_beta.data(), d_dbeta.data()});
      layer.synchronize_over(rank);
      CUDA_CHECK(cudaMemset(layer.output(), 0xff, values * sizeof(float)));  // NaN: every value must be written
      CUDA_CHECK(cudaMemset(layer.input_grad(), 0xff, values * sizeof(float)));
      layer.forward(d_x.data(), part.batch);
      layer.backward(d_x.data(), d_dy.data(), part.batch);
      CUDA_CHECK(cudaDeviceSynchronize());
      RankResult& out = got[size_t(rank.rank)];
      out.y = download(layer.output(), values);
      out.dx = download(layer.input_grad(), values);
      out.running_mean = download(layer.running_mean(), size_t(C));
      out.running_var = download(layer.running_var(), size_t(C));
      out.dgamma = d_dgamma.to_host(), out.dbeta = d_dbeta.to_host();
    });

    const double momentum = double(deeper_cnns::kBatchNormMomentum);
    Vec dg_sum(static_cast<size_t>(C), 0.0), db_sum(static_cast<size_t>(C), 0.0);
    for (int r = 0; r < ranks; ++r) {
      CAPTURE(r);
      const Share& mine = shards[size_t(r)];
      const size_t first = size_t(mine.first) * C * plane;
      const BatchNormShape part{mine.count, C, s.height, s.width};
      const Vec want_y(want.y.begin() + long(first), want.y.begin() + long(first + part.size()));
      const Vec want_dx_r(want_dx.begin() + long(first), want_dx.begin() + long(first + part.size()));
      REQUIRE_NAMED_CLOSE("y of this GPU's share", got[size_t(r)].y, want_y, bn_test::shape_of(part), 1e-4, 1e-4);
      REQUIRE_NAMED_CLOSE("dx of this GPU's share", got[size_t(r)].dx, want_dx_r, bn_test::shape_of(part), 1e-4, 1e-3);
      Vec run_mean(static_cast<size_t>(C), 0.0), run_var(static_cast<size_t>(C), 0.0);
      for (int c = 0; c < C; ++c) {
        run_mean[size_t(c)] = momentum * want.mean[size_t(c)];  // from 0
        run_var[size_t(c)] = (1 - momentum) + momentum * want.unbiased_var[size_t(c)];  // from 1
      }
      REQUIRE_NAMED_CLOSE("running mean (the batch's)", got[size_t(r)].running_mean, run_mean, channels, 1e-5, 1e-4);
      REQUIRE_NAMED_CLOSE("running variance (the batch's)", got[size_t(r)].running_var, run_var, channels, 1e-5,
                          1e-4);
      // This GPU's dgamma and dbeta: the batch's sums times its share of the batch.
      const double share = double(part.per_channel()) / M;
      Vec want_dg_r(want_dg), want_db_r(want_db);
      for (double& v : want_dg_r) v *= share;
      for (double& v : want_db_r) v *= share;
      REQUIRE_NAMED_CLOSE("dgamma (the batch's sums times this GPU's share)", got[size_t(r)].dgamma, want_dg_r,
                          channels, 5e-3, 1e-3);
      REQUIRE_NAMED_CLOSE("dbeta (the batch's sums times this GPU's share)", got[size_t(r)].dbeta, want_db_r, channels,
                          5e-3, 1e-3);
      for (int c = 0; c < C; ++c) dg_sum[size_t(c)] += got[size_t(r)].dgamma[size_t(c)], db_sum[size_t(c)] += got[size_t(r)].dbeta[size_t(c)];
    }
    REQUIRE_NAMED_CLOSE("the GPUs' dgamma added", bn_test::as<float>(dg_sum), want_dg, channels, 5e-3, 1e-3);
    REQUIRE_NAMED_CLOSE("the GPUs' dbeta added", bn_test::as<float>(db_sum), want_db, channels, 5e-3, 1e-3);
  }
}

}  // namespace

#if SYNCED_TEST_RANKS == 1
TEST_CASE("batch norm synchronized over one GPU gives its batch's batch norm", "[15-synced_batch_norm_one_gpu]") {
  check_synchronized_over(1);
}
#else
TEST_CASE("batch norm synchronized over two GPUs gives the whole batch's batch norm", "[15-synced_batch_norm]") {
  check_synchronized_over(2);
}
#endif
