// Lesson 14, step 14.2 on the CPU: smoothed_cross_entropy against the contract's formulas in
// double and against finite differences of its own loss, smoothing 0 against lesson 01's
// softmax-cross-entropy, large logits, bad labels, bad arguments.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "host_layers.hpp"
#include "speedrun.hpp"
#include "speedrun_references.hpp"

using namespace speedrun_test;
using course::test::nan_vector;

namespace {

const char* const kFile = "exercises/smoothing.cpp";

struct LossOutputs {
  std::vector<float> row_loss, dlogits;
};

// One call with both outputs poisoned (NaN, or `poison` where NaN is what a row must get).
LossOutputs run(const std::vector<float>& logits, const std::vector<int>& labels, int batch, int classes,
                float smoothing, float poison = kNaN) {
  LossOutputs out{filled(size_t(batch), poison), filled(size_t(batch) * classes, poison)};
  speedrun::smoothed_cross_entropy(logits.data(), labels.data(), out.row_loss.data(), out.dlogits.data(), batch,
                                   classes, smoothing);
  return out;
}

}  // namespace

TEST_CASE("smoothed_cross_entropy: one row worked out by hand", "[14.2]") {
  // Two classes, logits (0, ln 3): p = (1/4, 3/4). Label 1, smoothing 0.5: the target is
  // (0.25, 0.75) = p, so the gradient is 0 and the loss is the entropy of p:
  // -(1/4) ln(1/4) - (3/4) ln(3/4) = ln 4 - (3/4) ln 3.
  const std::vector<float> logits = {0.0f, float(std::log(3.0))};
  const LossOutputs out = run(logits, {1}, 1, 2, 0.5f);
  const double tol = 1e-6;  // a few ulps of values near 1
  REQUIRE_NAMED_CLOSE("row_loss (hand case)", out.row_loss, (std::vector<double>{std::log(4.0) - 0.75 * std::log(3.0)}),
                      ::course::Shape{}, tol, 0);
  REQUIRE_NAMED_CLOSE("dlogits (hand case)", out.dlogits, (std::vector<double>{0.0, 0.0}), ::course::Shape{}, tol, 0);
  // The same row with label 0: the target is (0.75, 0.25); gradient p - target = (-0.5, 0.5),
  // over batch 1; loss -(3/4) ln(1/4) - (1/4) ln(3/4) = ln 4 - (1/4) ln 3.
  const LossOutputs other = run(logits, {0}, 1, 2, 0.5f);
  REQUIRE_NAMED_CLOSE("row_loss (label 0)", other.row_loss,
                      (std::vector<double>{std::log(4.0) - 0.25 * std::log(3.0)}), ::course::Shape{}, tol, 0);
  REQUIRE_NAMED_CLOSE("dlogits (label 0)", other.dlogits, (std::vector<double>{-0.5, 0.5}), ::course::Shape{}, tol, 0);
}

TEST_CASE("smoothed_cross_entropy equals the formulas in double, every row and class written", "[14.2]") {
  uint64_t seed = 1401;
  for (float smoothing : {0.1f, 0.5f, 0.9f})
    for (const LossShape& s : smoothing_shapes()) {
      ++seed;
      CAPTURE(smoothing, s.batch, s.classes);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> logits = smoothing_logits(s.batch, s.classes, seed);
      const std::vector<int> labels = smoothing_labels(s.batch, s.classes, seed);
      const LossOutputs out = run(logits, labels, s.batch, s.classes, smoothing);
      require_smoothing_close(kFile, out.row_loss, out.dlogits,
                              smoothing_ref(logits, labels, s.batch, s.classes, smoothing), s.batch, s.classes);
    }
}

