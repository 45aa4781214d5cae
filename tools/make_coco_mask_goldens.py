#!/usr/bin/env python3
"""Golden cases for mlharness' COCO mask code (pycocotools' maskApi.c and COCOeval iouType 'segm').

Writes, under tests/datasets/data/coco_mask/:
  rle_cases.json: one JSON object with
    "versions": the pycocotools and numpy versions that computed the numbers;
    "polygons": {"name", "height", "width", "polygons": [[x0, y0, x1, y1, ...], ...],
        "per_polygon": [compressed RLE string of each polygon alone (rleFrPoly + rleToString)],
        "merged": compressed string of the union of the parts (as COCO.annToRLE does),
        "merged_counts": the run lengths of "merged" (column-major, starting with a zero run),
        "area": rleArea, "bbox": rleToBbox};
    "encodings": {"name", "height", "width", "counts", "string", "area", "bbox"} for dense masks
        (the mask is given by its run lengths "counts"; "string" is mask.encode's);
    "merges": {"name", "height", "width", "masks": [strings], "union", "intersection"} (rleMerge);
    "ious": {"name", "height", "width", "dt": [strings], "gt": [strings], "iscrowd": [0/1 per gt],
        "iou": [[IoU of dt i and gt j]]} (rleIou; a dt whose size is not height x width is written
        {"size": [h, w], "counts": string}, and its IoU is -1 with a gt whose box its box overlaps);
    "uncompressed": {"name", "height", "width", "counts" (list counts as COCO stores crowds, with
        zero-length runs in some), "string", "area", "bbox"} (frPyObjects of an uncompressed RLE).
  segm_eval/<case>/{instances.json, detections.json, expected_stats.json}: expected_stats.json is
    {"segm": [...], "bbox": [...]}, each a list of evaluations {"image_ids": [] (all images) or the
    ids given to COCOeval's params.imgIds, "stats": COCOeval.stats (12 numbers)}; "bbox" scores the
    same loadRes'd detections with iouType 'bbox' (boxes from the masks, or the given ones in
    "with_bbox"). segm_eval/hand/summary_segm.txt keeps summarize()'s printout of the hand case.

Every case is built deterministically (fixed numbers, or numpy's RNG with a fixed seed), so rerunning
the script rewrites the same files as long as pycocotools and numpy compute the same numbers. The
committed files were computed with pycocotools 2.0.11 and numpy 2.4.6 (Python 3.11).

pycocotools inputs this script stays away from: frPyObjects([], h, w) (IndexError: it looks at the
first polygon to guess the type); a polygon of 4 numbers (frPyObjects takes a list whose first item
has 4 numbers as boxes) or 2 (rejected); polygons of odd length (the last number is dropped
silently); uncompressed counts that do not sum to h*w (accepted; decode then reads past the runs);
merging masks of different sizes (gives an empty 0x0 RLE). One pycocotools oddity is kept: an
uncompressed RLE with no ones but an even number of runs (e.g. [72, 0] for 8x9) has the box
[w, h, 2^32 + 1 - w, 2^32 + 1 - h] (rleToBbox skips empty ones runs and wraps in uint); a mask
without runs of ones otherwise has the box [0, 0, 0, 0]. rleToBbox is the ppwwyyxx/cocoapi one that
PyPI's pycocotools ships (exact per-run boxes), not the older cocodataset/cocoapi one.

Run it from the repository root with a Python that has pycocotools (not needed to build or test):
    python3 -m venv /root/.cache/mlharness/pyref
    /root/.cache/mlharness/pyref/bin/pip install pycocotools numpy
    /root/.cache/mlharness/pyref/bin/python tools/make_coco_mask_goldens.py
"""

import json
import math
import os
import sys

import numpy as np
import pycocotools
from pycocotools import mask as mask_utils

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_coco_eval_goldens import category, evaluate, write_instances, write_list_json  # noqa: E402

OUT = os.path.join("tests", "datasets", "data", "coco_mask")


# ---------------------------------------------------------------------------------------------
# RLE helpers
# ---------------------------------------------------------------------------------------------

def string_to_counts(s):
    """maskApi.c's rleFrString: 6-bit groups, sign-extended, deltas from the count two back."""
    counts, p = [], 0
    while p < len(s):
        x, k, more = 0, 0, True
        while more:
            c = ord(s[p]) - 48
            x |= (c & 0x1F) << (5 * k)
            more = bool(c & 0x20)
            p += 1
            k += 1
            if not more and (c & 0x10):
                x |= -1 << (5 * k)
        if len(counts) > 2:
            x += counts[-2]
        counts.append(x)
    return counts


def mask_to_counts(m):
    """Run lengths of a 2-D 0/1 mask in column-major order, starting with a (maybe empty) zero run."""
    flat = np.asarray(m, dtype=np.uint8).flatten(order="F")
    counts, current, run = [], 0, 0
    for value in flat:
        if value != current:
            counts.append(run)
            current, run = value, 0
        run += 1
    counts.append(run)
    return counts


def counts_to_mask(counts, height, width):
    flat = np.zeros(height * width, dtype=np.uint8)
    position, value = 0, 0
    for c in counts:
        flat[position:position + c] = value
        position += c
        value = 1 - value
    assert position == height * width
    return flat.reshape((height, width), order="F")


def encode(m):
    return mask_utils.encode(np.asfortranarray(np.asarray(m, dtype=np.uint8)))


def rle_string(rle):
    return rle["counts"].decode() if isinstance(rle["counts"], bytes) else rle["counts"]


def rle_of(s, height, width):
    return {"size": [height, width], "counts": s.encode() if isinstance(s, str) else s}


def mask_string(m):
    return rle_string(encode(m))


def polygons_rle(polygons, height, width):
    return mask_utils.merge(mask_utils.frPyObjects(polygons, height, width))


def polygons_mask(polygons, height, width):
    return mask_utils.decode(polygons_rle(polygons, height, width))


def area_bbox(rle):
    return int(mask_utils.area(rle)), [float(v) for v in mask_utils.toBbox(rle)]


def regular_polygon(cx, cy, r, n, phase=0.0):
    poly = []
    for i in range(n):
        a = phase + 2 * math.pi * i / n
        poly += [cx + r * math.cos(a), cy + r * math.sin(a)]
    return poly


