#pragma once
// Lesson 10's tables (a program above the lessons): the GEMM table, every GEMM of 10.2 checked against
// cuBLAS in FP32 with a bound from its format, then timed beside lesson 04's best FP32 GEMM and cuBLAS with
// the same input types.
namespace lesson10 {
void print_gemm_table(bool quick, int repeats);
}
