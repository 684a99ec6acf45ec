// Lesson 00: is the toolchain working, and which GPUs can this machine use?
// Prints the CUDA versions and every visible GPU's properties. Without a GPU it
// says so and points to the lessons that run on the CPU alone. Exit 0 either way.
#include <cstdio>
#include <iostream>

#include "course/device_info.hpp"
#include "course/main.hpp"

int main() {
  return course::run_main([] {
    std::printf("CNN from scratch, lesson 00: setup\n");
    std::printf("compiler: %s %d.%d, C++ %ld\n", "g++", __GNUC__, __GNUC_MINOR__, __cplusplus);
    std::printf("%s\n\n", course::cuda_versions().c_str());

    const course::DeviceStatus status = course::query_devices();
    if (!status.available()) {
      std::printf("No CUDA GPU is usable here (%s).\n", status.reason.c_str());
      std::printf("That is fine: whole lessons and many steps of the others run on the CPU alone\n");
      std::printf("(lessons/00_setup/README.md lists them). Check your work on them, lesson NN by lesson:\n");
      std::printf("  cmake --preset lessons && cmake --build --preset lessons --target check_NN\n");
      std::printf("GPU tests (label gpu) will be reported as SKIPPED on this machine.\n");
      return 0;
    }
    std::printf("%d CUDA device(s) visible:\n", status.count);
    for (int d = 0; d < status.count; ++d) course::print_device_properties(std::cout, d);
    std::printf("\nAll lessons can run here.\n");
    return 0;
  });
}
