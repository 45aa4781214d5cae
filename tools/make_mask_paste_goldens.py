#!/usr/bin/env python3
"""Golden cases for Mask R-CNN's mask targets and mask pasting (workloads/maskrcnn/mask_targets.h,
workloads/maskrcnn/mask_paste.h), computed with the MLPerf reference's arithmetic (maskrcnn_benchmark
as mlcommons/training object_detection/ held it for v0.5 to v0.7: Polygons.crop / resize / convert in
structures/segmentation_mask.py, project_masks_on_boxes in modeling/roi_heads/mask_head/loss.py,
expand_boxes / expand_masks / paste_mask_in_image in modeling/roi_heads/mask_head/inference.py),
restated here step by step in torch float32 and pycocotools.

Writes tests/workloads/data/maskrcnn_masks/goldens.json, one JSON object:
  "versions": torch, numpy and pycocotools versions that computed the numbers;
  "mask_size": M (28);
  "targets": {"name", "polygons": [[x0, y0, x1, y1, ...], ...] (float32 values, image pixels),
      "box": [x1, y1, x2, y2] (float32), "target": the M x M target as pycocotools' compressed RLE
      string (encode of the mask in Fortran order), "area": its set pixels};
  "paste": {"masks": [hex strings: M*M float32 bit patterns, 8 hex digits each, row by row],
      "cases": [{"name", "mask": index into "masks", "box": [x1, y1, x2, y2] (float32),
      "image_height", "image_width", "int_box": the expanded box after the int32 cast,
      "counts": the pasted mask's compressed RLE string, "area": its set pixels}]}.

Besides hand and random cases, a few are searched for where float32 rounding decides: targets with a
vertex that double arithmetic would put across pycocotools' rounding to 1/5 pixel, paste boxes whose
grown edge double arithmetic or a fused multiply-add would put across a whole pixel. Exact ties with
the threshold are kept to an unscaled paste (a resize's last bit differs between LibTorch 1.13 and
torch 2.11 there).

Every case is fixed by hand or drawn from numpy's RNG with a fixed seed, so rerunning rewrites the same
file as long as torch, numpy and pycocotools compute the same numbers. Paste cases keep to boxes where
the reference's slicing is defined (no negative slice bound; a box wholly left of or above the image
makes the reference slice from the end and fail); the tests cover those boxes by hand.

Rerun from the repository root (nothing here is needed to build or test):
    /root/.cache/mlharness/torch-2.11/bin/pip install --target /root/.cache/mlharness/pyref-extra pycocotools
    PYTHONPATH=/root/.cache/mlharness/pyref-extra /root/.cache/mlharness/torch-2.11/bin/python \\
        tools/make_mask_paste_goldens.py
"""

import importlib.metadata
import json
import os
import struct

import numpy as np
import pycocotools.mask as mask_api
import torch
import torch.nn.functional as F

OUT = os.path.join("tests", "workloads", "data", "maskrcnn_masks", "goldens.json")
M = 28


def f32(values):
    """Values as float32, written back as the doubles that hold them exactly."""
    return [float(v) for v in np.asarray(values, dtype=np.float32)]


def rle_string(mask_hw):
    encoded = mask_api.encode(np.asfortranarray(mask_hw.astype(np.uint8)[:, :, None]))[0]
    return encoded["counts"].decode("ascii")


# ---- targets: SegmentationMask.crop(box) -> resize((M, M)) -> convert("mask") ----

def reference_target(polygons, box):
    box = torch.tensor(box, dtype=torch.float32)
    parts = [torch.as_tensor(p, dtype=torch.float32) for p in polygons]
    # crop: the box's extent, at least 1 (Python's max keeps the 0-dim float32 tensor unless 1 is
    # larger); the polygons shifted by the box's corner, in float32. No clamping to the image.
    width, height = box[2] - box[0], box[3] - box[1]
    width, height = max(width, 1), max(height, 1)
    shifted = []
    for p in parts:
        q = p.clone()
        q[0::2] = p[0::2] - box[0]
        q[1::2] = p[1::2] - box[1]
        shifted.append(q)
    # resize to (M, M): ratios in double, each multiply in float32 (the scalar rounded to float32).
    ratio_w, ratio_h = float(M) / float(width), float(M) / float(height)
    scaled = []
    for q in shifted:
        if ratio_w == ratio_h:
            scaled.append(q * ratio_w)
        else:
            r = q.clone()
            r[0::2] *= ratio_w
            r[1::2] *= ratio_h
            scaled.append(r)
    # convert: frPyObjects of the float32 arrays (as doubles) on an M x M image, merged, decoded.
    rles = mask_api.frPyObjects([q.numpy() for q in scaled], M, M)
    return mask_api.decode(mask_api.merge(rles))


