#pragma once
// Lesson 09's tables (a program above the lessons): steps 09.5 and 09.6 checked against the separate
// kernels of lessons 03, 04 and 06, then timed beside them at model A's shapes.
namespace lesson09 {

void compare_fusions(int batch, int warmup, int repeats);

}  // namespace lesson09