TEST_CASE("smoothed_cross_entropy: dlogits matches finite differences of the mean loss in double", "[14.2]") {
  // The contract's loss in double, differenced at each logit: the gradient of the mean over the batch.
  // Central differences with eps 1e-6 are within ~1e-9 of the derivative; the float gradient within
  // ~1e-7: atol 2e-6 and rtol 1e-4 are far above both and far below smoothing / classes / batch.
  const LossShape shapes[] = {{1, 4}, {3, 5}, {4, 10}, {2, 37}};
  uint64_t seed = 1421;
  for (float smoothing : {0.1f, 0.3f})
    for (const LossShape& s : shapes) {
      ++seed;
      CAPTURE(smoothing, s.batch, s.classes);
      COURSE_INPUT_SEED(seed);
      const std::vector<float> logits = smoothing_logits(s.batch, s.classes, seed);
      const std::vector<int> labels = smoothing_labels(s.batch, s.classes, seed);
      const LossOutputs out = run(logits, labels, s.batch, s.classes, smoothing);
      std::vector<double> z(logits.begin(), logits.end());
      std::vector<double> numeric(z.size());
      for (size_t i = 0; i < z.size(); ++i)
        numeric[i] = course::test::numeric_derivative(
            [&] { return smoothed_mean_loss_ref(z, labels, s.batch, s.classes, smoothing); }, z, i);
      REQUIRE_NAMED_CLOSE(std::string(kFile) + ": dlogits against finite differences", out.dlogits, numeric,
                          course::test::matrix("b", s.batch, "k", s.classes), 2e-6, 1e-4);
    }
}

TEST_CASE("smoothed_cross_entropy with smoothing 0 is lesson 01's softmax-cross-entropy", "[14.2]") {
  uint64_t seed = 1431;
  for (const LossShape& s : smoothing_shapes()) {
    ++seed;
    CAPTURE(s.batch, s.classes);
    COURSE_INPUT_SEED(seed);
    const std::vector<float> logits = smoothing_logits(s.batch, s.classes, seed);
    const std::vector<int> labels = smoothing_labels(s.batch, s.classes, seed);
    // Lesson 01 in double: each row's loss (a batch of one), and the gradient of the batch's mean.
    const std::vector<double> z(logits.begin(), logits.end());
    std::vector<double> probs(z.size()), loss_ref(s.batch), dz_ref(z.size());
    for (int b = 0; b < s.batch; ++b)
      loss_ref[b] = host_layers::softmax_cross_entropy_forward(z.data() + size_t(b) * s.classes, &labels[b],
                                                               probs.data() + size_t(b) * s.classes, 1, s.classes);
    host_layers::softmax_cross_entropy_backward(probs.data(), labels.data(), dz_ref.data(), s.batch, s.classes);
    const LossOutputs out = run(logits, labels, s.batch, s.classes, 0.0f);
    require_smoothing_close(kFile, out.row_loss, out.dlogits, {loss_ref, dz_ref}, s.batch, s.classes);
  }
}

