#!/usr/bin/env python3
"""Golden cases for Mask R-CNN's ROIAlign and FPN pooler (workloads/maskrcnn/roi_align.h), computed with
torchvision.ops.roi_align (aligned=False, the MLPerf reference's ROIAlign) and the reference's
LevelMapper / Pooler rules (maskrcnn_benchmark modeling/poolers.py; box area from
structures/bounding_box.py BoxList.area, the +1 convention), restated here in torch float32.

Writes, under tests/workloads/data/maskrcnn_roi_align/:
  goldens.bin: little-endian float32 arrays, one after another;
  goldens.json: "versions"; "arrays": {name: {"offset": first float's index in goldens.bin,
      "shape": [...]}}; "single": [{"name", "features": array name ([N, C, H, W]), "rois": [[b, x1, y1,
      x2, y2], ...] (float32 values), "output_size", "spatial_scale", "sampling_ratio", "aligned"
      (false but for one case of torchvision's aligned=True), "weight",
      "output", "grad": array names}]; "multi": [{"name", "features": [array names, P2..P5],
      "scales", "rois", "levels": each ROI's level index (0 for P2), "output_size", "sampling_ratio",
      "weight", "output", "grads": [array names]}]; "levels": {"boxes": [[x1, y1, x2, y2], ...],
      "k_min", "k_max", "levels"}.
"grad" is d sum(output * weight) / d features; weights are drawn like the features.

Everything is drawn from numpy's RNG with a fixed seed, so rerunning rewrites the same files as long
as torch and torchvision compute the same numbers. Needs Debian's python3-torchvision (0.14, with
python3-torch 1.13); nothing here is needed to build or test. Rerun from the repository root:
    apt-get install -y python3-torchvision
    /usr/bin/python3 tools/make_roi_align_goldens.py
"""

import json
import os

import numpy as np
import torch
import torchvision
from torchvision.ops import roi_align

OUT = os.path.join("tests", "workloads", "data", "maskrcnn_roi_align")
SAMPLING_RATIO = 2
rng = np.random.default_rng(20261207)
arrays = {}
chunks = []
offset = 0


def store(name, tensor):
    global offset
    values = tensor.detach().to(torch.float32).contiguous().numpy().astype("<f4")
    arrays[name] = {"offset": offset, "shape": list(values.shape)}
    chunks.append(values.tobytes())
    offset += values.size
    return name


def f32(values):
    return [[float(v) for v in row] for row in np.asarray(values, dtype=np.float32)]


