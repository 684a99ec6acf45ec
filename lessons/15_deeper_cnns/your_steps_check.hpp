#pragma once
// Lesson 15 (given): before train_deeper or train_boxes trains, a quick look at the steps it is about to use, so
// that an unwritten or wrong step stops the run with one line instead of training a network that
// silently learns nothing. Not a test: check_15 is the test.
#include "deeper_cnns.hpp"

namespace deeper_cnns {

// Runs your batch norm (15.1) and global average pooling (15.5) on a small input (an unwritten one
// throws its TODO; an output left unwritten is named) and, with gpu, their kernels (15.2, 15.5, 15.6)
// against them: outputs poisoned with NaN first, then compared. Throws course::Error naming the
// step, the function and the file.
void check_your_steps(bool gpu);

// The same for the regression head (15.4) before train_boxes trains: your host function on a small
// batch (every output written), and your kernel against it.
void check_your_regression_loss(RegressionLoss kind, float beta);

// And its scores (15.7): your box_iou and corner_error on boxes worked out by hand, and your kernel's
// count of boxes found against your box_iou.
void check_your_box_scores();

// And a block's adds with the ReLUs riding in them (15.8), which both trainers' networks run: your two
// kernels on a small input against the same values worked out here.
void check_your_block_passes();

}  // namespace deeper_cnns
