#!/usr/bin/env python3
"""Speed benchmark data for `mlharness coco-eval --iou-type segm`, and pycocotools' time on it.

Writes, into a folder (default /tmp/coco_segm_bench):
  instances.json   a COCO instances file shaped like COCO val2017: 5,000 images (ids a sorted random
                   sample of 1..581929, widths and heights 300..640), COCO's 80 category ids (1..90
                   with its gaps), about 7 annotations per image (some images none). Ground truth is
                   random star-shaped polygons of 6..30 vertices, 10..400 px across (about 40% small,
                   35% medium, 25% large by COCO's area ranges), a few of two parts; "area" is the
                   polygons' shoelace area and "bbox" their extent (2 decimals, as in COCO). About 1%
                   of annotations are crowds (iscrowd 1) whose segmentation is an uncompressed RLE
                   ({"counts": [ints], "size": [h, w]}) with bbox and area of that mask.
  detections.json  exactly 100 detections per image (500,000 for 5,000 images), each
                   {"image_id", "category_id", "segmentation": {"size": [h, w], "counts": compressed
                   RLE string from pycocotools.mask.encode}, "score"} and no "bbox". They are made
                   like a Mask R-CNN head's output: a 28x28 mask pasted into a box. Most ground-truth
                   objects get one detection (some a duplicate, a few the wrong category), sampled
                   from the ground-truth mask through a jittered box and shape noise of random
                   strength (an object's best mask IoU: median about 0.75, 90th percentile about
                   0.9; a tenth get no detection); crowds get a few detections
                   inside them; the rest up to 100 are random blobs of the image's categories and of
                   others, with low scores. Where an image has more than 100, the 100 best scores
                   stay. Scores are rounded to 5 decimals, so many tie (about 65,000 distinct
                   values among 500,000), which exercises the stable score order COCOeval keeps.
Everything comes from numpy's RandomState with a fixed seed (--seed), so a rerun writes the same files
while pycocotools and numpy compute the same masks. Generating 5,000 images takes several minutes on
one core and prints its progress; the files are about 16 MB and 205 MB.

--time-pycocotools times pycocotools on the folder's files instead (generating them first if they are
missing): COCO(instances.json), then COCOeval(iouType='segm')'s loadRes + evaluate + accumulate +
summarize, printing each phase's wall-clock and CPU seconds, their totals, the process' peak RSS
(resource.getrusage) and the 12 stats, and writing them to pycocotools_stats.json in the folder as
{"stats": [12 floats], "seconds": {"load_gt", "loadRes", "evaluate", "accumulate", "summarize",
"total"}, "cpu_seconds": {the same}, "peak_rss_mib": ..., ...}; "total" is loadRes through
summarize, without load_gt. pycocotools runs on one core, so on a busy machine compare CPU seconds.
On the full set pycocotools 2.0.11 took about 62 CPU seconds (evaluate 44, accumulate 12, loadRes 6)
and 2.4 GB peak RSS (AMD EPYC, Python 3.11).

Run it with a Python that has pycocotools (not needed to build or test mlharness), e.g.
    python3 -m venv /root/.cache/mlharness/pyref-bench
    /root/.cache/mlharness/pyref-bench/bin/pip install pycocotools numpy
    /root/.cache/mlharness/pyref-bench/bin/python tools/make_coco_segm_bench.py [FOLDER]
    /root/.cache/mlharness/pyref-bench/bin/python tools/make_coco_segm_bench.py [FOLDER] --time-pycocotools
then compare with
    build/mlharness coco-eval --annotations FOLDER/instances.json \\
        --detections FOLDER/detections.json --iou-type segm
(--images N makes a smaller set for a quick check.)
"""

import argparse
import json
import math
import os
import resource
import sys
import time

import numpy as np
from pycocotools import mask as mask_utils

