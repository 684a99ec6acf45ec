// The Catch2 runner, compiled once for all test programs.
#if COURSE_CATCH_MAJOR == 2
#define CATCH_CONFIG_RUNNER
#define CATCH_CONFIG_CONSOLE_WIDTH 160  // a failure's one-line message stays one line
#include <catch2/catch.hpp>
#else
#include <catch2/catch_session.hpp>
#endif

int course_run_catch(int argc, char** argv) {
  const int failed = Catch::Session().run(argc, argv);
  // 77 means "skipped" to CTest (SKIP_RETURN_CODE): never let a count of failures look like it.
  return failed == 77 ? 1 : failed;
}