def star_polygon(rng, cx, cy, r, n, decimals=2):
    """A star-shaped (so simple) polygon: sorted angles, radii between 0.5 r and r."""
    angles = np.sort(rng.uniform(0, 2 * math.pi, size=n))
    radii = rng.uniform(0.5, 1.0, size=n) * r
    poly = []
    for a, q in zip(angles, radii):
        poly += [round(float(cx + q * math.cos(a)), decimals), round(float(cy + q * math.sin(a)), decimals)]
    return poly


def shift(m, dx, dy):
    """The mask moved dx columns right and dy rows down; pixels moved out are lost."""
    out = np.zeros_like(m)
    h, w = m.shape
    out[max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = m[max(-dy, 0):h - max(dy, 0),
                                                                    max(-dx, 0):w - max(dx, 0)]
    return out


def dilate(m, steps=1):
    for _ in range(steps):
        m = m | shift(m, 1, 0) | shift(m, -1, 0) | shift(m, 0, 1) | shift(m, 0, -1)
    return m


def erode(m, steps=1):
    for _ in range(steps):
        m = m & shift(m, 1, 0) & shift(m, -1, 0) & shift(m, 0, 1) & shift(m, 0, -1)
    return m




# ---------------------------------------------------------------------------------------------
# rle_cases.json
# ---------------------------------------------------------------------------------------------

def polygon_case(name, height, width, polygons):
    assert polygons and all(len(p) >= 6 and len(p) % 2 == 0 for p in polygons), name
    polygons = [[float(v) for v in p] for p in polygons]
    per_polygon = [rle_string(mask_utils.frPyObjects([p], height, width)[0]) for p in polygons]
    merged = polygons_rle(polygons, height, width)
    merged_string = rle_string(merged)
    merged_counts = string_to_counts(merged_string)
    assert merged_counts == mask_to_counts(mask_utils.decode(merged)), name
    area, bbox = area_bbox(merged)
    return {"name": name, "height": height, "width": width, "polygons": polygons,
            "per_polygon": per_polygon, "merged": merged_string, "merged_counts": merged_counts,
            "area": area, "bbox": bbox}


def polygon_cases():
    cases = []

    def add(name, height, width, *polygons):
        cases.append(polygon_case(name, height, width, list(polygons)))

    # Convex shapes.
    add("triangle", 16, 20, [2, 3, 15.5, 4.25, 7, 13])
    add("triangle_clockwise", 16, 20, [2, 3, 7, 13, 15.5, 4.25])
    add("rectangle_integer", 16, 20, [3, 2, 12, 2, 12, 10, 3, 10])
    add("rectangle_half", 16, 20, [2.5, 1.5, 10.5, 1.5, 10.5, 9.5, 2.5, 9.5])
    add("rectangle_tenths", 16, 20, [1.1, 2.3, 9.7, 2.3, 9.7, 8.9, 1.1, 8.9])
    add("rectangle_fifths", 16, 20, [1.2, 2.4, 9.6, 2.4, 9.6, 8.8, 1.2, 8.8])
    add("rectangle_odd_tenths", 16, 20, [0.3, 0.7, 7.9, 0.7, 7.9, 11.1, 0.3, 11.1])
    add("diamond", 24, 24, [12, 1, 23, 12, 12, 23, 1, 12])
    add("pentagon", 32, 32, regular_polygon(16, 16, 12, 5))
    add("hexagon", 32, 32, regular_polygon(15.5, 16.25, 11, 6, 0.3))
    add("octagon", 32, 32, regular_polygon(16, 16, 14.5, 8, math.pi / 8))
    add("circle_64", 64, 64, regular_polygon(31.7, 32.2, 25, 64))
    add("thin_triangle", 16, 20, [1, 1, 19, 2, 1, 3])
    # Concave shapes.
    add("star", 40, 40, [v for i in range(10) for v in
                         regular_polygon(20, 20, 18 if i % 2 == 0 else 7, 10, -math.pi / 2)[2 * i:2 * i + 2]])
    add("l_shape", 20, 20, [2, 2, 7, 2, 7, 13, 16, 13, 16, 18, 2, 18])
    add("u_shape", 20, 20, [2, 2, 6, 2, 6, 14, 13, 14, 13, 2, 17, 2, 17, 18, 2, 18])
    add("u_shape_upside_down", 20, 20, [2, 18, 6, 18, 6, 6, 13, 6, 13, 18, 17, 18, 17, 2, 2, 2])
    add("comb", 20, 30, [1, 1, 29, 1, 29, 18, 25, 18, 25, 6, 21, 6, 21, 18, 17, 18, 17, 6, 13, 6,
                         13, 18, 9, 18, 9, 6, 5, 6, 5, 18, 1, 18])
    add("spiral_arm", 24, 24, [2, 2, 22, 2, 22, 22, 6, 22, 6, 9, 16, 9, 16, 16, 11, 16, 11, 13.5,
                               13, 13.5, 13, 12, 9, 12, 9, 19, 19, 19, 19, 5, 4.5, 5, 4.5, 22, 2, 22])
    # Self-touching and self-intersecting.
    add("bow_tie", 16, 20, [2, 2, 14, 12, 14, 2, 2, 12])
    add("bow_tie_vertical", 20, 16, [2, 2, 12, 2, 2, 14, 12, 14])
    add("vertex_on_edge", 16, 20, [2, 2, 16, 2, 16, 14, 9, 2, 2, 14])
    add("pentagram", 40, 40, [v for i in (0, 2, 4, 1, 3) for v in
                              regular_polygon(20, 20, 18, 5, -math.pi / 2)[2 * i:2 * i + 2]])
    add("figure_eight", 20, 20, [2, 2, 10, 10, 18, 2, 18, 18, 10, 10, 2, 18])
    add("self_overlapping_loop", 20, 20, [2, 2, 15, 2, 15, 15, 5, 15, 5, 5, 18, 5, 18, 18, 2, 18])
    add("touching_squares_one_polygon", 20, 20, [2, 2, 10, 2, 10, 10, 18, 10, 18, 18, 10, 18, 10, 10, 2, 10])
    # Multi-part objects: holes, overlaps and separate parts (the union is the object's mask).
    add("ring_of_two_c_halves", 20, 20,
        [2, 2, 10, 2, 10, 7, 7, 7, 7, 13, 10, 13, 10, 18, 2, 18],
        [10, 2, 18, 2, 18, 18, 10, 18, 10, 13, 13, 13, 13, 7, 10, 7])
    add("ring_of_four_parts", 24, 24,
        [2, 2, 22, 2, 22, 7, 2, 7], [2, 17, 22, 17, 22, 22, 2, 22],
        [2, 7, 7, 7, 7, 17, 2, 17], [17, 7, 22, 7, 22, 17, 17, 17])
    add("overlapping_parts", 20, 24, [2, 2, 14, 2, 14, 12, 2, 12], [8.5, 6.5, 21.5, 6.5, 21.5, 18.5, 8.5, 18.5])
    add("nested_parts", 20, 20, [1, 1, 19, 1, 19, 19, 1, 19], [5, 5, 15, 5, 15, 15, 5, 15])
    add("three_disjoint_triangles", 16, 30, [1, 1, 8, 1, 4, 9], [11, 14, 19, 14, 15, 4], [22, 2, 29, 8, 22, 14])
    add("part_outside_image", 16, 20, [2, 2, 8, 2, 8, 8], [30, 30, 40, 30, 35, 40])
    add("part_and_subpixel_part", 16, 20, [2, 2, 10, 2, 10, 9, 2, 9], [14.25, 12.25, 14.75, 12.25, 14.5, 12.75])
    # Repeated points: zero-length edges.
    add("repeated_points", 16, 20, [2, 2, 2, 2, 10, 2, 10, 2, 10, 9, 2, 9, 2, 9])
    add("closed_with_first_point", 16, 20, [3, 3, 14, 4, 9, 12, 3, 3])
    add("all_points_equal", 16, 20, [5, 5, 5, 5, 5, 5])
    add("all_points_equal_half", 16, 20, [5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5])
    # Sub-pixel polygons.
    add("subpixel_in_one_pixel", 10, 10, [3.1, 3.2, 3.8, 3.3, 3.5, 3.9])
    add("subpixel_quarters", 10, 10, [4.25, 4.25, 4.75, 4.25, 4.5, 4.75])
    add("subpixel_corner_quarters", 10, 10, [0.25, 0.25, 0.75, 0.25, 0.25, 0.75])
    add("subpixel_around_pixel_center", 10, 10, [5.4, 5.4, 5.6, 5.4, 5.5, 5.6])
    add("subpixel_square_quarters", 10, 10, [2.25, 2.25, 2.75, 2.25, 2.75, 2.75, 2.25, 2.75])
    add("subpixel_across_pixel_corner", 10, 10, [2.8, 2.8, 3.2, 2.8, 3.2, 3.2, 2.8, 3.2])
    add("tiny_triangle_three_quarters", 10, 10, [6.75, 1.25, 7.75, 1.25, 7.25, 2.25])
    # On the border, partly or wholly outside the image.
    add("whole_image_exact", 12, 15, [0, 0, 15, 0, 15, 12, 0, 12])
    add("whole_image_last_pixel_centers", 12, 15, [0, 0, 14, 0, 14, 11, 0, 11])
    add("whole_image_and_beyond", 12, 15, [-10, -10, 25, -10, 25, 22, -10, 22])
    add("left_top_border", 16, 20, [0, 0, 8, 0, 0, 8])
    add("right_bottom_border", 16, 20, [20, 16, 12, 16, 20, 8])
    add("negative_coordinates", 16, 20, [-5, -3, 10, -2, 8, 9, -4, 7])
    add("slightly_negative", 8, 8, [-0.15, -0.05, 4.5, -0.35, 4.2, 3.8, -0.25, 4.4])
    add("beyond_width_height", 16, 20, [10, 5, 30, 4, 28, 20, 12, 18])
    add("wholly_outside_right", 16, 20, [25, 5, 35, 5, 30, 12])
    add("wholly_outside_negative", 16, 20, [-10, -10, -2, -10, -5, -2])
    add("wholly_below", 16, 20, [2, 17, 10, 17, 6, 25])
    add("far_vertex", 30, 30, [2, 2, 1000, 15, 2, 28])
    add("far_negative_vertex", 30, 30, [28, 2, -900, -15, 28, 28])
    # Exact .5 and .1 coordinates (rounding of the 5x upsampled edges).
    add("half_steps", 12, 12, [0.5, 0.5, 5.5, 0.5, 5.5, 3.5, 8.5, 3.5, 8.5, 10.5, 0.5, 10.5])
    add("tenth_steps", 12, 12, [0.1, 0.2, 7.3, 0.4, 9.9, 6.7, 4.6, 11.8, 0.9, 8.3])
    add("diagonal_half_slope", 12, 12, [0.5, 0.5, 11.5, 6, 0.5, 11.5])
    # Slivers and lines.
    add("sliver_one_pixel", 16, 20, [2, 5, 18, 5, 18, 6, 2, 6])
    add("sliver_pixel_centers", 16, 20, [2, 5.5, 18, 5.5, 18, 6.5, 2, 6.5])
    add("sliver_thin", 16, 20, [2, 5.2, 18, 5.2, 18, 5.5, 2, 5.5])
    add("sliver_vertical", 16, 20, [7.1, 1, 7.6, 1, 7.6, 15, 7.1, 15])
    add("sliver_diagonal", 20, 20, [1, 1, 2, 1, 19, 18, 18, 18])
    add("line_vertical", 16, 20, [5, 2, 5, 12, 5, 7])
    add("line_horizontal", 16, 20, [2, 8, 15, 8, 9, 8])
    add("line_diagonal", 16, 20, [1, 1, 10, 10, 5, 5])
    add("line_vertical_half", 16, 20, [5.5, 2.5, 5.5, 12.5, 5.5, 7.5])
    # Large images.
    add("large_640x480", 480, 640, [20.5, 30.25, 600, 12, 630.75, 250.5, 400, 470, 120.3, 440.7,
                                    300, 240, 10, 300])
    add("large_640x480_multipart", 480, 640, regular_polygon(160, 240, 150, 40),
        regular_polygon(470, 200, 140, 7, 0.2))
    add("large_1200x1000", 1000, 1200, [50, 40, 1150, 60, 1190, 950, 600, 990, 300, 700, 5, 980,
                                        200, 400])
    # Small images.
    add("image_1x1_full", 1, 1, [0, 0, 1, 0, 1, 1, 0, 1])
    add("image_1x1_subpixel", 1, 1, [0.25, 0.25, 0.75, 0.25, 0.5, 0.75])
    add("image_1x1_beyond", 1, 1, [-1, -1, 2, -1, 2, 2, -1, 2])
    add("image_3x2", 2, 3, [0.2, 0.1, 2.9, 0.6, 1.3, 1.9])
    add("image_3x2_full", 2, 3, [0, 0, 3, 0, 3, 2, 0, 2])
    add("image_1x7", 7, 1, [0, 1, 1, 1, 1, 5.5, 0, 5.5])
    add("image_7x1", 1, 7, [1.5, 0, 6, 0, 6, 1, 1.5, 1])
    add("image_7x1_triangle", 1, 7, [0, 0, 7, 0.5, 0, 1])

    # Random polygons: vertex order random (mostly self-intersecting) or star-shaped, coordinates
    # in and up to 15% beyond a random image, full-precision floats or COCO-like 2 decimals.
    rng = np.random.RandomState(1234)
    for i in range(32):
        height, width = int(rng.randint(1, 121)), int(rng.randint(1, 121))
        if i % 8 == 7:
            height, width = int(rng.randint(1, 6)), int(rng.randint(1, 6))
        n = int(rng.randint(3, 21))
        if i % 3 == 0:
            poly = star_polygon(rng, width * rng.uniform(0.2, 0.8), height * rng.uniform(0.2, 0.8),
                                max(width, height) * rng.uniform(0.1, 0.7), n, decimals=17)
        else:
            xs = rng.uniform(-0.15, 1.15, size=n) * width
            ys = rng.uniform(-0.15, 1.15, size=n) * height
            poly = [float(v) for xy in zip(xs, ys) for v in xy]
        if i % 2 == 0:
            poly = [round(v, 2) for v in poly]
        polygons = [poly]
        if i % 5 == 4:  # a second part
            m = int(rng.randint(3, 9))
            polygons.append([round(float(v), 2) for xy in zip(rng.uniform(0, width, size=m),
                                                             rng.uniform(0, height, size=m)) for v in xy])
        add("random_%02d" % i, height, width, *polygons)
    return cases


def encoding_case(name, m):
    m = np.asarray(m, dtype=np.uint8)
    height, width = m.shape
    rle = encode(m)
    s = rle_string(rle)
    counts = mask_to_counts(m)
    assert string_to_counts(s) == counts, name
    area, bbox = area_bbox(rle)
    return {"name": name, "height": height, "width": width, "counts": counts, "string": s,
            "area": area, "bbox": bbox}


def encoding_cases():
    cases = []

    def add(name, m):
        cases.append(encoding_case(name, m))

    add("empty", np.zeros((4, 5)))
    add("full", np.ones((4, 5)))
    add("empty_1x1", np.zeros((1, 1)))
    add("full_1x1", np.ones((1, 1)))
    for corner, (y, x) in [("top_left", (0, 0)), ("top_right", (0, 3)), ("bottom_left", (4, 0)),
                           ("bottom_right", (4, 3))]:
        m = np.zeros((5, 4))
        m[y, x] = 1
        add("pixel_" + corner, m)
    add("checkerboard_6x5", np.indices((6, 5)).sum(axis=0) % 2)
    add("checkerboard_5x7_inverse", 1 - np.indices((5, 7)).sum(axis=0) % 2)
    add("first_pixel_set", np.pad(np.ones((3, 2)), ((0, 4), (0, 3))))
    add("all_but_first_pixel", 1 - np.pad(np.ones((1, 1)), ((0, 6), (0, 4))))
    add("all_but_last_pixel", 1 - np.pad(np.ones((1, 1)), ((6, 0), (4, 0))))
    add("row_mask_1x9", [[0, 1, 1, 0, 1, 0, 0, 0, 1]])
    add("column_mask_9x1", [[1], [1], [0], [1], [0], [0], [1], [1], [1]])
    add("stripes_horizontal", np.tile([[1], [0], [0]], (4, 6)))
    add("stripes_vertical", np.tile([[1, 1, 0]], (5, 4)))
    for seed, density, shape in [(1, 0.1, (12, 10)), (2, 0.5, (12, 10)), (3, 0.9, (12, 10)),
                                 (4, 0.5, (7, 23)), (5, 0.03, (40, 30)), (6, 0.97, (40, 30))]:
        rng = np.random.RandomState(seed)
        add("random_seed%d_density%g" % (seed, density), rng.uniform(size=shape) < density)
    # Blocks: growing then shrinking runs, so that the deltas from the count two back are positive
    # and negative, small and multi-character.
    m = np.zeros((300, 200))
    m[10:290, 20:60] = 1
    m[100:110, 60:180] = 1
    m[0:300, 180:185] = 1
    add("blocks_300x200", m)
    # Runs over 1e6 pixels: full columns of an 1100x1000 image, with a small hole and a dot.
    m = np.zeros((1100, 1000))
    m[:, 10:990] = 1
    m[500:503, 400:402] = 0
    m[7, 995] = 1
    add("long_runs_1100x1000", m)
    m = np.zeros((1100, 1000))
    m[3:1097, 5:995] = 1
    add("block_1100x1000", m)
    # 2000x1500, nearly full: a few unset pixels, so the counts swing between ~1e6 and 1.
    m = np.ones((2000, 1500))
    for y, x in [(0, 0), (1999, 3), (17, 520), (18, 520), (1000, 1300), (1999, 1499)]:
        m[y, x] = 0
    add("nearly_full_2000x1500", m)
    m = np.ones((2000, 1500))
    m[:, 700:702] = 0
    m[1500, 1400] = 0
    add("full_with_gap_2000x1500", m)
    m = np.zeros((2000, 1500))
    m[1234, 1] = 1
    m[5, 1499] = 1
    add("nearly_empty_2000x1500", m)
    return cases


def merge_cases():
    cases = []
    h, w = 12, 10

    def box(x0, y0, x1, y1):
        m = np.zeros((h, w), dtype=np.uint8)
        m[y0:y1, x0:x1] = 1
        return m

    def add(name, masks):
        rles = [encode(m) for m in masks]
        cases.append({"name": name, "height": h, "width": w, "masks": [rle_string(r) for r in rles],
                      "union": rle_string(mask_utils.merge(rles, intersect=False)),
                      "intersection": rle_string(mask_utils.merge(rles, intersect=True))})

    empty = np.zeros((h, w), dtype=np.uint8)
    full = np.ones((h, w), dtype=np.uint8)
    add("two_disjoint", [box(0, 0, 3, 4), box(5, 6, 9, 11)])
    add("two_overlapping", [box(1, 1, 6, 7), box(3, 4, 9, 12)])
    add("two_nested", [box(0, 0, 10, 12), box(3, 3, 6, 8)])
    add("two_identical", [box(2, 2, 7, 9), box(2, 2, 7, 9)])
    add("one_empty", [box(2, 2, 7, 9), empty])
    add("empty_first", [empty, box(2, 2, 7, 9)])
    add("both_empty", [empty, empty])
    add("with_full", [full, box(4, 1, 6, 3)])
    add("same_columns_touching", [box(2, 0, 5, 6), box(2, 6, 5, 12)])
    add("three_overlapping", [box(0, 0, 6, 6), box(3, 3, 9, 9), box(4, 1, 10, 12)])
    add("three_disjoint", [box(0, 0, 2, 2), box(4, 4, 6, 6), box(8, 8, 10, 12)])
    add("three_one_empty", [box(0, 0, 6, 6), empty, box(3, 3, 9, 9)])
    add("three_nested", [full, box(1, 1, 9, 11), box(3, 3, 6, 8)])
    add("single", [box(1, 2, 8, 5)])
    rng = np.random.RandomState(11)
    add("three_random", [(rng.uniform(size=(h, w)) < d).astype(np.uint8) for d in (0.5, 0.6, 0.7)])
    add("two_random_first_pixel", [np.pad(rng.uniform(size=(h - 1, w)) < 0.5, ((1, 0), (0, 0)),
                                          constant_values=1).astype(np.uint8),
                                   (rng.uniform(size=(h, w)) < 0.5).astype(np.uint8)])
    return cases


def iou_cases():
    cases = []
    h, w = 12, 10

    def box(x0, y0, x1, y1, height=h, width=w):
        m = np.zeros((height, width), dtype=np.uint8)
        m[y0:y1, x0:x1] = 1
        return m

    def add(name, dts, gts, iscrowd):
        dt_rles, gt_rles = [encode(m) for m in dts], [encode(m) for m in gts]
        assert all(m.shape == (h, w) for m in gts)
        # A dt of another size than the case's is written with its size, as a detection would be.
        dt_entries = [rle_string(r) if m.shape == (h, w) else {"size": list(m.shape), "counts": rle_string(r)}
                      for m, r in zip(dts, dt_rles)]
        cases.append({"name": name, "height": h, "width": w, "dt": dt_entries,
                      "gt": [rle_string(r) for r in gt_rles], "iscrowd": iscrowd,
                      "iou": mask_utils.iou(dt_rles, gt_rles, iscrowd).tolist()})

    empty = np.zeros((h, w), dtype=np.uint8)
    l_shape = box(0, 0, 2, 12) | box(0, 10, 10, 12)
    l_complement = box(2, 0, 10, 10)
    add("identical", [box(1, 1, 6, 7)], [box(1, 1, 6, 7)], [0])
    add("identical_crowd", [box(1, 1, 6, 7)], [box(1, 1, 6, 7)], [1])
    add("overlap", [box(1, 1, 6, 7)], [box(3, 2, 9, 10)], [0])
    add("overlap_crowd", [box(1, 1, 6, 7)], [box(3, 2, 9, 10)], [1])
    add("dt_inside_crowd", [box(3, 3, 5, 5)], [box(0, 0, 10, 12)], [1])
    add("gt_inside_dt", [box(0, 0, 10, 12)], [box(3, 3, 5, 5)], [0])
    add("empty_dt", [empty], [box(1, 1, 6, 7)], [0])
    add("empty_dt_crowd", [empty], [box(1, 1, 6, 7)], [1])
    add("empty_gt", [box(1, 1, 6, 7)], [empty], [0])
    add("empty_gt_crowd", [box(1, 1, 6, 7)], [empty], [1])
    add("both_empty", [empty], [empty], [0])
    add("disjoint", [box(0, 0, 3, 3)], [box(5, 5, 9, 9)], [0])
    add("disjoint_boxes_overlap", [l_shape], [l_complement], [0])
    add("disjoint_boxes_overlap_crowd", [l_shape], [l_complement], [1])
    add("checkerboards", [np.indices((h, w)).sum(axis=0) % 2], [1 - np.indices((h, w)).sum(axis=0) % 2], [0])
    add("many", [box(0, 0, 5, 5), box(4, 4, 10, 12), empty, box(0, 0, 10, 12)],
        [box(1, 1, 5, 6), box(5, 5, 10, 10), box(0, 6, 4, 12)], [0, 1, 0])
    rng = np.random.RandomState(21)
    add("random", [(rng.uniform(size=(h, w)) < d).astype(np.uint8) for d in (0.2, 0.5, 0.8)],
        [(rng.uniform(size=(h, w)) < d).astype(np.uint8) for d in (0.3, 0.6)], [0, 1])
    # The dt has another size than the gts: -1 where the boxes overlap, 0 where they do not.
    add("different_size", [box(0, 0, 5, 5, 14, 10)], [box(1, 1, 6, 7), box(6, 8, 10, 12)], [0, 1])
    add("different_size_width", [box(2, 2, 8, 8, 12, 11), box(8, 9, 11, 12, 12, 11)],
        [box(1, 1, 6, 7)], [0])
    add("mixed_sizes", [box(0, 0, 5, 5), box(0, 0, 5, 5, 14, 10)], [box(1, 1, 6, 7), box(2, 2, 4, 4)], [0, 1])
    return cases


def uncompressed_cases():
    cases = []

    def add(name, height, width, counts):
        assert sum(counts) == height * width, name
        rle = mask_utils.frPyObjects({"size": [height, width], "counts": counts}, height, width)
        area, bbox = area_bbox(rle)
        cases.append({"name": name, "height": height, "width": width, "counts": counts,
                      "string": rle_string(rle), "area": area, "bbox": bbox})

    add("plain", 10, 10, [12, 5, 5, 5, 73])
    add("first_pixel_set", 10, 10, [0, 5, 5, 5, 85])
    add("zero_runs_inside", 10, 10, [0, 5, 0, 3, 10, 2, 80])
    add("zero_run_then_ones", 10, 10, [5, 0, 3, 2, 0, 90])
    add("zero_runs_at_end", 10, 10, [20, 10, 70, 0])
    add("zero_runs_at_end_pairs", 10, 10, [20, 10, 70, 0, 0, 0])
    add("many_zero_runs", 6, 5, [0, 0, 0, 4, 0, 0, 3, 0, 2, 21])
    add("empty", 8, 9, [72])
    # No ones but an even number of runs: rleToBbox skips the empty ones runs and writes xs=w,
    # ys=h, w=1-w, h=1-h in uint arithmetic: [9, 8, 4294967288, 4294967289].
    add("empty_with_zero_runs", 8, 9, [72, 0, 0])
    add("empty_with_zero_ones_run", 8, 9, [72, 0])
    add("full", 8, 9, [0, 72])
    add("full_split", 8, 9, [0, 30, 0, 42])
    add("ones_only_in_last_column", 8, 9, [64, 8])
    add("zero_ones_run_at_column_end", 8, 9, [8, 0, 16, 3, 45])
    add("single_pixel", 1, 1, [0, 1])
    add("single_pixel_empty", 1, 1, [1])
    add("row_1x7", 1, 7, [1, 2, 0, 1, 3])
    add("crowd_like_480x640", 480, 640, [50000, 2000, 478, 2000, 478, 2002, 100000, 4000, 0, 1,
                                         480 * 640 - 160959])
    # A crowd region from a polygon, as COCO's uncompressed crowds come from masks.
    m = polygons_mask([[5, 3, 40, 8, 37, 30, 10, 26]], 32, 48)
    add("from_polygon", 32, 48, mask_to_counts(m))
    return cases


def write_rle_cases():
    path = os.path.join(OUT, "rle_cases.json")
    sections = [("polygons", polygon_cases()), ("encodings", encoding_cases()), ("merges", merge_cases()),
                ("ious", iou_cases()), ("uncompressed", uncompressed_cases())]
    with open(path, "w") as f:
        f.write('{"versions": ' + json.dumps({"pycocotools": pycocotools_version(),
                                              "numpy": np.__version__}))
        for key, items in sections:
            f.write(',\n"%s": [\n' % key + ",\n".join(json.dumps(i) for i in items) + "\n]")
        f.write("}\n")
    print("rle_cases.json:", ", ".join("%d %s" % (len(items), key) for key, items in sections))


def pycocotools_version():
    version = getattr(pycocotools, "__version__", None)
    if version is None:
        from importlib.metadata import version as package_version
        version = package_version("pycocotools")
    return version


# ---------------------------------------------------------------------------------------------
# segm_eval/<case>
# ---------------------------------------------------------------------------------------------

def image(image_id, width, height):
    return {"id": image_id, "file_name": "%012d.jpg" % image_id, "width": width, "height": height}




def annotation(ann_id, im, category_id, segmentation, area=None, iscrowd=0):
    """A ground-truth object. segmentation: polygons (a list), or a 0/1 mask (numpy), written as
    uncompressed RLE (list counts) when iscrowd, else as a compressed RLE string. The bbox is the
    mask's box and the area the mask's unless given."""
    height, width = im["height"], im["width"]
    if isinstance(segmentation, list):
        rle = polygons_rle(segmentation, height, width)
    else:
        rle = encode(segmentation)
        if iscrowd:
            segmentation = {"size": [height, width], "counts": mask_to_counts(segmentation)}
        else:
            segmentation = {"size": [height, width], "counts": rle_string(rle)}
    mask_area, bbox = area_bbox(rle)
    return {"id": ann_id, "image_id": im["id"], "category_id": category_id, "bbox": bbox,
            "area": mask_area if area is None else area, "iscrowd": iscrowd,
            "segmentation": segmentation}


def detection(im, category_id, segmentation, score, bbox=None):
    """A detection: segmentation a 0/1 mask (numpy) or polygons, written as a compressed RLE."""
    height, width = im["height"], im["width"]
    if isinstance(segmentation, list):
        rle = polygons_rle(segmentation, height, width)
    else:
        rle = encode(segmentation)
    d = {"image_id": im["id"], "category_id": category_id,
         "segmentation": {"size": [height, width], "counts": rle_string(rle)}, "score": score}
    if bbox is not None:
        d["bbox"] = bbox
    return d


def ann_mask(ann, im):
    seg = ann["segmentation"]
    if isinstance(seg, list):
        return polygons_mask(seg, im["height"], im["width"])
    if isinstance(seg["counts"], list):
        return counts_to_mask(seg["counts"], im["height"], im["width"])
    return mask_utils.decode(rle_of(seg["counts"], im["height"], im["width"]))






def write_case(name, images, categories, annotations, detections, subsets=(), keep_summary=False):
    folder = os.path.join(OUT, "segm_eval", name)
    os.makedirs(folder, exist_ok=True)
    instances_path = os.path.join(folder, "instances.json")
    detections_path = os.path.join(folder, "detections.json")
    write_instances(instances_path, images, categories, annotations)
    write_list_json(detections_path, detections)
    expected = {}
    for iou_type in ("segm", "bbox"):
        expected[iou_type] = []
        for image_ids in [[]] + [list(s) for s in subsets]:
            stats, summary = evaluate(instances_path, detections_path, image_ids, iou_type)
            expected[iou_type].append({"image_ids": image_ids, "stats": stats})
            if keep_summary and iou_type == "segm" and not image_ids:
                with open(os.path.join(folder, "summary_segm.txt"), "w") as f:
                    f.write(summary)
    with open(os.path.join(folder, "expected_stats.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print("%s: %d images, %d annotations, %d detections" % (name, len(images), len(annotations),
                                                            len(detections)))
    for iou_type in ("segm", "bbox"):
        for e in expected[iou_type]:
            print("  %s %-9s %s" % (iou_type, "all" if not e["image_ids"] else "subset",
                                    " ".join("%.4f" % s for s in e["stats"])))


def box_mask(im, x0, y0, x1, y1):
    m = np.zeros((im["height"], im["width"]), dtype=np.uint8)
    m[y0:y1, x0:x1] = 1
    return m


def hand():
    images = [image(1, 100, 80), image(2, 120, 90), image(3, 64, 48), image(4, 80, 60), image(5, 200, 150)]
    im1, im2, im3, im4, im5 = images
    categories = [category(1), category(2), category(3)]
    triangle = [[10, 10, 40, 12.5, 20.5, 38]]
    two_parts = [[50, 5, 70, 5, 70, 25, 50, 25], [75.5, 5.5, 95.5, 5.5, 95.5, 25.5, 75.5, 25.5]]
    crowd_region = box_mask(im1, 5, 45, 60, 78)
    disc = polygons_mask([regular_polygon(40, 45, 15, 32)], im2["height"], im2["width"])
    l_shape = [[70, 10, 80, 10, 80, 50, 110, 50, 110, 60, 70, 60]]
    l_complement = [[80, 10, 110, 10, 110, 50, 80, 50]]
    ring = [[10, 5, 30, 5, 30, 15, 20, 15, 20, 35, 30, 35, 30, 45, 10, 45],
            [30, 5, 50, 5, 50, 45, 30, 45, 30, 35, 40, 35, 40, 15, 30, 15]]
    annotations = [
        annotation(1, im1, 1, triangle),                       # a polygon
        annotation(2, im1, 1, two_parts),                      # two parts, one object
        annotation(3, im1, 1, crowd_region, iscrowd=1),        # a crowd region (uncompressed RLE)
        annotation(4, im2, 1, disc, area=2000),                # compressed RLE; medium by its area
        annotation(5, im2, 2, l_shape),                        # an L whose box holds its complement
        annotation(6, im4, 2, [[5, 5, 40, 5, 40, 40, 5, 40]]),  # never detected
        annotation(7, im5, 1, ring),                           # a ring: two C halves, a hole
        annotation(8, im5, 2, [[120, 20, 190, 20, 190, 40, 120, 40]], area=900),  # large mask, medium area
        annotation(9, im5, 2, [[120, 100, 125, 100, 125, 104, 120, 104]]),        # small
        annotation(10, im5, 1, box_mask(im5, 150, 60, 190, 140), iscrowd=1),     # crowd
        annotation(11, im5, 3, [[10, 50, 140, 50, 140, 148, 80, 148, 75, 120, 70, 148, 10, 148]]),  # large
        annotation(12, im4, 1, [[50, 10, 78, 10, 78, 58, 50, 58]], area=12000),  # medium mask, large area
    ]
    detections = [
        detection(im1, 1, triangle, 0.9),                      # IoU 1 with object 1
        detection(im1, 1, two_parts[:1], 0.8),                 # one part of object 2: IoU ~0.5
        detection(im1, 1, box_mask(im1, 10, 50, 30, 70), 0.95),  # inside the crowd: ignored
        detection(im1, 1, box_mask(im1, 30, 50, 55, 75), 0.6),   # inside the crowd too
        detection(im1, 1, box_mask(im1, 40, 40, 90, 78), 0.7),   # partly on the crowd: a false positive
        detection(im2, 1, dilate(disc), 0.7),                  # object 4, dilated
        detection(im2, 1, erode(disc), 0.7),                   # a tied duplicate, eroded
        detection(im2, 2, l_complement, 0.85),                 # mask IoU 0 with object 5, box IoU 0.6
        detection(im2, 2, shift(polygons_mask(l_shape, 90, 120), 2, 1), 0.5),  # object 5 shifted
        detection(im3, 1, box_mask(im3, 5, 5, 20, 20), 0.4),   # an image without objects
        detection(im3, 1, np.zeros((48, 64), dtype=np.uint8), 0.3),  # an empty mask: area 0
        detection(im3, 3, box_mask(im3, 30, 10, 60, 40), 0.9),  # category 3 has no objects
        detection(im3, 99, box_mask(im3, 30, 10, 60, 40), 0.9),  # category 99 is not declared
        detection(im5, 1, [[10, 5, 50, 5, 50, 45, 10, 45]], 0.8),  # the ring with its hole filled
        detection(im5, 1, ring, 0.75),                         # the ring: a duplicate after the above
        detection(im5, 2, [[121, 21, 189, 21, 189, 39, 121, 39]], 0.65),  # object 8
        detection(im5, 2, [[119.5, 99.5, 124.5, 99.5, 124.5, 103.5, 119.5, 103.5]], 0.65),  # object 9
        detection(im5, 1, box_mask(im5, 155, 70, 185, 130), 0.55),  # inside crowd 10
        detection(im5, 1, box_mask(im5, 150, 60, 190, 140), 0.2),   # exactly crowd 10
        detection(im5, 3, [[12, 52, 138, 52, 138, 146, 12, 146]], 0.6),  # object 11 without its notch
        detection(im4, 1, [[50, 10, 78, 10, 78, 58, 50, 58]], 0.6),    # object 12: medium by its mask
        detection(im4, 1, box_mask(im4, 0, 0, 80, 60), 0.6),           # a medium false positive over the image, tied
    ]
    write_case("hand", images, categories, annotations, detections, subsets=[[1, 2], [5]], keep_summary=True)


def random_case(name, seed, n_images, category_ids, crowded_image):
    """Random objects (star polygons, sometimes two parts, some compressed RLE, a few crowds as
    uncompressed RLE, some areas off the mask's), shifted, dilated, eroded and noisy re-rasterised
    detections, duplicates, wrong classes, stray blobs, detections in crowds, scores with 2
    decimals (ties), images without objects, and one image with over 100 detections."""
    rng = np.random.RandomState(seed)
    images = [image(i, int(rng.randint(60, 321)), int(rng.randint(60, 321))) for i in range(1, n_images + 1)]
    categories = [category(c) for c in category_ids]
    annotations, detections = [], []
    for im in images:
        width, height = im["width"], im["height"]
        n_objects = 0 if im["id"] % 10 == 0 else int(rng.randint(1, 6))
        n_stray = 105 if im["id"] == crowded_image else int(rng.randint(0, 4))
        for _ in range(n_objects):
            c = int(rng.choice(category_ids))
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            if rng.uniform() < 0.15:  # a big one, central: large (area > 96^2) where the image allows
                r = float(rng.uniform(0.35, 0.55) * min(width, height))
                cx, cy = width * rng.uniform(0.4, 0.6), height * rng.uniform(0.4, 0.6)
            else:
                r = float(np.exp(rng.uniform(np.log(3), np.log(min(width, height) * 0.4))))
            polygons = [star_polygon(rng, cx, cy, r, int(rng.randint(3, 13)))]
            if rng.uniform() < 0.2:
                polygons.append(star_polygon(rng, cx + rng.uniform(-2, 2) * r, cy + rng.uniform(-2, 2) * r,
                                             r * rng.uniform(0.3, 1), int(rng.randint(3, 9))))
            mask = polygons_mask(polygons, height, width)
            crowd = int(rng.uniform() < 0.07)
            kind = rng.uniform()
            segmentation = mask if crowd or kind < 0.12 else polygons
            area = None
            if rng.uniform() < 0.1:
                area = round(float(mask.sum() * rng.uniform(0.4, 2.5)), 2)
            annotations.append(annotation(len(annotations) + 1, im, c, segmentation, area, crowd))
            if crowd:
                ys, xs = np.nonzero(mask)
                for _ in range(int(rng.randint(0, 3)) if len(xs) else 0):
                    j = int(rng.randint(len(xs)))
                    blob = mask & box_mask(im, max(xs[j] - 4, 0), max(ys[j] - 4, 0), xs[j] + 5, ys[j] + 5)
                    detections.append(detection(im, c, blob, round(float(rng.uniform(0.05, 1)), 2)))
                continue
            for _ in range(int(rng.choice([0, 1, 1, 1, 2]))):
                how = rng.randint(4)
                if how == 0:
                    d = shift(mask, int(rng.randint(-3, 4)), int(rng.randint(-3, 4)))
                elif how == 1:
                    d = dilate(mask, int(rng.randint(1, 3)))
                elif how == 2:
                    d = erode(mask, 1)
                else:
                    d = [[round(float(v + rng.normal(0, 0.08 * r)), 2) for v in p] for p in polygons]
                dc = c if rng.uniform() < 0.9 else int(rng.choice(category_ids))
                detections.append(detection(im, dc, d, round(float(rng.uniform(0.05, 1)), 2)))
        for _ in range(n_stray):
            r = float(np.exp(rng.uniform(np.log(2), np.log(25))))
            d = [star_polygon(rng, rng.uniform(0, width), rng.uniform(0, height), r, int(rng.randint(3, 8)))]
            detections.append(detection(im, int(rng.choice(category_ids)), d,
                                        round(float(rng.uniform(0.05, 0.6)), 2)))
    subset = [i for i in range(1, n_images + 1) if i % 4 == 1] + [crowded_image]
    write_case(name, images, categories, annotations, detections, subsets=[sorted(set(subset))])


def with_bbox():
    """Detections carrying a "bbox" besides the mask: loadRes takes the bbox branch, so a
    detection's area is the bbox's w*h (not the mask's), and 'bbox' scores these boxes. The boxes
    are the masks' boxes scaled about their centres by 0.8 to 1.5 (mostly 1.2)."""
    rng = np.random.RandomState(77)
    images = [image(i, int(rng.randint(60, 321)), int(rng.randint(60, 321))) for i in range(1, 21)]
    category_ids = [1, 2, 4]
    categories = [category(c) for c in category_ids]
    annotations, detections = [], []
    for im in images:
        width, height = im["width"], im["height"]
        for _ in range(int(rng.randint(1, 5))):
            c = int(rng.choice(category_ids))
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            if rng.uniform() < 0.2:  # a big one, central
                r = float(rng.uniform(0.35, 0.55) * min(width, height))
                cx, cy = width * rng.uniform(0.4, 0.6), height * rng.uniform(0.4, 0.6)
            else:
                r = float(np.exp(rng.uniform(np.log(4), np.log(min(width, height) * 0.4))))
            polygons = [star_polygon(rng, cx, cy, r, int(rng.randint(3, 11)))]
            mask = polygons_mask(polygons, height, width)
            annotations.append(annotation(len(annotations) + 1, im, c, polygons))
            for _ in range(int(rng.choice([0, 1, 1, 2]))):
                how = rng.randint(3)
                if how == 0:
                    d = shift(mask, int(rng.randint(-3, 4)), int(rng.randint(-3, 4)))
                elif how == 1:
                    d = dilate(mask, 1)
                else:
                    d = [[round(float(v + rng.normal(0, 0.06 * r)), 2) for v in p] for p in polygons]
                if isinstance(d, list):
                    d = polygons_mask(d, height, width)
                if d.sum() == 0:
                    continue
                detections.append(detection(im, c, d, round(float(rng.uniform(0.05, 1)), 2)))
        for _ in range(int(rng.randint(0, 4))):
            r = float(np.exp(rng.uniform(np.log(2), np.log(30))))
            d = polygons_mask([star_polygon(rng, rng.uniform(0, width), rng.uniform(0, height), r, 5)], height, width)
            if d.sum() > 0:
                detections.append(detection(im, int(rng.choice(category_ids)), d,
                                            round(float(rng.uniform(0.05, 0.7)), 2)))
    for d in detections:
        x, y, w, h = area_bbox(rle_of(d["segmentation"]["counts"], *d["segmentation"]["size"]))[1]
        scale = float(rng.choice([1.2, 1.2, 1.2, 0.8, 1.5]))
        cx, cy = x + w / 2, y + h / 2
        d["bbox"] = [round(cx - w * scale / 2, 2), round(cy - h * scale / 2, 2), round(w * scale, 2),
                     round(h * scale, 2)]
    # "bbox" first in each entry, as a detector would write it.
    detections = [{"image_id": d["image_id"], "category_id": d["category_id"], "bbox": d["bbox"],
                   "segmentation": d["segmentation"], "score": d["score"]} for d in detections]
    write_case("with_bbox", images, categories, annotations, detections, subsets=[list(range(1, 11))])


def main():
    if not os.path.isdir(os.path.join("tests", "datasets")):
        sys.exit("run from the repository root")
    os.makedirs(OUT, exist_ok=True)
    write_rle_cases()
    hand()
    random_case("random_1", 101, 60, [1, 2, 3], crowded_image=7)
    random_case("random_2", 202, 60, [1, 3, 7, 8], crowded_image=33)
    random_case("random_3", 303, 60, [2, 5, 6, 9, 11], crowded_image=58)
    with_bbox()


if __name__ == "__main__":
    main()