# COCO's 80 category ids: 1..90 without 12, 26, 29, 30, 45, 66, 68, 69, 71, 83.
CATEGORY_IDS = [i for i in range(1, 91) if i not in (12, 26, 29, 30, 45, 66, 68, 69, 71, 83)]
LOWRES = 28  # the side of a detection's mask before it is pasted into its box


def star_polygon(rng, cx, cy, diameter, width, height):
    """A star-shaped polygon (flat [x0, y0, x1, y1, ...], 2 decimals) around (cx, cy), clipped to the image."""
    n = rng.randint(6, 31)
    aspect = math.exp(rng.uniform(-0.5, 0.5))
    rx, ry = diameter / 2.0 * math.sqrt(aspect), diameter / 2.0 / math.sqrt(aspect)
    step = 2.0 * math.pi / n
    angles = rng.uniform(0, 2 * math.pi) + step * (np.arange(n) + rng.uniform(-0.4, 0.4, n))
    radii = rng.uniform(0.55, 1.0, n)
    xs = np.clip(cx + rx * radii * np.cos(angles), 0, width)
    ys = np.clip(cy + ry * radii * np.sin(angles), 0, height)
    poly = np.empty(2 * n)
    poly[0::2] = np.round(xs, 2)
    poly[1::2] = np.round(ys, 2)
    return poly


def shoelace(poly):
    xs, ys = poly[0::2], poly[1::2]
    return 0.5 * abs(float(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1))))


def polygons_rle(polys, height, width):
    return mask_utils.merge(mask_utils.frPyObjects([list(map(float, p)) for p in polys], height, width))


def uncompressed_counts(mask):
    """COCO's uncompressed RLE counts of a 2-D 0/1 mask (column-major runs, starting with zeros)."""
    flat = mask.ravel(order="F")
    changes = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    bounds = np.concatenate(([0], changes, [flat.size]))
    counts = np.diff(bounds).tolist()
    if flat[0]:
        counts.insert(0, 0)
    return counts


def box_filter3(a):
    p = np.pad(a, 1, mode="edge")
    return sum(p[dy:dy + a.shape[0], dx:dx + a.shape[1]] for dy in range(3) for dx in range(3)) / 9.0


def jitter_box(rng, box, strength, width, height):
    """box (x, y, w, h) moved and rescaled by up to `strength` of its size, clipped to the image."""
    x, y, w, h = box
    cx = x + w / 2.0 + rng.normal(0, strength) * w
    cy = y + h / 2.0 + rng.normal(0, strength) * h
    w = max(2.0, w * math.exp(rng.normal(0, strength)))
    h = max(2.0, h * math.exp(rng.normal(0, strength)))
    x0, y0 = int(np.clip(round(cx - w / 2), 0, width - 1)), int(np.clip(round(cy - h / 2), 0, height - 1))
    x1, y1 = int(np.clip(round(cx + w / 2), x0 + 1, width)), int(np.clip(round(cy + h / 2), y0 + 1, height))
    return x0, y0, x1 - x0, y1 - y0


def sample_lowres(mask, box):
    """The 0/1 mask seen through box (x, y, w, h), nearest-sampled on a LOWRES x LOWRES grid (float)."""
    x, y, w, h = box
    rows = np.clip((y + (np.arange(LOWRES) + 0.5) * h / LOWRES).astype(int), 0, mask.shape[0] - 1)
    cols = np.clip((x + (np.arange(LOWRES) + 0.5) * w / LOWRES).astype(int), 0, mask.shape[1] - 1)
    return mask[np.ix_(rows, cols)].astype(np.float64)


