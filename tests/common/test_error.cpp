// error.hpp, cuda_check.hpp and main.hpp: what a learner sees when something goes wrong.
#include <stdio_ext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <new>
#include <stdexcept>
#include <vector>

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
    course::todo("03.1", "relu_forward");
    FAIL("todo() returned");
  } catch (const course::NotImplemented& e) {
    const std::string msg = e.what();
    CHECK(msg.rfind("TODO(03.1): relu_forward", 0) == 0);
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
  CHECK(printed.rfind("error: out of host memory", 0) == 0);
  CHECK(contains(printed, "use a smaller --batch"));
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

TEST_CASE("run_main: out of host memory says how much was asked for, what is free and what to do", "[error]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("built with AddressSanitizer: its own allocator answers a failed allocation; the check is skipped");
  return;
#endif
  std::string printed;
  // 2^50 bytes (1 PiB): no machine the course runs on gives that; the request fails at once.
  CHECK(run_main_captured([]() -> int {
          std::vector<char> huge(size_t(1) << 50);
          return int(huge.size());
        }, printed) == 1);
  INFO(printed);
  CHECK(printed.rfind("error: out of host memory: 1048576.0 GiB asked for at once (", 0) == 0);
  CHECK(contains(printed, " available)"));
  CHECK(contains(printed, "use a smaller --batch, a smaller network or fewer images (--train-limit, --test-limit)"));
  // Inside a course::MemoryUse the line names what the memory was for.
  CHECK(run_main_captured([]() -> int {
          const course::MemoryUse use("the training images of data/mnist");
          std::vector<char> huge(size_t(1) << 50);
          return int(huge.size());
        }, printed) == 1);
  CHECK(printed.rfind("error: out of host memory: 1048576.0 GiB asked for at once for the training images of "
                      "data/mnist (", 0) == 0);
  CHECK(contains(printed, " available)"));
  CHECK(contains(printed, "use a smaller --batch, a smaller network or fewer images (--train-limit, --test-limit)"));
  CHECK(std::count(printed.begin(), printed.end(), '\n') == 1);
}

TEST_CASE("run_main: a result that cannot be written to standard output is an error, not exit 0", "[error]") {
  std::FILE* full = std::fopen("/dev/full", "w");
  if (!full) {
    WARN("no /dev/full here: the check is skipped");
    return;
  }
  std::string printed;
  std::fflush(stdout);
  const int saved = dup(fileno(stdout));
  dup2(fileno(full), fileno(stdout));
  // Standard output is line-buffered: a whole line fails as it is printed (its reason is kept unless
  // a later failing call replaced it), a line without its end fails at the final flush.
  const int rc = run_main_captured([] {
    std::printf("the one result\n");
    return 0;
  }, printed);
  std::string printed_replaced;
  const int rc_replaced = run_main_captured([] {
    std::printf("the one result\n");
    std::FILE* none = std::fopen("/no/such/folder/file", "r");  // fails: errno is ENOENT now
    if (none) std::fclose(none);
    return 0;
  }, printed_replaced);
  std::string printed_unended;
  const int rc_unended = run_main_captured([] {
    std::printf("the one result, no line end");
    return 0;
  }, printed_unended);
  __fpurge(stdout);  // what could not be written is dropped, not printed once stdout is back
  std::clearerr(stdout);
  std::cout.clear();  // the failed flush marked std::cout bad too
  dup2(saved, fileno(stdout));
  close(saved);
  std::fclose(full);
  CHECK(rc == 1);
  CHECK(printed == "error: standard output: No space left on device\n");
  CHECK(rc_replaced == 1);
  CHECK(printed_replaced == "error: standard output: a write failed (the output is incomplete)\n");
  CHECK(rc_unended == 1);
  CHECK(printed_unended == "error: standard output: No space left on device\n");

  // Written in full: the body's own exit code.
  CHECK(run_main_captured([] { return 0; }, printed) == 0);
  CHECK(printed.empty());
}

TEST_CASE("run_main: in a file or a pipe, the lines printed before an error come before its line", "[error]") {
  std::fflush(stdout);
  std::fflush(stderr);
  std::FILE* both = std::tmpfile();
  REQUIRE(both != nullptr);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // stdout and stderr into one file, as `program > log 2>&1` does
    dup2(fileno(both), STDOUT_FILENO);
    dup2(fileno(both), STDERR_FILENO);
    const int rc = course::run_main([]() -> int {
      std::printf("header line\n");
      std::cout << "second line" << std::endl;
      std::printf("third line\n");
      throw course::Error("the first thing that went wrong");
    });
    _exit(rc);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  std::rewind(both);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, both)) text += buf;
  std::fclose(both);
  CHECK(text == "header line\nsecond line\nthird line\nerror: the first thing that went wrong\n");
}
