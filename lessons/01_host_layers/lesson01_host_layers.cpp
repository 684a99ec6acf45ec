// Lesson 01: one forward and backward pass of a tiny CNN on real MNIST digits, run with the
// layers of exercises/*.cpp in double; then a gradient check of every parameter tensor and a
// picture of the digits (digits.png).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/error.hpp"
#include "course/idx.hpp"
#include "course/main.hpp"
#include "course/png.hpp"
#include "gradient_check.hpp"
#include "tiny_net.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson01_host_layers",
                           "One forward/backward pass of a tiny CNN on MNIST test digits, then a gradient check.");
    args.add_string("--data", course::default_data_dir("mnist"), "MNIST folder (the four IDX files)");
    args.add_int("--count", 8, 1, 10000, "test digits in the batch");
    args.add_string("--out", std::string(COURSE_OUTPUT_DIR) + "/lesson01", "folder for digits.png");
    args.add_int("--seed", 1, 0, 2147483647, "seed of the weights and of the checked entries");
    args.add_int("--checks", 50, 1, 1000000, "entries checked per parameter tensor (all when it has fewer)");
    if (!args.parse(argc, argv)) return 0;

    const int count = static_cast<int>(args.get_int("--count"));
    const uint64_t seed = static_cast<uint64_t>(args.get_int("--seed"));
    const course::Dataset ds = course::load_dataset(args.get_string("--data"), course::Split::test, count);
    const int n = ds.count(), h = ds.images.dim(2), w = ds.images.dim(3);
    std::printf("loaded %d test digits (%dx%d) from %s\nlabels:", n, h, w, args.get_string("--data").c_str());
    for (int label : ds.labels) std::printf(" %d", label);
    std::printf("\n");

    // The picture needs no exercise, so it is written first.
    const std::string png = args.get_string("--out") + "/digits.png";
    course::write_png(png, course::digit_grid(ds.images.data(), n, h, w, 8));
    std::printf("wrote %s\n\n", png.c_str());

    // Double everywhere: the gradient check below needs it (see the README).
    const std::vector<double> images(ds.images.vec().begin(), ds.images.vec().end());
    lesson01::TinyNet net(n, h, w, seed);
    std::printf("%s\n", net.describe().c_str());
    const double loss = net.forward(images, ds.labels);
    if (!std::isfinite(loss)) throw course::Error("the loss is not finite (" + std::to_string(loss) + ")");
    net.backward(images, ds.labels);
    std::printf("loss = %.6f (untrained weights: expect about log(10) = %.6f)\n\n", loss, std::log(10.0));

    std::vector<lesson01::GradientCheckRow> rows;
    const auto params = net.parameters();
    for (size_t k = 0; k < params.size(); ++k)
      rows.push_back(lesson01::check_gradient(params[k], [&] { return net.forward(images, ds.labels); },
                                              static_cast<size_t>(args.get_int("--checks")), seed + 1 + k));
    lesson01::print_gradient_table(rows);

    for (const auto& r : rows)
      if (!r.pass) {
        std::printf("\ngradient check FAILED for %s: its backward pass disagrees with the forward pass\n",
                    r.name.c_str());
        return 1;
      }
    std::printf("\nall gradient checks pass\n");
    return 0;
  });
}
