#pragma once
// Runs a check in a child process (fork), for what a test must not do to itself: drop to another
// user, limit its address space. The child sends back the text its body returns; the parent gets
// that text and the child's exit code (a child that could not get ready exits with 10).
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "course_test.hpp"

namespace course::test {

struct ChildResult {
  int exit_code = -1;  // -1: the child did not exit by itself (a signal)
  std::string text;
};

// `ready` runs first in the child (false: exit 10); then `body`, whose text comes back.
inline ChildResult run_in_child(const std::function<bool()>& ready, const std::function<std::string()>& body) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    if (!ready()) ::_exit(10);
    const std::string text = body();
    if (::write(pipe_fds[1], text.data(), text.size()) < 0) ::_exit(11);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  ChildResult result;
  char buffer[512];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) result.text.append(buffer, size_t(got));
  ::close(pipe_fds[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

// For `ready`: become the user nobody (uid and gid 65534).
inline bool become_nobody() { return ::setgid(65534) == 0 && ::setuid(65534) == 0; }

}  // namespace course::test