def box_polygon(x1, y1, x2, y2):
    return [x1, y1, x2, y1, x2, y2, x1, y2]


def hand_targets():
    square = box_polygon(10, 20, 38, 48)
    tri = [30.25, 12.5, 61.75, 40.0, 14.0, 52.5]
    return [
        ("box_aligned_square", [square], [10, 20, 38, 48]),
        ("box_aligned_square_half_scale", [box_polygon(4, 6, 60, 62)], [4, 6, 60, 62]),
        ("square_inside_larger_box", [box_polygon(20, 30, 34, 44)], [6, 16, 48, 58]),
        ("triangle_in_its_box", [tri], [14.0, 12.5, 61.75, 52.5]),
        ("triangle_wide_box", [tri], [0.0, 20.0, 90.0, 44.0]),
        ("box_partly_outside_image", [[-3.5, 4.0, 25.0, -2.0, 31.5, 40.0, 2.0, 33.0]], [-12.0, -7.5, 24.0, 30.0]),
        ("box_beyond_right_edge", [[600.0, 300.0, 655.0, 310.0, 640.0, 380.0]], [590.5, 290.25, 700.0, 392.0]),
        ("box_under_a_pixel", [[11.0, 6.0, 14.0, 6.5, 13.0, 9.0]], [12.3, 7.1, 12.8, 7.4]),
        ("box_under_a_pixel_wide", [[11.0, 6.0, 30.0, 6.5, 13.0, 9.0]], [11.5, 7.1, 29.0, 7.4]),
        ("box_zero_width", [[11.0, 6.0, 14.0, 6.5, 13.0, 9.0]], [12.5, 5.0, 12.5, 10.0]),
        ("box_inverted", [[11.0, 6.0, 14.0, 6.5, 13.0, 9.0]], [14.0, 9.0, 11.0, 5.0]),
        ("box_much_larger_than_object", [[100.0, 100.0, 104.0, 101.0, 102.0, 105.0]], [0.0, 0.0, 400.0, 300.0]),
        ("multi_part_disjoint", [box_polygon(10, 10, 20, 30), box_polygon(25, 12, 40, 28)], [8.0, 8.0, 42.0, 32.0]),
        ("multi_part_overlapping", [box_polygon(10, 10, 30, 30), [20.0, 5.0, 38.0, 20.0, 20.0, 35.0]], [9.5, 4.5, 38.5, 35.5]),
        ("multi_part_one_outside_box", [box_polygon(10, 10, 30, 30), box_polygon(200, 200, 230, 240)], [9.0, 9.0, 31.0, 31.0]),
        ("polygon_outside_box", [box_polygon(100, 100, 130, 130)], [10.0, 10.0, 40.0, 40.0]),
        ("concave_polygon", [[10.0, 10.0, 50.0, 10.0, 50.0, 50.0, 30.0, 20.0, 10.0, 50.0]], [10.0, 10.0, 50.0, 50.0]),
        ("self_intersecting_bowtie", [[10.0, 10.0, 40.0, 40.0, 40.0, 10.0, 10.0, 40.0]], [10.0, 10.0, 40.0, 40.0]),
        ("fractional_coordinates", [[10.37, 11.91, 33.13, 9.77, 37.61, 30.05, 21.49, 38.83, 9.03, 27.29]],
         [9.03, 9.77, 37.61, 38.83]),
    ]


