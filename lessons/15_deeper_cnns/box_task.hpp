#pragma once
// Lesson 15 (given): the box task, a network that regresses positions (as DeepPose regresses the
// joints of a body) on data the course has. Every digit of a set such as MNIST is drawn at a random
// size and place on a 64 x 64 canvas; the network looks at the canvas and answers with four numbers,
// the corners of the box around the digit's ink. Trained with 15.4's losses, scored by how far its
// corners are from the true ones and by how much its box overlaps the true one (IoU).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "course/idx.hpp"
#include "deeper_cnns.hpp"  // your 15.7 (box_iou, corner_error); DEEPER_CNNS_HOST_DEVICE


namespace deeper_cnns {

constexpr int kCanvas = 64;               // a canvas's side in pixels
constexpr int kMinSide = 20, kMaxSide = 44;  // a digit's 28 x 28 square is drawn this many pixels a side
constexpr float kInk = 0.5f;              // a pixel at least this bright is the digit's ink
constexpr float kIouHit = 0.5f;           // a box that overlaps the true one this much is counted as found
constexpr int kBoxOutputs = 4;            // what the network answers: x0, y0, x1, y1

// A box in whole pixels: columns x0 .. x1 - 1 and rows y0 .. y1 - 1, 0 <= x0 < x1 <= kCanvas (the
// same for y). Seven bits hold each of the four numbers, so a box fits in one int: the course's data
// path carries each canvas's box as its label, and the gather, the shuffling and the evaluation of
// framework's GPU trainer carry it unchanged.
struct Box {
  int x0 = 0, y0 = 0, x1 = 1, y1 = 1;
};
DEEPER_CNNS_HOST_DEVICE inline int pack_box(Box b) { return b.x0 | b.y0 << 7 | b.x1 << 14 | b.y1 << 21; }
DEEPER_CNNS_HOST_DEVICE inline Box unpack_box(int label) {
  return {label & 127, label >> 7 & 127, label >> 14 & 127, label >> 21 & 127};
}
bool valid_box(Box b);  // 0 <= x0 < x1 <= kCanvas and the same for y

// The network's four outputs are the corners as fractions of the canvas, (x0, y0, x1, y1) / kCanvas:
// 0 is the left (top) edge, 1 the right (bottom) one. These are the targets of 15.4's loss.
DEEPER_CNNS_HOST_DEVICE inline void box_targets(int label, float* target) {
  const Box b = unpack_box(label);
  target[0] = float(b.x0) / kCanvas, target[1] = float(b.y0) / kCanvas;
  target[2] = float(b.x1) / kCanvas, target[3] = float(b.y1) / kCanvas;
}

// The box task's canvases from a set of 1-channel digits (MNIST's, values in [0, 1]): digit i,
// resized (bilinear) to a side drawn from kMinSide..kMaxSide and placed at a random spot, is canvas
// i (1 x kCanvas x kCanvas); its label is the pack_box of the box around its pixels >= kInk (the
// whole drawn square for a digit without ink). The draws come from course::Rng(seed, stream); the
// values are rounded to whole 1/255 steps, as bytes hold them, so the canvases written as bytes for
// PyTorch (write_canvases_npy) are exactly these. Throws course::Error for images that are not
// 1 x 28 x 28 or an empty set.
course::Dataset box_canvases(const course::Dataset& digits, uint64_t seed, uint64_t stream);

// The canvases as bytes [n, 64, 64] and the boxes as int32 [n, 4] (x0, y0, x1, y1) into
// <dir>/<split>_canvases.npy and <dir>/<split>_boxes.npy, each file all or nothing.
void write_canvases_npy(const std::string& dir, const std::string& split, const course::Dataset& set);

// What a set of predictions (count x 4 outputs) earned against its labels (your 15.7 on each).
struct BoxReport {
  int count = 0;
  double corner_error = 0;  // mean corner_error, pixels
  double hit_rate = 0;      // share with IoU >= kIouHit
  double mean_iou = 0;
};
BoxReport box_report(const float* outputs, const std::vector<int>& labels);

// boxes.png: the first `shown` canvases of `set`, the true box in green and the predicted one in
// red, each titled with its IoU (your box_iou).
void write_boxes_png(const std::string& path, const course::Dataset& set, const float* outputs, int shown = 24);

// ---- on the GPU (box_kernels.cu), every launch on `stream` ----------------------------------------
// targets [batch x 4] = box_targets of each label.
void box_targets_gpu(const int* labels, int batch, float* targets, cudaStream_t stream);
// rows[b] *= factor for b < batch.
void scale_rows_gpu(float* rows, int batch, float factor, cudaStream_t stream);
// predictions[b] = pack_box of row b's box rounded to whole pixels and clamped to the canvas (-1
// where it covers nothing), for b < batch. (The boxes found are counted by your 15.7,
// count_box_hits_gpu in deeper_cnns.hpp.)
void predicted_boxes_gpu(const float* outputs, int batch, int* predictions, cudaStream_t stream);

}  // namespace deeper_cnns
