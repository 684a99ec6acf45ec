#pragma once
// Lesson 10's tables (a program above the lessons): the convolution table, 10.5's and 10.6's Tensor Core
// convolutions on model A's layers at batch 128, checked against lesson 09's FP32 implicit GEMM, then timed
// beside lesson 09's FP32 kernels (implicit GEMM and, where it runs, the tiled kernel).
namespace lesson10 {
void print_conv_table(int repeats);
}