def random_polygon(rng, cx, cy, radius):
    points = int(rng.integers(3, 13))
    angles = np.sort(rng.uniform(0, 2 * np.pi, points))
    radii = radius * rng.uniform(0.3, 1.0, points)
    xy = np.empty(2 * points)
    xy[0::2] = cx + radii * np.cos(angles)
    xy[1::2] = cy + radii * np.sin(angles)
    return f32(xy)


def random_targets(rng, count):
    cases = []
    for i in range(count):
        width, height = 640.0, 480.0
        cx, cy = rng.uniform(-20, width + 20), rng.uniform(-20, height + 20)
        radius = float(rng.choice([2.0, 8.0, 30.0, 120.0]))
        polygons = [random_polygon(rng, cx, cy, radius)]
        for _ in range(int(rng.choice([0, 0, 1, 2]))):
            polygons.append(random_polygon(rng, cx + rng.normal(0, radius), cy + rng.normal(0, radius), radius * 0.6))
        xs = np.concatenate([p[0::2] for p in polygons])
        ys = np.concatenate([p[1::2] for p in polygons])
        x1, y1, x2, y2 = xs.min(), ys.min(), xs.max(), ys.max()
        w, h = x2 - x1, y2 - y1
        kind = i % 4
        if kind == 0:  # a proposal near the object (the positives the mask loss sees)
            box = [x1 + rng.normal(0, 0.1 * w), y1 + rng.normal(0, 0.1 * h), x2 + rng.normal(0, 0.1 * w), y2 + rng.normal(0, 0.1 * h)]
        elif kind == 1:  # clipped to the image as proposals are
            box = [min(max(x1, 0), width - 1), min(max(y1, 0), height - 1), min(max(x2, 0), width - 1), min(max(y2, 0), height - 1)]
        elif kind == 2:  # a loose box
            box = [x1 - rng.uniform(0, w), y1 - rng.uniform(0, h), x2 + rng.uniform(0, w), y2 + rng.uniform(0, h)]
        else:  # a tight box that cuts part of the object off
            box = [x1 + rng.uniform(0, 0.4) * w, y1 + rng.uniform(0, 0.4) * h, x2 - rng.uniform(0, 0.4) * w, y2 - rng.uniform(0, 0.4) * h]
        cases.append(("random_%03d" % i, polygons, box))
    return cases


def double_target(polygons, box, shift_in_double):
    """The target with the scaling in double (and the shift too when asked): what an implementation
    that skips the reference's float32 rounding would give."""
    box32 = np.asarray(box, dtype=np.float32)
    width = max(box32[2] - box32[0], np.float32(1))
    height = max(box32[3] - box32[1], np.float32(1))
    ratios = (float(M) / float(width), float(M) / float(height))
    parts = []
    for p in polygons:
        p32 = np.asarray(p, dtype=np.float32)
        q = np.empty(len(p32))
        for i in range(len(p32)):
            corner = box32[i % 2]
            shifted = float(p32[i]) - float(corner) if shift_in_double else float(p32[i] - corner)
            q[i] = shifted * ratios[i % 2]
        parts.append(q)
    return mask_api.decode(mask_api.merge(mask_api.frPyObjects(parts, M, M)))


def float32_sensitive_targets(rng, wanted):
    """Boxes and triangles where the reference's float32 rounding changes the target: a vertex whose
    scaled x lands on the other side of pycocotools' rounding to 1/5 pixel in double arithmetic."""
    cases = []
    for _ in range(200):
        n = 1 << 21
        x1 = rng.uniform(0, 600, n).astype(np.float32)
        x2 = (x1 + rng.uniform(1, 300, n)).astype(np.float32)
        width = np.maximum(x2 - x1, np.float32(1))
        ratio = M / width.astype(np.float64)
        p = (x1 + rng.uniform(0, 1, n) * width).astype(np.float32)
        shifted = p - x1
        v32 = (shifted * ratio.astype(np.float32)).astype(np.float64)
        grid = lambda v: np.trunc(5 * v + 0.5)
        differs = (grid(v32) != grid(shifted.astype(np.float64) * ratio)) | \
                  (grid(v32) != grid((p.astype(np.float64) - x1.astype(np.float64)) * ratio))
        for i in np.flatnonzero(differs):
            y1 = np.float32(rng.uniform(0, 400))
            y2 = np.float32(y1 + rng.uniform(10, 200))
            h = float(y2 - y1)
            polygon = f32([p[i], y1 + 0.5 * h, x1[i] + 0.02 * (x2[i] - x1[i]), y1 + 0.1 * h, x1[i] + 0.3 * (x2[i] - x1[i]), y2 - 0.05 * h])
            box = f32([x1[i], y1, x2[i], y2])
            reference = reference_target([polygon], box)
            if any((double_target([polygon], box, d) != reference).any() for d in (False, True)):
                cases.append(("float32_rounding_%d" % len(cases), [polygon], box))
                if len(cases) == wanted:
                    return cases
    raise RuntimeError("found only %d float32-sensitive targets" % len(cases))


