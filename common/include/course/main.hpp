#pragma once
// run_main: the body of every lesson program's main(). It turns any exception
// into one line on stderr ("error: ...") and exit code 1, so bad input never
// ends in a crash or a stack trace. An allocation that fails is reported with
// its size, the memory available and what to do ("error: out of host memory:
// 12.0 GiB asked for at once (...); use a smaller --batch ..."). At the end it
// flushes standard output and checks it: a result that could not be written
// (a full disk, /dev/full) is "error: standard output: <reason>" and exit 1.
#include <functional>
#include <string>

namespace course {

int run_main(const std::function<int()>& body);

// What the memory asked for while one lives is for: an allocation that fails on this thread meanwhile
// is reported by run_main as for it ("... 12.0 GiB asked for at once for the images of
// data/mnist/train-images-idx3-ubyte ..."). The innermost one names it.
class MemoryUse {
 public:
  explicit MemoryUse(std::string what);
  ~MemoryUse();
  MemoryUse(const MemoryUse&) = delete;
  MemoryUse& operator=(const MemoryUse&) = delete;

 private:
  std::string what_;
  const char* outer_;
};

}  // namespace course
