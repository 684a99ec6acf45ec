// Lesson 14, step 14.2 on the GPU: the smoothed loss kernel against the contract's formulas in
// double, at batches below one warp's worth of rows, odd ones and past the launcher's grid (1024
// blocks of 8 warps, a warp per row: 8192 rows), with classes below, at and above a warp; bad
// labels, bad arguments, the stream.
//
// Tolerances: speedrun_references.hpp's (CUDA's expf is within 2 ulps and logf within 1 of the
// exact value, '/' is rounded correctly under nvcc's default flags, and a warp's tree of sums rounds
// less than the CPU's running sum).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "guarded_buffers.hpp"
#include "speedrun.hpp"
#include "speedrun_references.hpp"

using namespace speedrun_test;
using course::DeviceBuffer;
using course::test::download_checked;
using course::test::guarded;
using course::test::poisoned;
using course::test::still_poisoned;

namespace {

const std::string kFile = "exercises/smoothing.cu";

struct LossOutputs {
  std::vector<float> row_loss, dlogits;
};

// One launch with both outputs poisoned and guarded; `poison` other than NaN where a row must be
// WRITTEN as NaN.
LossOutputs run_gpu(const std::vector<float>& logits, const std::vector<int>& labels, int batch, int classes,
                    float smoothing, cudaStream_t stream = nullptr, float poison = kNaN) {
  const size_t n = size_t(batch) * classes;
  DeviceBuffer<float> d_logits = guarded(logits), d_loss = poisoned(size_t(batch)), d_dz = poisoned(n);
  DeviceBuffer<int> d_labels = guarded(labels);
  if (!std::isnan(poison)) {
    d_loss.upload(filled(size_t(batch), poison));
    d_dz.upload(filled(n, poison));
  }
  CUDA_CHECK(cudaDeviceSynchronize());  // the copies done before a non-blocking stream starts
  speedrun::smoothed_cross_entropy_gpu(d_logits.data(), d_labels.data(), d_loss.data(), d_dz.data(), batch, classes,
                                       smoothing, stream);
  return {download_checked(d_loss, size_t(batch)), download_checked(d_dz, n)};
}

}  // namespace

TEST_CASE("smoothed_cross_entropy_gpu equals the formulas in double at every shape, past one grid", "[14.2]") {
  std::vector<LossShape> shapes = smoothing_shapes();
  shapes.push_back({3 * 8192 + 5, 10});  // each warp owns 3 or 4 rows
  shapes.push_back({8193, 33});
  uint64_t seed = 1461;
  for (float smoothing : {0.0f, 0.1f, 0.5f})
    for (const LossShape& s : shapes) {
      ++seed;
      CAPTURE(smoothing, s.batch, s.classes);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> logits = smoothing_logits(s.batch, s.classes, seed);
      const std::vector<int> labels = smoothing_labels(s.batch, s.classes, seed);
      const LossOutputs out = run_gpu(logits, labels, s.batch, s.classes, smoothing);
      require_smoothing_close(kFile, out.row_loss, out.dlogits,
                              smoothing_ref(logits, labels, s.batch, s.classes, smoothing), s.batch, s.classes);
    }
}

