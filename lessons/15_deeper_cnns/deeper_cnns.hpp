#pragma once
// Lesson 15: deeper CNNs. The contracts of every function you write.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "host_layers.hpp"  // lesson 01's ConvShape

#if defined(__CUDACC__)
#define DEEPER_CNNS_HOST_DEVICE __host__ __device__
#else
#define DEEPER_CNNS_HOST_DEVICE
#endif

namespace deeper_cnns {

// A tensor x [N, C, H, W] normalised per channel: each channel's statistics run over its
// M = N * H * W values (every image of the batch, every pixel).
struct BatchNormShape {
  int batch = 1, channels = 1, height = 1, width = 1;
  DEEPER_CNNS_HOST_DEVICE size_t size() const { return size_t(batch) * channels * height * width; }  // values of x
  DEEPER_CNNS_HOST_DEVICE size_t per_channel() const { return size_t(batch) * height * width; }      // M
  // Where value i (0 <= i < M) of channel c lives in x: image i / (H * W), pixel i % (H * W).
  DEEPER_CNNS_HOST_DEVICE size_t at(int c, size_t i) const {
    const size_t plane = size_t(height) * width;
    return (i / plane * channels + c) * plane + i % plane;
  }
};

// Throws course::Error naming `function` unless every size is >= 1 and, with `training`, M >= 2 (one
// value has no variance). Given.
void check_batch_norm_shape(const char* function, const BatchNormShape& s, bool training);
// The same, and unless eps > 0 (finite) and 0 <= momentum <= 1. Given.
void check_batch_norm(const char* function, const BatchNormShape& s, double eps, double momentum, bool training);

// ---- 15.1 batch normalisation on the CPU -------------------------------------------------------
// Training (PyTorch's BatchNorm2d, train()): per channel c, over its M values,
//   mean[c] = sum x / M            var[c] = sum (x - mean[c])^2 / M      (biased: divided by M)
//   inv_std[c] = 1 / sqrt(var[c] + eps)
//   xhat = (x - mean[c]) * inv_std[c]          y = gamma[c] * xhat + beta[c]
// saved_mean and saved_inv_std [C] keep mean and inv_std for the backward pass. The running
// statistics move toward the batch's, with the UNBIASED variance (divided by M - 1):
//   running_mean = (1 - momentum) * running_mean + momentum * mean
//   running_var  = (1 - momentum) * running_var  + momentum * var * M / (M - 1)
// Every y, saved_mean and saved_inv_std is written; x, gamma and beta are only read. Checks first
// (check_batch_norm with training = true): nothing is written when they throw.
template <typename T>
void batch_norm_forward_train(const BatchNormShape& s, const T* x, const T* gamma, const T* beta, T eps, T momentum,
                              T* y, T* saved_mean, T* saved_inv_std, T* running_mean, T* running_var);

// Evaluation (eval()): the running statistics instead of the batch's, nothing updated:
//   y = gamma[c] * (x - running_mean[c]) / sqrt(running_var[c] + eps) + beta[c]
template <typename T>
void batch_norm_forward_eval(const BatchNormShape& s, const T* x, const T* gamma, const T* beta,
                             const T* running_mean, const T* running_var, T eps, T* y);

// The training pass's gradients, from dy = dL/dy and what the forward pass saved (x is its input):
//   dbeta[c]  = sum dy                  dgamma[c] = sum dy * xhat
//   dx = gamma[c] * inv_std[c] * (dy - dbeta[c] / M - xhat * dgamma[c] / M)
// (the mean and the variance depend on every x of the channel: dx is not gamma * inv_std * dy).
// dx, dgamma and dbeta are overwritten. Checks first (check_batch_norm_shape, training).
template <typename T>
void batch_norm_backward(const BatchNormShape& s, const T* x, const T* dy, const T* gamma, const T* saved_mean,
                         const T* saved_inv_std, T* dx, T* dgamma, T* dbeta);

// ---- 15.3 a residual block on the CPU ------------------------------------------------------------
// ResNet's basic block (He et al. 2015; the projection shortcut, "option B"), training mode:
//   a  = conv3x3(x; w1, stride s, pad 1)      bn1 -> relu -> r1
//   c  = conv3x3(r1; w2, stride 1, pad 1)     bn2 -> main
//   skip = x, or with a projection (stride 2, or other channels) bnp(conv1x1(x; wp, stride s))
//   y  = relu(main + skip)
// x [N, C, H, W] -> y [N, F, OH, OW], OH = (H - 1) / s + 1. The convolutions have no bias (each
// batch norm's beta is one); every batch norm is 15.1's with eps and momentum below.
struct ResidualShape {
  int batch = 1, in_channels = 1, height = 1, width = 1, out_channels = 1, stride = 1;
  bool projection() const { return stride != 1 || in_channels != out_channels; }
  int out_h() const { return (height - 1) / stride + 1; }
  int out_w() const { return (width - 1) / stride + 1; }
  size_t in_size() const { return size_t(batch) * in_channels * height * width; }
  size_t out_size() const { return size_t(batch) * out_channels * out_h() * out_w(); }
};
constexpr double kResidualEps = 1e-5, kResidualMomentum = 0.1;

// The block's parameters (read) and their gradients (written): w1 [F, C, 3, 3], w2 [F, F, 3, 3],
// wp [F, C, 1, 1]; every gamma and beta [F]. Without a projection wp, gammap and betap are not used
// (may be null), and their gradients are not written.
template <typename T>
struct ResidualParams {
  const T *w1, *gamma1, *beta1, *w2, *gamma2, *beta2, *wp, *gammap, *betap;
};
template <typename T>
struct ResidualGrads {
  T *dw1, *dgamma1, *dbeta1, *dw2, *dgamma2, *dbeta2, *dwp, *dgammap, *dbetap;
};

// What the forward pass keeps for the backward pass, sized for a shape (given), and each batch
// norm's running statistics (they start at mean 0 and variance 1, as PyTorch's).
template <typename T>
struct ResidualCache {
  explicit ResidualCache(const ResidualShape& s);
  std::vector<T> a, n1, r1, c, n2, p, np, sum;  // conv1, bn1, relu, conv2, bn2, conv_p, bn_p, main + skip
  std::vector<T> mean1, inv1, mean2, inv2, meanp, invp;  // the batch norms' saved statistics
  std::vector<T> run_mean1, run_var1, run_mean2, run_var2, run_meanp, run_varp;
  std::vector<T> zeros;  // a zero bias for the convolutions
};

// Throws course::Error naming `function` unless every size is >= 1 and stride is 1 or 2. Given.
void check_residual(const char* function, const ResidualShape& s);
// The shapes of the block's pieces (given): conv1 (3x3, stride s, pad 1), conv2 (3x3, stride 1,
// pad 1), the projection (1x1, stride s, no pad), and the output [N, F, OH, OW] every batch norm sees.
host_layers::ConvShape conv1_shape(const ResidualShape& s);
host_layers::ConvShape conv2_shape(const ResidualShape& s);
host_layers::ConvShape projection_shape(const ResidualShape& s);
BatchNormShape output_shape(const ResidualShape& s);

// Step 15.3: the block's forward pass (y written, the cache filled, the running statistics moved) and
// its backward pass from dy (dx and every gradient of the block overwritten), with lesson 01's
// convolutions and ReLU and your batch norm of 15.1. Both check_residual first.
template <typename T>
void residual_block_forward(const ResidualShape& s, const T* x, const ResidualParams<T>& p, ResidualCache<T>& cache,
                            T* y);
template <typename T>
void residual_block_backward(const ResidualShape& s, const T* x, const ResidualParams<T>& p,
                             const ResidualCache<T>& cache, const T* dy, T* dx, const ResidualGrads<T>& g);

// ---- 15.4 a regression head's losses ------------------------------------------------------------
// A network that predicts numbers (a box's corners, a joint's position) instead of a class is
// trained on how far its predictions p [batch x outputs] are from the targets t. With d = p - t,
// each of the batch * outputs values costs
//   squared:    d^2                                        (PyTorch's MSELoss)
//   smooth_l1:  d^2 / (2 beta) where |d| < beta, else |d| - beta / 2     (SmoothL1Loss, beta > 0)
// and the loss is their MEAN over all batch * outputs values. Smooth L1 is the squared error near
// 0 and the absolute error far from it: one badly wrong target pulls with a bounded gradient.
enum class RegressionLoss { squared, smooth_l1 };

// Throws course::Error naming `function` unless batch >= 1, outputs >= 1 and (smooth_l1) beta > 0
// (finite). Given.
void check_regression(const char* function, RegressionLoss kind, int batch, int outputs, double beta);

// Step 15.4 on the CPU: row_loss[b] = the sum of row b's costs / (batch * outputs) (so the rows add
// up to the loss, which is returned), and dpred = dLoss/dp for every value. Every output written;
// the check first (nothing written when it throws).
template <typename T>
T regression_loss(RegressionLoss kind, const T* pred, const T* target, int batch, int outputs, T beta, T* row_loss,
                  T* dpred);

// Step 15.4 on the GPU: the same row_loss and dpred in float, a row a thread (a head has few
// outputs: 4 corners), all on `stream`; the check first, nothing launched when it throws.
void regression_loss_gpu(RegressionLoss kind, const float* pred, const float* target, int batch, int outputs,
                         float beta, float* row_loss, float* dpred, cudaStream_t stream = nullptr);

// ---- 15.5 global average pooling ------------------------------------------------------------------
// A ResNet ends its convolutions with one number per channel: the mean of each channel's plane,
//   y[n][c] = sum over the H*W pixels p of x[n][c][p] / (H*W)        x [N, C, H, W] -> y [N, C]
// and its gradient spreads dy evenly back over the plane: dx[n][c][p] = dy[n][c] / (H*W).
// plane = H*W. Every output written. Throws course::Error (naming the function, before anything is
// written or launched) unless batch, channels and plane are >= 1: check_pooling, given.
void check_pooling(const char* function, int batch, int channels, int plane);
template <typename T>
void global_avg_pool_forward(const T* x, T* y, int batch, int channels, int plane);
template <typename T>
void global_avg_pool_backward(const T* dy, T* dx, int batch, int channels, int plane);
// The same on the GPU (float), on `stream`: a thread a (image, channel) plane for the forward pass,
// a thread a value of dx for the backward pass (grid-stride loops).
void global_avg_pool_forward_gpu(const float* x, float* y, int batch, int channels, int plane,
                                 cudaStream_t stream = nullptr);
void global_avg_pool_backward_gpu(const float* dy, float* dx, int batch, int channels, int plane,
                                  cudaStream_t stream = nullptr);

// ---- 15.7 scoring a box -----------------------------------------------------------------------------
// A network that regresses a box (train_boxes: the box around a digit on a canvas) is scored by how
// much its box overlaps the true one and how far its corners are from the true corners. A box is four
// numbers (x0, y0, x1, y1): left, top, right, bottom, as fractions of the canvas (0 .. 1).
//   IoU = the area the two boxes share / the area they cover together          (0 .. 1)
//         shared = max(0, min(x1, x1') - max(x0, x0')) * max(0, min(y1, y1') - max(y0, y0'))
//         together = area + area' - shared
//   A predicted box with x1 <= x0 or y1 <= y0 covers nothing: its IoU is 0 (a NaN in it too).
//   corner error = the mean of the distances from (x0, y0) to (x0', y0') and from (x1, y1) to
//                  (x1', y1'), times `canvas` (so in pixels): 0.5 * (d_top_left + d_bottom_right) * canvas
// `truth` is a box that covers something.
float box_iou(const float* pred, const float* truth);
float corner_error(const float* pred, const float* truth, int canvas);

// Step 15.7 on the GPU, as the GPU trainer counts right answers (08.4's predict_and_count): *hits
// += the rows b < batch of outputs [batch x 4] whose IoU with the box of labels[b] (a box packed in a
// label: box_task.hpp's box_targets) is >= kIouHit (0.5); a thread a row, each thread adding its count
// once. predictions[b] = the predicted box in whole pixels (given). outputs_per_example must be 4
// (else course::Error, nothing launched); everything on `stream`.
void count_box_hits_gpu(const float* outputs, const int* labels, int batch, int outputs_per_example,
                        int* predictions, int* hits, cudaStream_t stream);

// ---- 15.2 batch normalisation on the GPU ----------------------------------------------------------
// 15.1's passes in float on the device, and a ReLU fused after y where `relu` is true:
//   y = max(0, gamma * xhat + beta)
// The statistics of a channel come from ONE BLOCK of kThreads threads: each thread sums its share of
// the channel's M values, the block adds the threads' sums (block_sum), and as on the CPU the mean
// comes first and the squares around it second. The backward pass takes `relu_y`, the fused forward
// pass's output, to mask dy where the ReLU let nothing through (relu_y <= 0), or null: no ReLU.
// Outputs as 15.1's, all written; every launch on `stream`; the launchers check first
// (check_batch_norm) and launch nothing when the check throws.
constexpr int kThreads = 256;  // a block: one channel's statistics
void batch_norm_forward_train_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                  float eps, float momentum, bool relu, float* y, float* saved_mean,
                                  float* saved_inv_std, float* running_mean, float* running_var,
                                  cudaStream_t stream = nullptr);