def paste(out, lowres, box):
    """Pastes a LOWRES x LOWRES 0/1 mask into out (h x w uint8, zero) at box; never leaves it empty."""
    x, y, w, h = box
    rows = np.arange(h) * LOWRES // h
    cols = np.arange(w) * LOWRES // w
    out[y:y + h, x:x + w] = lowres[np.ix_(rows, cols)]
    if not out[y:y + h, x:x + w].any():
        out[y + h // 2, x + w // 2] = 1


def noisy(rng, lowres, sigma):
    return (box_filter3(lowres + rng.normal(0, sigma, lowres.shape)) > 0.5).astype(np.uint8)


def random_blob(rng):
    """A LOWRES x LOWRES blob: a rasterised star polygon or smoothed noise."""
    if rng.rand() < 0.6:
        poly = star_polygon(rng, LOWRES / 2.0, LOWRES / 2.0, LOWRES * rng.uniform(0.7, 1.1), LOWRES, LOWRES)
        m = mask_utils.decode(polygons_rle([poly], LOWRES, LOWRES)).astype(np.float64)
        return noisy(rng, m, 0.15)
    coarse = rng.uniform(0, 1, (7, 7))
    up = coarse[np.ix_(np.arange(LOWRES) // 4, np.arange(LOWRES) // 4)]
    return (box_filter3(box_filter3(up)) > rng.uniform(0.4, 0.6)).astype(np.uint8)


def make_image_annotations(rng, image, next_ann_id):
    width, height = image["width"], image["height"]
    count = 0 if rng.rand() < 0.01 else min(int(rng.geometric(1.0 / 7.0)), 50)
    image_categories = list(rng.choice(CATEGORY_IDS, size=rng.randint(1, 6), replace=False))
    weights = rng.dirichlet(np.ones(len(image_categories)))
    annotations, masks = [], []
    while len(annotations) < count:
        category_id = int(image_categories[rng.choice(len(image_categories), p=weights)])
        if rng.rand() < 0.01:  # a crowd: the union of a few stars, stored as uncompressed RLE
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            size = min(rng.uniform(100, 400), 0.9 * min(width, height))
            polys = [star_polygon(rng, cx + rng.uniform(-0.3, 0.3) * size, cy + rng.uniform(-0.3, 0.3) * size,
                                  size * rng.uniform(0.4, 0.8), width, height) for _ in range(rng.randint(3, 7))]
            rle = polygons_rle(polys, height, width)
            area = int(mask_utils.area(rle))
            if area == 0:
                continue
            mask = mask_utils.decode(rle)
            segmentation = {"counts": uncompressed_counts(mask), "size": [height, width]}
            bbox = [float(v) for v in mask_utils.toBbox(rle)]
            crowd = 1
        else:
            diameter = min(math.exp(rng.uniform(math.log(10), math.log(400))), 0.95 * min(width, height))
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            polys = [star_polygon(rng, cx, cy, diameter, width, height)]
            if rng.rand() < 0.08:  # an occluded object in two parts
                polys.append(star_polygon(rng, cx + rng.uniform(-1, 1) * diameter, cy + rng.uniform(-1, 1) * diameter,
                                          diameter * rng.uniform(0.3, 0.7), width, height))
            rle = polygons_rle(polys, height, width)
            area = round(sum(shoelace(p) for p in polys), 2)
            if mask_utils.area(rle) == 0 or area == 0:
                continue
            mask = mask_utils.decode(rle)
            xs = np.concatenate([p[0::2] for p in polys])
            ys = np.concatenate([p[1::2] for p in polys])
            bbox = [round(float(xs.min()), 2), round(float(ys.min()), 2),
                    round(float(xs.max() - xs.min()), 2), round(float(ys.max() - ys.min()), 2)]
            segmentation = [[float(v) for v in p] for p in polys]
            crowd = 0
        annotations.append({"id": next_ann_id + len(annotations), "image_id": image["id"],
                            "category_id": category_id, "segmentation": segmentation, "area": area,
                            "bbox": bbox, "iscrowd": crowd})
        masks.append(mask)
    return annotations, masks, image_categories


def make_image_detections(rng, image, annotations, masks, image_categories, per_image):
    """(category_id, score, lowres mask, box) for `per_image` detections of one image."""
    width, height = image["width"], image["height"]
    found = []
    for ann, mask in zip(annotations, masks):
        box = [int(math.floor(ann["bbox"][0])), int(math.floor(ann["bbox"][1])),
               max(1, int(math.ceil(ann["bbox"][2]))), max(1, int(math.ceil(ann["bbox"][3])))]
        if ann["iscrowd"]:
            for _ in range(rng.randint(2, 6)):
                w, h = box[2] * rng.uniform(0.15, 0.5), box[3] * rng.uniform(0.15, 0.5)
                sub = (box[0] + rng.uniform(0, box[2] - w), box[1] + rng.uniform(0, box[3] - h), w, h)
                sub = jitter_box(rng, sub, 0.02, width, height)
                found.append((ann["category_id"], rng.uniform(0.2, 0.9), noisy(rng, sample_lowres(mask, sub), 0.2), sub))
            continue
        copies = 0 if rng.rand() < 0.1 else (2 if rng.rand() < 0.3 else 1)
        for copy in range(copies):
            quality = rng.uniform(0, 1) * (0.6 if copy else 1.0)
            strength = 0.02 + 0.18 * (1 - quality)
            seen = jitter_box(rng, box, strength, width, height)
            placed = jitter_box(rng, seen, strength / 2, width, height)
            lowres = noisy(rng, sample_lowres(mask, seen), 0.1 + 0.4 * (1 - quality))
            category_id = ann["category_id"]
            if rng.rand() < 0.08:
                category_id = int(rng.choice(CATEGORY_IDS))
            score = float(np.clip(0.3 + 0.6 * quality + rng.normal(0, 0.1), 0.01, 0.999))
            found.append((category_id, score, lowres, placed))
    while len(found) < per_image:
        if rng.rand() < 0.5:
            category_id = int(rng.choice(image_categories))
        else:
            category_id = int(rng.choice(CATEGORY_IDS))
        side = math.exp(rng.uniform(math.log(8), math.log(0.9 * min(width, height))))
        w, h = side * math.exp(rng.uniform(-0.4, 0.4)), side * math.exp(rng.uniform(-0.4, 0.4))
        box = jitter_box(rng, (rng.uniform(-w / 2, width - w / 2), rng.uniform(-h / 2, height - h / 2), w, h),
                         0.0, width, height)
        found.append((category_id, 0.6 * float(rng.beta(1.0, 4.0)) + 0.001, random_blob(rng), box))
    if len(found) > per_image:  # keep the best scores, as a detector's top-k would
        order = np.argsort([-f[1] for f in found], kind="stable")[:per_image]
        found = [found[i] for i in sorted(order)]
    return found


def generate(folder, image_count, per_image, seed):
    rng = np.random.RandomState(seed)
    os.makedirs(folder, exist_ok=True)
    image_ids = np.sort(rng.choice(np.arange(1, 581930), size=image_count, replace=False))
    images = [{"id": int(i), "file_name": "%012d.jpg" % i, "width": int(rng.randint(300, 641)),
               "height": int(rng.randint(300, 641))} for i in image_ids]
    categories = [{"id": c, "name": "class%d" % c, "supercategory": "thing"} for c in CATEGORY_IDS]
    instances_path = os.path.join(folder, "instances.json")
    detections_path = os.path.join(folder, "detections.json")
    started = time.time()
    annotation_lines = []
    annotation_count = crowd_count = detection_count = 0
    with open(detections_path + ".partial", "w") as dt:
        dt.write("[\n")
        for index, image in enumerate(images):
            annotations, masks, image_categories = make_image_annotations(rng, image, annotation_count + 1)
            annotation_count += len(annotations)
            crowd_count += sum(a["iscrowd"] for a in annotations)
            annotation_lines.extend(json.dumps(a) for a in annotations)
            found = make_image_detections(rng, image, annotations, masks, image_categories, per_image)
            full = np.zeros((image["height"], image["width"], len(found)), dtype=np.uint8, order="F")
            for k, (_, _, lowres, box) in enumerate(found):
                paste(full[:, :, k], lowres, box)
            rles = mask_utils.encode(full)
            lines = []
            for (category_id, score, _, _), rle in zip(found, rles):
                lines.append(json.dumps({"image_id": image["id"], "category_id": category_id,
                                         "segmentation": {"size": [int(s) for s in rle["size"]],
                                                          "counts": rle["counts"].decode("ascii")},
                                         "score": round(score, 5)}))
            dt.write(("" if index == 0 else ",\n") + ",\n".join(lines))
            detection_count += len(lines)
            if (index + 1) % 250 == 0 or index + 1 == len(images):
                print("%d/%d images, %d annotations, %d detections, %.0f s"
                      % (index + 1, len(images), annotation_count, detection_count, time.time() - started),
                      flush=True)
        dt.write("\n]\n")
    with open(instances_path + ".partial", "w") as f:
        f.write('{"info": {"description": "mlharness segm speed benchmark, seed %d"},\n' % seed)
        f.write('"images": [\n' + ",\n".join(json.dumps(i) for i in images) + "\n],\n")
        f.write('"categories": [\n' + ",\n".join(json.dumps(c) for c in categories) + "\n],\n")
        f.write('"annotations": [\n' + ",\n".join(annotation_lines) + "\n]}\n")
    os.replace(instances_path + ".partial", instances_path)
    os.replace(detections_path + ".partial", detections_path)
    print("wrote %s (%.1f MB: %d images, %d annotations, %d crowd) and %s (%.1f MB: %d detections) in %.0f s"
          % (instances_path, os.path.getsize(instances_path) / 1e6, len(images), annotation_count, crowd_count,
             detections_path, os.path.getsize(detections_path) / 1e6, detection_count, time.time() - started))


def time_pycocotools(folder):
    from importlib.metadata import version
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    seconds, cpu_seconds = {}, {}  # wall clock, and this process' CPU time (other load on the machine aside)

    def timed(phase, run):
        wall, cpu = time.perf_counter(), time.process_time()
        value = run()
        seconds[phase] = time.perf_counter() - wall
        cpu_seconds[phase] = time.process_time() - cpu
        return value

    ground_truth = timed("load_gt", lambda: COCO(os.path.join(folder, "instances.json")))
    results = timed("loadRes", lambda: ground_truth.loadRes(os.path.join(folder, "detections.json")))
    coco_eval = COCOeval(ground_truth, results, iouType="segm")
    for phase in ("evaluate", "accumulate", "summarize"):
        timed(phase, getattr(coco_eval, phase))
    for measure in (seconds, cpu_seconds):
        measure["total"] = sum(measure[p] for p in ("loadRes", "evaluate", "accumulate", "summarize"))
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    stats = [float(s) for s in coco_eval.stats]
    print("%-10s %9s %9s" % ("phase", "wall s", "CPU s"))
    for phase, value in seconds.items():
        print("%-10s %9.2f %9.2f" % (phase, value, cpu_seconds[phase]))
    print("peak RSS   %9.1f MiB" % (peak_kib / 1024.0))
    print("stats", [repr(s) for s in stats])
    out = {"stats": stats, "seconds": seconds, "cpu_seconds": cpu_seconds, "peak_rss_mib": peak_kib / 1024.0,
           "images": len(ground_truth.getImgIds()), "annotations": len(ground_truth.getAnnIds()),
           "detections": len(results.getAnnIds()),
           "pycocotools": version("pycocotools"), "numpy": np.__version__,
           "python": sys.version.split()[0]}
    with open(os.path.join(folder, "pycocotools_stats.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", default="/tmp/coco_segm_bench")
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--detections-per-image", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--time-pycocotools", action="store_true",
                        help="time pycocotools' segm evaluation of the folder's files (generating them if missing)")
    args = parser.parse_args()
    missing = not all(os.path.exists(os.path.join(args.folder, f)) for f in ("instances.json", "detections.json"))
    if not args.time_pycocotools or missing:
        generate(args.folder, args.images, args.detections_per_image, args.seed)
    if args.time_pycocotools:
        time_pycocotools(args.folder)


if __name__ == "__main__":
    main()
