#pragma once
// Lesson 09 (given): before train_fast trains, a quick look at the kernels of 09.10, 09.11 and 09.13
// it is about to use, so that an unwritten or wrong step stops the run with one line instead of
// training a network that silently learns nothing (a kernel not written yet leaves its output
// unwritten: no error, just garbage). The steps before them need no look: 09.8's pass and 09.9's
// capture throw their TODO when unwritten, and 09.12's fork and join too. Not a test: check_09 is
// the test.
namespace fast_training {

// Each kernel on model A's shape at batch 2 (outputs poisoned with NaN first) against lesson 01's
// layers in double. Throws course::Error naming the step, the function and what is wrong, e.g.
// "step 09.10 is not right yet: conv2d_forward_tiled gives y[0] = ..., expected ...
// (exercises/conv_tiled.cu; run check_09.10 for the details)".
void check_tiled_steps();  // 09.10's forward and input gradient, 09.11's weight gradient (conv2)
void check_thin_step();    // 09.13's conv + ReLU + pool and its weight gradient (conv1)

}  // namespace fast_training