def target_cases():
    rng = np.random.default_rng(20240733)
    out = []
    cases = hand_targets() + random_targets(rng, 120) + float32_sensitive_targets(np.random.default_rng(7), 6)
    for name, polygons, box in cases:
        polygons = [f32(p) for p in polygons]
        box = f32(box)
        mask = reference_target(polygons, box)
        out.append({"name": name, "polygons": polygons, "box": box, "target": rle_string(mask), "area": int(mask.sum())})
    return out


# ---- paste: Masker.forward_single_image -> paste_mask_in_image, then mask.encode ----

def reference_paste(mask, box, image_height, image_width, threshold=0.5, padding=1):
    """Returns (the int32 box, the image-sized uint8 mask) or None where the reference's slicing is
    not defined."""
    size = mask.shape[-1]
    padded = mask.new_zeros((size + 2 * padding, size + 2 * padding))
    padded[padding:-padding, padding:-padding] = mask
    scale = float(size + 2 * padding) / size
    b = torch.tensor(box, dtype=torch.float32)[None]
    half_w = (b[:, 2] - b[:, 0]) * 0.5
    half_h = (b[:, 3] - b[:, 1]) * 0.5
    centre_x = (b[:, 2] + b[:, 0]) * 0.5
    centre_y = (b[:, 3] + b[:, 1]) * 0.5
    half_w *= scale
    half_h *= scale
    expanded = torch.zeros_like(b)
    expanded[:, 0] = centre_x - half_w
    expanded[:, 2] = centre_x + half_w
    expanded[:, 1] = centre_y - half_h
    expanded[:, 3] = centre_y + half_h
    x0, y0, x2, y2 = (int(v) for v in expanded[0].to(torch.int32))
    w, h = max(x2 - x0 + 1, 1), max(y2 - y0 + 1, 1)
    resized = F.interpolate(padded[None, None].to(torch.float32), size=(h, w), mode="bilinear", align_corners=False)[0, 0]
    pasted_box = resized > threshold
    left, right = max(x0, 0), min(x2 + 1, image_width)
    top, bottom = max(y0, 0), min(y2 + 1, image_height)
    if min(left, right, top, bottom, right - x0, bottom - y0) < 0:
        return None
    image = torch.zeros((image_height, image_width), dtype=torch.uint8)
    image[top:bottom, left:right] = pasted_box[top - y0:bottom - y0, left - x0:right - x0]
    return [x0, y0, x2, y2], image.numpy()


def hex_of(mask):
    return "".join("%08x" % struct.unpack("<I", struct.pack("<f", float(v)))[0] for v in mask.reshape(-1).numpy())


def random_masks(rng):
    masks = []
    yy, xx = np.meshgrid(np.arange(M) + 0.5, np.arange(M) + 0.5, indexing="ij")
    masks.append(np.ones((M, M)))                       # 0: all ones
    masks.append(np.zeros((M, M)))                      # 1: all zeros
    masks.append(rng.uniform(0, 1, (M, M)))             # 2: noise
    masks.append(0.5 + rng.uniform(-0.02, 0.02, (M, M)))  # 3: around the threshold
    for _ in range(8):                                  # 4..11: smooth blobs, as a trained head gives
        cx, cy = rng.uniform(6, 22, 2)
        rx, ry = rng.uniform(3, 13, 2)
        logits = 6 * (1 - ((xx - cx) / rx) ** 2 - ((yy - cy) / ry) ** 2) + rng.normal(0, 1.5, (M, M))
        masks.append(1 / (1 + np.exp(-logits)))
    return [torch.tensor(m, dtype=torch.float32) for m in masks]