void batch_norm_forward_eval_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                 const float* running_mean, const float* running_var, float eps, bool relu, float* y,
                                 cudaStream_t stream = nullptr);
void batch_norm_backward_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                             const float* gamma, const float* saved_mean, const float* saved_inv_std, float* dx,
                             float* dgamma, float* dbeta, cudaStream_t stream = nullptr);

// ---- 15.6 batch norm across the whole GPU -----------------------------------------------------------
// 15.2 gives a channel one block. ResNet-20's first stage has 16 channels of 128 x 28 x 28 = 100,352
// values each at batch 128: 16 blocks work while the GPU's other SMs (132 on an H100) wait. Here a
// channel is cut into slices of whole images (batch_norm_slices: about kSliceValues values each), a
// block a slice, in two kernels a pass:
//   forward  1. block (c, k) reads slice k of channel c: its count n_k, its mean m_k, and the squares
//               around that mean q_k = sum (x - m_k)^2 (the mean first, as in 15.2), into workspace;
//            2. block (c, k) merges channel c's entries itself, its threads sharing them (Chan, Golub
//               and LeVeque's parallel variance):
//               n = sum n_k   mean = sum n_k m_k / n   q = sum (q_k + n_k (m_k - mean)^2)   var = q / n;
//               the block of slice 0 writes saved_mean, saved_inv_std and the running statistics as
//               15.1 (unbiased: q / (n - 1)); then every block writes y for its own slice:
//               y = gamma * xhat + beta (+ skip), the ReLU fused where `relu`.
//   backward 1. block (c, k): the slice's sums of g and g * xhat (g: dy, masked as 15.2 where relu_y);
//            2. block (c, k): channel c's totals (dbeta = sum of the g sums, dgamma of the g * xhat
//               sums; the block of slice 0 writes them), then dx for its own slice, as 15.2.
// Every block of a channel merges the same entries in the same order: all get the same statistics,
// and no kernel runs between the slices and the values just to merge them.
// skip (may be null): a tensor of x's shape added before the ReLU (a res block's shortcut, its add
// done in this pass). Same arguments and outputs as 15.2 otherwise, and `workspace`
// (batch_norm_wide_workspace_floats(s) floats on the device, contents on entry ignored); every launch
// on `stream`; the launchers check first (check_batch_norm) and launch nothing when the check throws.
constexpr int kSliceValues = 1024;
struct BatchNormSlices {
  int images = 1;  // images a slice: ceil(kSliceValues / (H * W)), at most the batch
  int count = 1;   // slices a channel: ceil(batch / images)
};
BatchNormSlices batch_norm_slices(const BatchNormShape& s);           // given
size_t batch_norm_wide_workspace_floats(const BatchNormShape& s);     // given: 3 * channels * slices
void batch_norm_forward_train_wide_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                                       float eps, float momentum, const float* skip, bool relu, float* y,
                                       float* saved_mean, float* saved_inv_std, float* running_mean,
                                       float* running_var, float* workspace, cudaStream_t stream = nullptr);
