#pragma once
// run_main: the body of every lesson program's main(). It turns any exception
// into one line on stderr ("error: ...") and exit code 1, so bad input never
// ends in a crash or a stack trace.
#include <functional>

namespace course {

int run_main(const std::function<int()>& body);

}  // namespace course
