#pragma once
// Lesson 12 (given): before train_beyond trains, a quick look at the functions of 12.1-12.3 it is
// about to use, so that an unwritten or wrong step stops the run with one line instead of training
// a network that silently learns nothing (a kernel you have not written yet leaves its output
// unwritten: no error, just garbage). Not a test: check_12 is the test.
namespace beyond_mnist {

// Runs every host function of 12.1 and 12.2 on a few hundred values against the formulas in double,
// and with gpu, every *_gpu function against them too (outputs poisoned with NaN first); 12.3's
// Adadelta step: your host function runs (an unwritten one throws its TODO), and with gpu your
// kernel must give what it gives. Throws
// course::Error naming the step, the function and what is wrong, e.g. "TODO(12.k):
// sigmoid_forward_gpu left y[0] unwritten (NaN): write it in exercises/activations.cu (check_12.1
// tests it)".
// A host function you have not written throws its own TODO.
void check_your_steps(bool gpu);

}  // namespace beyond_mnist