void batch_norm_backward_wide_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                                  const float* gamma, const float* saved_mean, const float* saved_inv_std, float* dx,
                                  float* dgamma, float* dbeta, float* workspace, cudaStream_t stream = nullptr);

// The same passes stage by stage (given, beside your kernels in batch_norm_wide.cu): each launches one
// of your four kernels, nothing checked. The whole passes above are these in a row; batch norm over
// several GPUs (synced_batch_norm.hpp) puts NCCL's collectives between them. The partials: forward
// [channels][entries][3] (count, mean, squares), backward [channels][entries][2] (sum g, sum g * xhat).
// The second stages merge whatever `entries` a channel has (one GPU's slices, every GPU's, or the
// blocks' of the convolution before the norm: lesson 10's 10.6 writes them too; an entry of count 0
// adds nothing) and take their counts from them (n = sum n_k), never from s: s is the shape of this
// GPU's x, whose slices they write.
void batch_norm_slice_stats_gpu(const BatchNormShape& s, const float* x, float* workspace, cudaStream_t stream);
void batch_norm_normalize_gpu(const BatchNormShape& s, const float* x, const float* gamma, const float* beta,
                              const float* partials, int entries, float eps, float momentum, float* saved_mean,
                              float* saved_inv_std, float* running_mean, float* running_var, const float* skip,
                              bool relu, float* y, cudaStream_t stream);