def random_box(rng, kind, height, width):
    if kind == "inside":
        w, h = rng.uniform(4, width / 2), rng.uniform(4, height / 2)
        x, y = rng.uniform(0, width - 1 - w), rng.uniform(0, height - 1 - h)
        return [x, y, x + w, y + h]
    if kind == "border":  # clipped to the image, as the box head's detections are
        w, h = rng.uniform(4, width / 2), rng.uniform(4, height / 2)
        x = 0.0 if rng.uniform() < 0.5 else width - 1 - w
        y = 0.0 if rng.uniform() < 0.5 else height - 1 - h
        return [x, y, x + w, y + h]
    if kind == "outside":
        w, h = rng.uniform(8, width / 2), rng.uniform(8, height / 2)
        x, y = rng.uniform(-w / 2, width - w / 2), rng.uniform(-h / 2, height - h / 2)
        return [x, y, x + w, y + h]
    if kind == "tiny":
        w, h = rng.uniform(0, 1.5), rng.uniform(0, 1.5)
        x, y = rng.uniform(0, width - 2), rng.uniform(0, height - 2)
        return [x, y, x + w, y + h]
    assert kind == "large"
    return [rng.uniform(-40, 5), rng.uniform(-40, 5), rng.uniform(width - 5, width + 40), rng.uniform(height - 5, height + 40)]


def float32_sensitive_paste_boxes(rng, wanted_each, height, width):
    """Boxes whose int32 box differs from the one double arithmetic, or a fused multiply-add in
    centre -+ half * scale, would give (wanted_each of each kind): boxes whose grown edge falls within
    a few float32 steps of a whole pixel, drawn around such edges."""
    n = 1 << 18
    scale = np.float32(float(M + 2) / M)
    half_wanted = rng.uniform(1, 20, n)
    edge = rng.integers(1, width - 60, n).astype(np.float64)
    sign = np.where(rng.uniform(0, 1, n) < 0.5, -1.0, 1.0)  # the left edge (-) or the right (+)
    centre_wanted = edge - sign * half_wanted * float(scale)
    steps = rng.integers(-4, 5, (2, n))  # float32 steps off the wanted corners
    x1 = (centre_wanted - half_wanted).astype(np.float32)
    x2 = (centre_wanted + half_wanted).astype(np.float32)
    x1 = (x1.view(np.int32) + steps[0]).astype(np.int32).view(np.float32)
    x2 = (x2.view(np.int32) + steps[1]).astype(np.int32).view(np.float32)
    half = ((x2 - x1) * np.float32(0.5)).astype(np.float32)
    centre = ((x2 + x1) * np.float32(0.5)).astype(np.float32)
    product = half.astype(np.float64) * np.float64(scale)  # exact: 24 x 24 bits
    left32, right32 = np.trunc(centre - half * scale), np.trunc(centre + half * scale)
    left64 = np.trunc((x2.astype(np.float64) + x1) * 0.5 - (x2.astype(np.float64) - x1) * 0.5 * (float(M + 2) / M))
    left_fused = np.trunc((centre.astype(np.float64) - product).astype(np.float32))
    right_fused = np.trunc((centre.astype(np.float64) + product).astype(np.float32))
    found = []
    for differs in (left32 != left64, left32 != left_fused, right32 != right_fused):
        hits = np.flatnonzero(differs)[:wanted_each]
        assert len(hits) == wanted_each, "found only %d float32-sensitive paste boxes" % len(hits)
        found.extend(hits)
    boxes = []
    for i in found:
        y1 = rng.uniform(0, height - 40)
        boxes.append([x1[i], y1, x2[i], y1 + rng.uniform(4, 30)])
    return boxes