TEST_CASE("smoothed_cross_entropy: logits of 1e4 stay finite; a bad label gives NaN in its row only", "[14.2]") {
  SECTION("logits of +-1e4") {
    const int batch = 5, classes = 6;
    std::vector<float> logits = course::test::random_vector(size_t(batch) * classes, 1441);
    for (float& z : logits) z *= 1e4f;
    const std::vector<int> labels = {0, 5, 2, 3, 1};
    const LossOutputs out = run(logits, labels, batch, classes, 0.1f);
    // The loss is a difference of values near 1e4 (each rounded by 2^-24 * 2e4, 1.2e-3), the
    // gradient a probability from exp of such a difference (relative error 1.2e-3).
    const SmoothingRef ref = smoothing_ref(logits, labels, batch, classes, 0.1);
    REQUIRE_NAMED_CLOSE(std::string(kFile) + ": row_loss (logits of 1e4)", out.row_loss, ref.row_loss,
                        course::test::matrix("b", batch, "-", 1), 1e-2, 1e-6);
    REQUIRE_NAMED_CLOSE(std::string(kFile) + ": dlogits (logits of 1e4)", out.dlogits, ref.dlogits,
                        course::test::matrix("b", batch, "k", classes), 2e-3 / batch, 0);
  }
  SECTION("labels outside 0 .. classes-1") {
    const int batch = 6, classes = 7;
    const std::vector<float> logits = smoothing_logits(batch, classes, 1442);
    const std::vector<int> labels = {3, -1, 0, 7, 6, 1000};  // rows 1, 3 and 5 are bad
    // Poisoned with a number, not NaN: a bad row must be WRITTEN as NaN, not skipped.
    const LossOutputs out = run(logits, labels, batch, classes, 0.1f, 12345.0f);
    const SmoothingRef ref = smoothing_ref(logits, labels, batch, classes, 0.1);
    for (int b = 0; b < batch; ++b) {
      CAPTURE(b, labels[b]);
      const bool bad = labels[b] < 0 || labels[b] >= classes;
      if (bad) {
        INFO(kFile << ": row " << b << " has label " << labels[b] << ": its loss and every gradient must be NaN");
        REQUIRE(std::isnan(out.row_loss[b]));
        for (int k = 0; k < classes; ++k) REQUIRE(std::isnan(out.dlogits[size_t(b) * classes + k]));
      } else {
        const std::vector<float> loss_b = {out.row_loss[b]};
        const std::vector<float> dz_b(out.dlogits.begin() + size_t(b) * classes,
                                      out.dlogits.begin() + size_t(b + 1) * classes);
        const std::vector<double> loss_ref_b = {ref.row_loss[b]};
        const std::vector<double> dz_ref_b(ref.dlogits.begin() + size_t(b) * classes,
                                           ref.dlogits.begin() + size_t(b + 1) * classes);
        // A good row is the same as in a batch without bad rows: 1 / batch counts every row.
        REQUIRE_NAMED_CLOSE(std::string(kFile) + ": a good row's loss", loss_b, loss_ref_b, ::course::Shape{},
                            smoothing_loss_atol(classes), smoothing_loss_atol(classes));
        REQUIRE_NAMED_CLOSE(std::string(kFile) + ": a good row's dlogits", dz_b, dz_ref_b, ::course::Shape{},
                            smoothing_grad_atol(classes, batch), smoothing_loss_atol(classes));
      }
    }
  }
}

TEST_CASE("smoothed_cross_entropy: batch 0 writes nothing; bad arguments are refused before anything is written",
          "[14.2]") {
  std::vector<float> loss = nan_vector(3), dz = nan_vector(30);
  const std::vector<float> logits = smoothing_logits(3, 10, 1451);
  const std::vector<int> labels = smoothing_labels(3, 10, 1451);
  REQUIRE_NOTHROW(speedrun::smoothed_cross_entropy(logits.data(), labels.data(), loss.data(), dz.data(), 0, 10, 0.1f));
  REQUIRE(first_bit_difference(loss, nan_vector(3)) < 0);
  REQUIRE(first_bit_difference(dz, nan_vector(30)) < 0);
  REQUIRE_NOTHROW(speedrun::smoothed_cross_entropy(nullptr, nullptr, nullptr, nullptr, 0, 10, 0.1f));

  struct Bad {
    int batch, classes;
    float smoothing;
    const char* names;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Bad bad[] = {{3, 10, -0.1f, "smoothing"}, {3, 10, 1.0f, "smoothing"}, {3, 10, 1.5f, "smoothing"},
                     {3, 10, nan, "smoothing"},   {3, 0, 0.1f, "classes"},    {3, -2, 0.1f, "classes"},
                     {-1, 10, 0.1f, "batch"}};
  for (const Bad& b : bad) {
    CAPTURE(b.batch, b.classes, b.smoothing);
    std::vector<float> loss_out = filled(3, 7.0f), dz_out = filled(30, 7.0f);
    const std::string message = error_of([&] {
      speedrun::smoothed_cross_entropy(logits.data(), labels.data(), loss_out.data(), dz_out.data(), b.batch,
                                       b.classes, b.smoothing);
    });
    INFO("message: '" << message << "' (check_smoothing's, called first)");
    REQUIRE(message.find("smoothed_cross_entropy: ") == 0);
    REQUIRE(message.find(b.names) != std::string::npos);
    REQUIRE(first_bit_difference(loss_out, filled(3, 7.0f)) < 0);
    REQUIRE(first_bit_difference(dz_out, filled(30, 7.0f)) < 0);
  }
}