TEST_CASE("smoothed_cross_entropy_gpu: logits of 1e4 stay finite; a bad label gives NaN in its row only", "[14.2]") {
  const int batch = 9, classes = 40;  // more classes than a warp: each lane owns one or two
  std::vector<float> logits = course::test::random_vector(size_t(batch) * classes, 1471);
  for (size_t i = 0; i < logits.size(); ++i)
    if (i < size_t(3) * classes) logits[i] *= 1e4f;  // rows 0-2: huge logits
  const std::vector<int> labels = {0, 39, 5, -1, 40, 7, 2147483647, 12, 3};  // rows 3, 4, 6 are bad
  const LossOutputs out = run_gpu(logits, labels, batch, classes, 0.1f, nullptr, 12345.0f);
  const SmoothingRef ref = smoothing_ref(logits, labels, batch, classes, 0.1);
  for (int b = 0; b < batch; ++b) {
    CAPTURE(b, labels[b]);
    if (labels[b] < 0 || labels[b] >= classes) {
      INFO(kFile << ": row " << b << " has label " << labels[b] << ": its loss and every gradient must be NaN");
      REQUIRE(std::isnan(out.row_loss[b]));
      for (int k = 0; k < classes; ++k) REQUIRE(std::isnan(out.dlogits[size_t(b) * classes + k]));
      continue;
    }
    // Rows of 1e4: the tolerances of the CPU test's large logits; the others: the usual ones.
    const bool huge = b < 3;
    const double loss_atol = huge ? 1e-2 : smoothing_loss_atol(classes);
    const double grad_atol = huge ? 2e-3 / batch : smoothing_grad_atol(classes, batch);
    const std::vector<float> loss_b = {out.row_loss[b]};
    const std::vector<float> dz_b(out.dlogits.begin() + size_t(b) * classes,
                                  out.dlogits.begin() + size_t(b + 1) * classes);
    const std::vector<double> loss_ref_b = {ref.row_loss[b]};
    const std::vector<double> dz_ref_b(ref.dlogits.begin() + size_t(b) * classes,
                                       ref.dlogits.begin() + size_t(b + 1) * classes);
    REQUIRE_NAMED_CLOSE(kFile + ": a good row's loss", loss_b, loss_ref_b, ::course::Shape{}, loss_atol,
                        smoothing_loss_atol(classes));
    REQUIRE_NAMED_CLOSE(kFile + ": a good row's dlogits", dz_b, dz_ref_b, ::course::Shape{}, grad_atol,
                        huge ? 0.0 : smoothing_loss_atol(classes));
  }
}

TEST_CASE("smoothed_cross_entropy_gpu runs on its stream; batch 0 launches nothing; bad arguments are refused",
          "[14.2]") {
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  {
    const int batch = 1000, classes = 10;
    const std::vector<float> logits = smoothing_logits(batch, classes, 1481);
    const std::vector<int> labels = smoothing_labels(batch, classes, 1481);
    const LossOutputs out = run_gpu(logits, labels, batch, classes, 0.1f, stream);
    require_smoothing_close(kFile, out.row_loss, out.dlogits, smoothing_ref(logits, labels, batch, classes, 0.1),
                            batch, classes);
  }
  REQUIRE_NOTHROW(speedrun::smoothed_cross_entropy_gpu(nullptr, nullptr, nullptr, nullptr, 0, 10, 0.1f, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));

  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int batch = 3, classes = 10;
  DeviceBuffer<float> d_logits = guarded(smoothing_logits(batch, classes, 1482)), d_loss = poisoned(size_t(batch)),
                      d_dz = poisoned(size_t(batch) * classes);
  DeviceBuffer<int> d_labels = guarded(smoothing_labels(batch, classes, 1482));
  struct Bad {
    int batch, classes;
    float smoothing;
  };
  for (const Bad& b : {Bad{3, 10, -0.1f}, Bad{3, 10, 1.0f}, Bad{3, 10, nan}, Bad{3, 0, 0.1f}, Bad{-1, 10, 0.1f}}) {
    CAPTURE(b.batch, b.classes, b.smoothing);
    const std::string message = error_of([&] {
      speedrun::smoothed_cross_entropy_gpu(d_logits.data(), d_labels.data(), d_loss.data(), d_dz.data(), b.batch,
                                           b.classes, b.smoothing);
    });
    INFO("message: '" << message << "'");
    REQUIRE(message.find("smoothed_cross_entropy_gpu: ") == 0);
    REQUIRE(still_poisoned(d_loss, size_t(batch)));
    REQUIRE(still_poisoned(d_dz, size_t(batch) * classes));
  }
  CUDA_CHECK(cudaGetLastError());
}
