#include "course/main.hpp"

#include <cstdio>
#include <exception>
#include <new>

#include "course/atomic_file.hpp"
#include "course/error.hpp"

namespace course {

int run_main(const std::function<int()>& body) {
  install_interrupt_cleanup();  // Ctrl-C during a write leaves neither a cut file nor a temporary one
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of host memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", one_line(e.what()).c_str());  // one line, whatever it echoes
  }
  return 1;
}

}  // namespace course
