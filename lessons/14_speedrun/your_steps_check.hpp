#pragma once
// Lesson 14 (given): before train_speedrun trains, a quick look at the functions of 14.1-14.4 it is
// about to use, so that an unwritten or wrong step stops the run with one line instead of a run
// that silently learns nothing (a kernel you have not written yet leaves its output unwritten: no
// error, just garbage). Not a test: check_14 is the test.
namespace speedrun {

// Runs one_cycle_lr, then each *_gpu function of 14.2-14.4 on a few hundred values beside your
// host function of the same step (outputs poisoned with NaN first). A host function you have not
// written throws its own TODO; a kernel that leaves an output unwritten, or gives other values
// than your host function, throws course::Error naming the step, the function and the element.
void check_your_steps();

}  // namespace speedrun