def random_features(shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


def level_mapper(boxes, k_min, k_max):
    """LevelMapper.__call__ on xyxy boxes (BoxList.area with TO_REMOVE = 1), float32."""
    area = (boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1)
    s = torch.sqrt(area)
    target = torch.floor(4 + torch.log2(s / 224 + 1e-6))
    target = torch.clamp(target, min=float(k_min), max=float(k_max))
    return target.to(torch.int64) - k_min


def rois_for(image_h, image_w, count):
    """Boxes in image pixels of every kind the pooler meets; batch index 0 or 1."""
    boxes = []
    # inside
    for _ in range(4):
        x1, y1 = rng.uniform(0, image_w * 0.6), rng.uniform(0, image_h * 0.6)
        boxes.append([x1, y1, x1 + rng.uniform(2, image_w * 0.4), y1 + rng.uniform(2, image_h * 0.4)])
    # on the border: touching the image's edges
    boxes.append([0, 0, rng.uniform(5, image_w / 2), rng.uniform(5, image_h / 2)])
    boxes.append([rng.uniform(image_w / 2, image_w - 5), rng.uniform(image_h / 2, image_h - 5), image_w, image_h])
    boxes.append([image_w - 1, 0, image_w, image_h - 1])
    # partly outside
    boxes.append([-rng.uniform(1, 30), -rng.uniform(1, 30), rng.uniform(10, image_w / 2), rng.uniform(10, image_h / 2)])
    boxes.append([rng.uniform(image_w / 2, image_w - 2), rng.uniform(0, image_h / 2), image_w + rng.uniform(5, 80),
                  image_h + rng.uniform(5, 80)])
    # tiny: under a feature pixel, under an image pixel, degenerate, inverted
    x, y = rng.uniform(0, image_w - 2), rng.uniform(0, image_h - 2)
    boxes.append([x, y, x + 0.7, y + 0.4])
    boxes.append([x + 0.3, y + 0.1, x + 0.3, y + 0.1])
    boxes.append([x + 1.5, y + 1.8, x + 1.0, y + 1.0])  # inverted, area still > 0
    # large: the whole image and beyond
    boxes.append([0, 0, image_w, image_h])
    boxes.append([-image_w / 3, -image_h / 4, image_w * 1.4, image_h * 1.3])
    # wholly outside: beyond the -1 / H margin, and just inside it
    boxes.append([image_w + 40, image_h + 40, image_w + 90, image_h + 70])
    boxes.append([-60, -50, -2, -3])
    while len(boxes) < count:
        x1, y1 = rng.uniform(-20, image_w), rng.uniform(-20, image_h)
        boxes.append([x1, y1, x1 + rng.uniform(0.5, image_w / 2), y1 + rng.uniform(0.5, image_h / 2)])
    batch = rng.integers(0, 2, size=len(boxes))
    rois = np.concatenate([batch[:, None].astype(np.float32), np.asarray(boxes, dtype=np.float32)], axis=1)
    return torch.from_numpy(rois.astype(np.float32))


def pooled_and_grad(features, rois, output_size, scale, aligned=False):
    x = features.clone().requires_grad_(True)
    out = roi_align(x, rois, output_size, spatial_scale=scale, sampling_ratio=SAMPLING_RATIO, aligned=aligned)
    weight = random_features(out.shape)
    (out * weight).sum().backward()
    return out, weight, x.grad


def single_cases():
    cases = []
    features = random_features((2, 2, 24, 32))
    store("single_features", features)
    for scale, output_size, aligned in ((0.25, 7, False), (0.25, 14, False), (0.0625, 7, False),
                                        (0.0625, 14, False), (0.25, 7, True)):
        if output_size == 7 and not aligned:
            rois = rois_for(24 / scale, 32 / scale, 18)
        name = "single_s%g_o%d%s" % (1 / scale, output_size, "_aligned" if aligned else "")
        out, weight, grad = pooled_and_grad(features, rois, output_size, scale, aligned)
        cases.append({"name": name, "features": "single_features", "rois": f32(rois.numpy()),
                      "output_size": output_size, "spatial_scale": scale, "sampling_ratio": SAMPLING_RATIO,
                      "aligned": aligned, "weight": store(name + "_weight", weight),
                      "output": store(name + "_output", out), "grad": store(name + "_grad", grad)})
    return cases


def multi_cases():
    """Pooler.forward: levels from LevelMapper, each level's ROIs pooled there, results in ROI order."""
    image_h, image_w = 128, 160
    scales = [0.25, 0.125, 0.0625, 0.03125]
    maps = [random_features((2, 3, int(image_h * s), int(image_w * s))) for s in scales]
    names = [store("multi_p%d" % (i + 2), m) for i, m in enumerate(maps)]
    rois = torch.cat([rois_for(image_h, image_w, 20),
                      torch.tensor([[0, 0, 0, 111, 111], [1, 10, 10, 233, 233], [0, -100, -80, 347, 367],
                                    [1, -300, -200, 400, 380]], dtype=torch.float32)])
    k_min = int(-torch.log2(torch.tensor(scales[0], dtype=torch.float32)).item())
    k_max = int(-torch.log2(torch.tensor(scales[-1], dtype=torch.float32)).item())
    levels = level_mapper(rois[:, 1:], k_min, k_max)
    xs = [m.clone().requires_grad_(True) for m in maps]
    output_size = 7
    result = torch.zeros((len(rois), 3, output_size, output_size))
    for level, (x, scale) in enumerate(zip(xs, scales)):
        idx = torch.nonzero(levels == level).squeeze(1)
        result[idx] = roi_align(x, rois[idx], output_size, spatial_scale=scale, sampling_ratio=SAMPLING_RATIO,
                                aligned=False)
    weight = random_features(result.shape)
    (result * weight).sum().backward()
    assert len(set(levels.tolist())) == 4, levels
    return [{"name": "multi_o7", "features": names, "scales": scales, "rois": f32(rois.numpy()),
             "levels": levels.tolist(), "output_size": output_size, "sampling_ratio": SAMPLING_RATIO,
             "weight": store("multi_weight", weight), "output": store("multi_output", result),
             "grads": [store("multi_grad_p%d" % (i + 2), x.grad) for i, x in enumerate(xs)]}]


def level_cases():
    boxes = [[0, 0, 111, 111], [0, 0, 110.99, 111], [0, 0, 223, 223], [0, 0, 222.9, 223], [5, 5, 452, 452],
             [0, 0, 447, 447], [0, 0, 446, 447], [0, 0, 55, 55], [0, 0, 54, 55], [0, 0, 0, 0], [3, 4, 2, 1],
             [0, 0, 2000, 1500], [10, 20, 10.5, 20.5]]
    for _ in range(40):
        x1, y1 = rng.uniform(-50, 800), rng.uniform(-50, 800)
        side = np.exp(rng.uniform(np.log(2), np.log(900)))
        boxes.append([x1, y1, x1 + side * rng.uniform(0.5, 2), y1 + side * rng.uniform(0.5, 2)])
    boxes = torch.tensor(np.asarray(boxes, dtype=np.float32))
    return {"boxes": f32(boxes.numpy()), "k_min": 2, "k_max": 5, "levels": level_mapper(boxes, 2, 5).tolist()}


def main():
    document = {"versions": {"torch": torch.__version__, "torchvision": torchvision.__version__,
                             "numpy": np.__version__},
                "single": single_cases(), "multi": multi_cases(), "levels": level_cases()}
    document["arrays"] = arrays
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "goldens.bin"), "wb") as f:
        f.write(b"".join(chunks))
    with open(os.path.join(OUT, "goldens.json"), "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    print("wrote %d floats, %d single cases" % (offset, len(document["single"])))


if __name__ == "__main__":
    main()
