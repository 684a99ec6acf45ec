// main() of every test program. A program whose tests need a GPU (or the real
// MNIST files) exits with 77 when there is none: CTest reports that as SKIPPED,
// never as passed. COURSE_TEST_NEEDS_* come from course_add_tests().
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "course/device_info.hpp"
#include "course/idx.hpp"

int course_run_catch(int argc, char** argv);

int main(int argc, char** argv) {
  // Listing (--list-tests, --list-tags) runs no test: it needs no GPU and no data set, so the steps'
  // tags of every program can be checked anywhere (tools/step_tags.py).
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strncmp(argv[i], "--list-", 7) == 0;
  if (listing) return course_run_catch(argc, argv);
  if (COURSE_TEST_NEEDS_GPU) {
    const course::DeviceStatus status = course::query_devices();
    if (!status.available()) {
      std::printf("SKIPPED: these tests need a CUDA GPU; none is usable (%s)\n", status.reason.c_str());
      return 77;
    }
    if (status.count < COURSE_TEST_MIN_GPUS) {
      std::printf("SKIPPED: these tests need %d GPUs; this machine has %d\n", COURSE_TEST_MIN_GPUS, status.count);
      return 77;
    }
    const int cc = course::compute_capability(0);
    if (cc < COURSE_TEST_MIN_CC) {
      std::printf("SKIPPED: these tests need a GPU of compute capability %d.%d or newer; this one is %d.%d\n",
                  COURSE_TEST_MIN_CC / 10, COURSE_TEST_MIN_CC % 10, cc / 10, cc % 10);
      return 77;
    }
  }
  if (COURSE_TEST_NEEDS_MNIST) {
    const std::string dir = course::default_data_dir("mnist");
    if (!course::dataset_present(dir)) {
      std::printf("SKIPPED: these tests need MNIST in %s; run data/fetch_mnist.sh\n", dir.c_str());
      return 77;
    }
  }
  const int failed = course_run_catch(argc, argv);
  // A step's CTest test carries the way to the fix (course_step_hint in CourseLesson.cmake).
  const char* hint = std::getenv("COURSE_STEP_HINT");
  if (failed != 0 && hint != nullptr && *hint != '\0') std::printf("\n%s\n", hint);
  return failed;
}