void batch_norm_slice_grad_sums_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                                    const float* mean, const float* inv_std, float* workspace, cudaStream_t stream);
// dx as 15.2 from the entries' totals, divided by M = N * H * W of s; dgamma and dbeta written unless null.
void batch_norm_dx_gpu(const BatchNormShape& s, const float* x, const float* dy, const float* relu_y,
                       const float* gamma, const float* mean, const float* inv_std, const float* partials, int entries,
                       float* dgamma, float* dbeta, float* dx, cudaStream_t stream);

// ---- the ReLU after a block where nothing fuses it (given: lesson 03's kernels, relu_gpu.cpp) ------
// y = max(0, x), and its backward from its own output: dx = dy where y > 0, else 0.
void relu_forward_gpu(const float* x, float* y, size_t n, cudaStream_t stream = nullptr);
void relu_backward_gpu(const float* y, const float* dy, float* dx, size_t n, cudaStream_t stream = nullptr);

// ---- 15.8 the ReLUs ride in the block's adds ----------------------------------------------------------
// The block's forward add (where its last norm does not take the shortcut): y = a + b, through the
// ReLU after the block where `relu`, in the same pass. Its backward add: dx = (dx through the body) +
// (dx through the shortcut); where a ReLU comes right before the block, that ReLU's backward rides in
// it: the block's input x IS that ReLU's output, so the sum passes where mask = x > 0 and is 0
// elsewhere, written straight into the ReLU's input gradient. The masked add selects, it does not
// multiply: a NaN or an infinity behind a closed mask stays out. Every pass for i < n, launched on
// `stream` (nothing for n = 0); an output must not overlap an input.
void add_gpu(const float* a, const float* b, float* y, size_t n, bool relu, cudaStream_t stream = nullptr);
void add_masked_gpu(const float* a, const float* b, const float* mask, float* y, size_t n,
                    cudaStream_t stream = nullptr);

}  // namespace deeper_cnns
