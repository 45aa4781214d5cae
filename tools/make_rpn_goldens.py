#!/usr/bin/env python3
"""Golden numbers for Mask R-CNN's anchors (workloads/maskrcnn/anchors.h), printed as C++ initialisers
for tests/workloads/maskrcnn_rpn_test.cpp.

The cell anchors restate Detectron's generate_anchors as the MLPerf v0.7 reference runs it
(maskrcnn_benchmark modeling/rpn/anchor_generator.py): a (0, 0, stride - 1, stride - 1) window, one
window per aspect ratio r with width round(sqrt(stride^2 / r)) and height round(width * r) (numpy's
round: half to even) around the window's centre, each then scaled by size / stride; corners are
centre -/+ (extent - 1) / 2, in float64, then float32 as the reference's .float().

Needs numpy only; nothing here is needed to build or test. Rerun from the repository root:
    /usr/bin/python3 tools/make_rpn_goldens.py
"""

import numpy as np

STRIDES = (4, 8, 16, 32, 64)
SIZES = (32, 64, 128, 256, 512)
ASPECT_RATIOS = (0.5, 1.0, 2.0)


def corners(widths, heights, centre_x, centre_y):
    return np.stack([centre_x - 0.5 * (widths - 1), centre_y - 0.5 * (heights - 1),
                     centre_x + 0.5 * (widths - 1), centre_y + 0.5 * (heights - 1)], axis=1)


def extent(box):
    width = box[2] - box[0] + 1
    height = box[3] - box[1] + 1
    return width, height, box[0] + 0.5 * (width - 1), box[1] + 0.5 * (height - 1)


def cell_anchors(stride, size, ratios):
    window = np.array([0, 0, stride - 1, stride - 1], dtype=np.float64)
    width, height, cx, cy = extent(window)
    ratios = np.array(ratios, dtype=np.float64)
    widths = np.round(np.sqrt(width * height / ratios))
    heights = np.round(widths * ratios)
    per_ratio = corners(widths, heights, cx, cy)
    scale = np.array([size / stride], dtype=np.float64)
    rows = []
    for box in per_ratio:
        w, h, x, y = extent(box)
        rows.append(corners(w * scale, h * scale, x, y))
    return np.vstack(rows).astype(np.float32)


def main():
    print("// tools/make_rpn_goldens.py: cell anchors per (stride, size), ratios 0.5, 1, 2")
    for stride, size in zip(STRIDES, SIZES):
        anchors = cell_anchors(stride, size, ASPECT_RATIOS)
        values = ", ".join("{" + ", ".join(repr(float(v)) for v in row) + "}" for row in anchors)
        print(f"{{{stride}, {size}, {{{values}}}}},")


if __name__ == "__main__":
    main()