def paste_cases():
    rng = np.random.default_rng(33028)
    masks = random_masks(rng)
    random_mask_count = len(masks)
    # Exactly the threshold, pasted unscaled (values land unchanged): nothing set, the test is >. Scaled,
    # such ties fall to the interpolation's last bit, which LibTorch 1.13 and torch 2.11 round apart.
    masks.append(torch.full((M, M), 0.5))
    cases = []

    def add(name, index, box, height, width):
        box = f32(box)
        result = reference_paste(masks[index], box, height, width)
        assert result is not None, name
        int_box, image = result
        cases.append({"name": name, "mask": index, "box": box, "image_height": height, "image_width": width,
                      "int_box": int_box, "counts": rle_string(image), "area": int(image.sum())})

    # By hand: the expanded box centred on x.5 and y.5 edges (30 x 30 after the cast: the 30 x 30 padded
    # mask pasted unscaled), one whose expanded box ends on the image's first column, one starting on its right edge, a box whose
    # expanded left edge lies in (-1, 0) (the cast truncates towards 0), a zero-size box.
    add("ones_unscaled", 0, [36.466667, 16.466667, 63.533333, 43.533333], 100, 120)
    add("ones_unscaled_clipped_right", 0, [36.466667, 16.466667, 63.533333, 43.533333], 40, 50)
    add("ones_doubled", 0, [72.466667, 22.466667, 127.533333, 77.533333], 160, 200)
    add("ones_truncated_left_edge", 0, [0.2, 3.0, 20.2, 23.0], 60, 60)
    add("noise_truncated_left_edge", 2, [0.2, 3.0, 20.2, 23.0], 60, 60)
    add("ones_touching_left_edge", 0, [-30.0, 5.0, -1.0, 20.0], 40, 40)
    add("ones_starting_at_right_edge", 0, [41.0, 5.0, 56.0, 20.0], 40, 40)
    add("ones_zero_size", 0, [12.5, 7.25, 12.5, 7.25], 30, 30)
    add("zeros", 1, [5.0, 5.0, 25.0, 25.0], 30, 30)
    add("threshold_band", 3, [10.0, 10.0, 90.0, 70.0], 100, 100)
    add("exactly_threshold_unscaled", random_mask_count, [36.466667, 16.466667, 63.533333, 43.533333], 100, 120)

    sizes = [(480, 640), (427, 640), (37, 53)]
    kinds = ["inside", "border", "outside", "tiny", "large"]
    for i in range(50):
        height, width = sizes[i % len(sizes)] if i < 45 else (800, 1216)
        kind = kinds[i % len(kinds)]
        index = 2 + i % (random_mask_count - 2)
        for _ in range(100):
            box = f32(random_box(rng, kind, height, width))
            if reference_paste(masks[index], box, height, width) is not None:
                break
        add("random_%02d_%s" % (i, kind), index, box, height, width)
    for i, box in enumerate(float32_sensitive_paste_boxes(np.random.default_rng(11), 2, 480, 640)):
        add("float32_rounding_%d" % i, 4 + i, box, 480, 640)
    return [hex_of(m) for m in masks], cases


def main():
    targets = target_cases()
    masks, cases = paste_cases()
    document = {
        "versions": {"torch": torch.__version__, "numpy": np.__version__,
                     "pycocotools": importlib.metadata.version("pycocotools")},
        "mask_size": M,
        "targets": targets,
        "paste": {"masks": masks, "cases": cases},
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("{\n")
        f.write('"versions": %s,\n"mask_size": %d,\n' % (json.dumps(document["versions"]), M))
        f.write('"targets": [\n' + ",\n".join(json.dumps(t) for t in targets) + "\n],\n")
        f.write('"paste": {"masks": [\n' + ",\n".join(json.dumps(m) for m in masks) + "\n],\n")
        f.write('"cases": [\n' + ",\n".join(json.dumps(c) for c in cases) + "\n]}\n}\n")
    print("wrote %s: %d targets, %d paste cases, %d bytes" % (OUT, len(targets), len(cases), os.path.getsize(OUT)))


if __name__ == "__main__":
    main()
