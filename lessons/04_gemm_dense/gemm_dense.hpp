#pragma once
// Lesson 04: matrix multiplication on the GPU, and the dense layer and softmax-cross-entropy
// built on it. Plain C++ header: the kernels live in exercises/*.cu.
//
// Every pointer below is a DEVICE pointer (from course::DeviceBuffer<float>::data()); every
// matrix is row-major: element (r, c) of an R x C matrix is at r * C + c. Every function
// launches on the default stream, checks the launch with CUDA_CHECK_LAUNCH (a bad launch
// throws course::CudaError) and returns without waiting. A negative size throws course::Error;
// an empty output (M == 0 or N == 0) launches nothing; K == 0 gives C = beta * C (zeros for
// the plain products).
// The convolution as a GEMM and the GPU trainer call these: keep the signatures.

namespace gemm_dense {

// The ladder of matmul kernels, slowest first, one per step 04.1-04.6. double_buffered is the
// production kernel: matmul_a_bt, matmul_at_b and the dense layer use it.
enum class MatmulKernel { naive, tiled, tile_1d, tile_2d, vectorized, double_buffered };
// "naive", "tiled", "tile_1d", "tile_2d", "vectorized", "double_buffered"
const char* kernel_name(MatmulKernel k);

// ---- 04.1 naive ... 04.6 double_buffered -----------------------------------------------------
// C[M x N] = A[M x K] * B[K x N]; C is overwritten. Correct for any M, N, K >= 0.
void matmul(MatmulKernel kernel, const float* A, const float* B, float* C, int M, int N, int K);

// ---- 04.7 the transposed products backward passes need -------------------------------------
// beta = 0 overwrites C (whatever it held, NaN included); beta = 1 accumulates into C.
// C[M x N] = A * B^T + beta * C, with A [M x K] and B [N x K].
void matmul_a_bt(const float* A, const float* B, float* C, int M, int N, int K, float beta = 0.0f);
// C[M x N] = A^T * B + beta * C, with A [K x M] and B [K x N].
void matmul_at_b(const float* A, const float* B, float* C, int M, int N, int K, float beta = 0.0f);

// ---- 04.7 a parallel reduction, and the dense layer --------------------------------------
// sums[c] = sum over r of m[r][c], for m [rows x cols] (the bias gradient). rows == 0 gives 0.
void column_sums(const float* m, float* sums, int rows, int cols);

// The dense layer with lesson 01's convention (W is [out x in]):
//   y[batch x out] = x[batch x in] * W^T + bias
void dense_forward(const float* x, const float* W, const float* bias, float* y, int batch, int in, int out);
// Given dy [batch x out], OVERWRITES dx [batch x in] = dy * W, dW [out x in] = dy^T * x,
// dbias [out] = column sums of dy.
void dense_backward(const float* x, const float* W, const float* dy, float* dx, float* dW, float* dbias,
                    int batch, int in, int out);

// ---- 04.8 softmax + cross-entropy, one row per block, numerically stable -------------------
// logits [batch x classes], labels [batch] in 0..classes-1 (device ints).
// probs[b][c] = softmax of row b; row_loss[b] = -log probs[b][labels[b]] (the MEAN loss of
// lesson 01 is the average of row_loss). A label outside 0..classes-1 gives row_loss NaN.
void softmax_cross_entropy_forward(const float* logits, const int* labels, float* probs, float* row_loss,
                                   int batch, int classes);
// dlogits = (probs - onehot(labels)) / batch: the gradient of the mean loss. A row with a
// label outside 0..classes-1 is written as NaN.
void softmax_cross_entropy_backward(const float* probs, const int* labels, float* dlogits, int batch,
                                    int classes);

}  // namespace gemm_dense
