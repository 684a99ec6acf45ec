#include "course/main.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <utility>

#include "course/atomic_file.hpp"
#include "course/error.hpp"
#include "course/host_memory.hpp"

// The size of the last allocation that failed, so that "out of host memory" can say how much was
// asked for. Every plain `new` (std::vector, std::string, HostTensor) comes here; the aligned and
// nothrow forms keep the library's own. The matching deletes free what malloc gave. Under
// AddressSanitizer its own new and delete stay (they check that the two match); the message then
// gives no size.
namespace {
std::atomic<size_t> g_failed_request{0};
thread_local const char* g_memory_use = nullptr;  // the innermost course::MemoryUse's text
char g_failed_for[256];  // its text when the allocation failed (copied: no allocation is possible then)
}  // namespace

#if defined(__SANITIZE_ADDRESS__)
#define COURSE_OWN_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COURSE_OWN_NEW 0
#endif
#endif
#ifndef COURSE_OWN_NEW
#define COURSE_OWN_NEW 1
#endif

#if COURSE_OWN_NEW
namespace {

void* allocate(std::size_t size) {
  if (size == 0) size = 1;
  for (;;) {
    if (void* p = std::malloc(size)) return p;
    const std::new_handler handler = std::get_new_handler();
    if (!handler) {
      g_failed_request = size;
      std::snprintf(g_failed_for, sizeof g_failed_for, "%s", g_memory_use ? g_memory_use : "");
      throw std::bad_alloc();
    }
    handler();  // may free memory and let the next try succeed, or throw
  }
}
}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace course {

namespace {
// The one line for an allocation that failed: how much, what the machine has, what to do.
std::string out_of_memory_text() {
  const size_t asked = g_failed_request.exchange(0);
  std::string text = "out of host memory";
  if (asked > 0) text += ": " + byte_size_text(asked) + " asked for at once";
  if (asked > 0 && g_failed_for[0] != '\0') text += " for " + one_line(g_failed_for, 200);
  g_failed_for[0] = '\0';
  if (const uint64_t available = host_memory_available()) text += " (" + byte_size_text(available) + " available)";
  return text + "; use a smaller --batch, a smaller network or fewer images (--train-limit, --test-limit), or free memory";
}

// Standard output is flushed and checked before the program ends: a result that could not be
// written (a full disk, /dev/full, a closed pipe) is an error, not a silent exit 0.
bool standard_output_written() {
  // Standard output is line-buffered: a line that failed did so as it was printed, and its reason is
  // errno then, unless a later failing call replaced it. A write's reasons are kept; others are not.
  const int earlier = errno;
  const bool write_reason = earlier == ENOSPC || earlier == EFBIG || earlier == EPIPE || earlier == EIO ||
                            earlier == EDQUOT || earlier == EBADF;
  errno = 0;
  std::cout.flush();
  const bool stream_failed = std::cout.fail();
  const bool flush_failed = std::fflush(stdout) != 0;
  const int error_number = errno;
  if (!stream_failed && !flush_failed && !std::ferror(stdout)) return true;
  const int reason = error_number != 0 ? error_number : write_reason ? earlier : 0;
  std::fprintf(stderr, "error: standard output: %s\n",
               reason != 0 ? std::strerror(reason) : "a write failed (the output is incomplete)");
  return false;
}
}  // namespace

MemoryUse::MemoryUse(std::string what) : what_(std::move(what)), outer_(g_memory_use) { g_memory_use = what_.c_str(); }
MemoryUse::~MemoryUse() { g_memory_use = outer_; }

int run_main(const std::function<int()>& body) {
  // A file or a pipe gets each line as it is printed, as a terminal does: a log shows progress while
  // the program runs, and an error line (stderr, unbuffered) comes after the lines printed before it.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  install_interrupt_cleanup();  // Ctrl-C during a write leaves neither a cut file nor a temporary one
  int rc = 1;
  try {
    rc = body();
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", out_of_memory_text().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::fflush(stdout);  // what was printed before the error comes before it
    std::fprintf(stderr, "error: %s\n", one_line(e.what()).c_str());  // one line, whatever it echoes
    return 1;
  }
  if (!standard_output_written()) return 1;
  return rc;
}

}  // namespace course
