// error.hpp, cuda_check.hpp and main.hpp: what a learner sees when something goes wrong.
#include <unistd.h>

#include <cstdio>
#include <new>
#include <stdexcept>

#include "course/cuda_check.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "course_test.hpp"
#include "test_files.hpp"

using course::test::contains;

namespace {
// Runs course::run_main(body) with stderr sent to a temporary file; returns the exit code
// and what it printed.
int run_main_captured(const std::function<int()>& body, std::string& printed) {
  std::fflush(stderr);
  std::FILE* capture = std::tmpfile();
  REQUIRE(capture != nullptr);
  const int saved = dup(fileno(stderr));
  dup2(fileno(capture), fileno(stderr));
  const int rc = course::run_main(body);
  std::fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  std::rewind(capture);
  printed.clear();
  char buf[512];
  while (std::fgets(buf, sizeof buf, capture)) printed += buf;
  std::fclose(capture);
  return rc;
}
}  // namespace

TEST_CASE("todo() throws NotImplemented naming the step and the function", "[error]") {
  try {
    course::todo("03.2", "relu_forward");
    FAIL("todo() returned");
  } catch (const course::NotImplemented& e) {
    const std::string msg = e.what();
    CHECK(msg.rfind("TODO(03.2): relu_forward", 0) == 0);
    CHECK(contains(msg, "your exercise"));
  }
  // A stub's error is a course::Error, so run_main reports it like any other.
  CHECK_THROWS_AS(course::todo("01.1", "x"), course::Error);
}

TEST_CASE("run_main returns the body's code, or 1 with one line 'error: ...'", "[error]") {
  std::string printed;
  CHECK(run_main_captured([] { return 0; }, printed) == 0);
  CHECK(printed.empty());
  CHECK(run_main_captured([] { return 3; }, printed) == 3);

  CHECK(run_main_captured([]() -> int { throw course::Error("--epochs must be an integer"); }, printed) == 1);
  CHECK(printed == "error: --epochs must be an integer\n");
  CHECK(run_main_captured([]() -> int { course::todo("02.1", "sgd_step"); }, printed) == 1);
  CHECK(contains(printed, "error: TODO(02.1): sgd_step"));
  CHECK(run_main_captured([]() -> int { throw std::bad_alloc(); }, printed) == 1);
  CHECK(printed == "error: out of host memory\n");
  CHECK(run_main_captured([]() -> int { throw std::out_of_range("vector::at"); }, printed) == 1);
  CHECK(printed == "error: vector::at\n");
}

TEST_CASE("CUDA_CHECK throws CudaError naming the error, the call, the file and the line", "[error]") {
  CHECK_NOTHROW([] { CUDA_CHECK(cudaSuccess); }());
  const int line = __LINE__ + 2;
  try {
    CUDA_CHECK(cudaErrorInvalidValue);
    FAIL("CUDA_CHECK did not throw");
  } catch (const course::CudaError& e) {
    const std::string msg = e.what();
    CHECK(e.code() == cudaErrorInvalidValue);
    CHECK(contains(msg, "cudaErrorInvalidValue"));
    CHECK(contains(msg, "in cudaErrorInvalidValue"));  // the checked expression, as written
    CHECK(contains(msg, "test_error.cpp:" + std::to_string(line)));
  }
  try {
    course::throw_cuda_error(cudaErrorMemoryAllocation, "cudaMalloc(&p, n)", "kernels.cu", 42);
  } catch (const course::CudaError& e) {
    CHECK(e.code() == cudaErrorMemoryAllocation);
    CHECK(contains(e.what(), "cudaMalloc(&p, n) at kernels.cu:42"));
  }
}

TEST_CASE("shown and one_line: echoed text is escaped to one line and capped", "[error]") {
  CHECK(course::shown("relu\ndense10\t\x1b[31m") == "relu\\ndense10\\t\\x1b[31m");
  CHECK(course::shown(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(course::shown("plain text") == "plain text");
  const std::string long_text(1000000, 'x');
  const std::string capped = course::shown(long_text, 10);
  CHECK(capped == "xxxxxxxxxx... (999990 more characters)");
  const std::string message = course::one_line("data: /x\nerror: fake\r\n" + long_text);
  CHECK(message.find('\n') == std::string::npos);
  CHECK(message.find('\r') == std::string::npos);
  CHECK(message.rfind("data: /x\\nerror: fake\\r\\n", 0) == 0);
  CHECK(message.size() < 2100);
}
