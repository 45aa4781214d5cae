#!/usr/bin/env python3
"""Golden cases for mlharness' COCO box evaluation (datasets/coco/box_eval.h), scored by pycocotools.

Writes tests/datasets/data/coco_eval/<case>/{instances.json, detections.json, expected_stats.json}
and tests/datasets/data/coco_eval/thresholds.json. expected_stats.json is a list of evaluations:
{"image_ids": [] (all images) or the ids given to COCOeval's params.imgIds, "stats": COCOeval.stats
(12 numbers)}; the "random" case also keeps summarize()'s printout in summary.txt. Every case is
built deterministically (fixed numbers, or numpy's RNG with a fixed seed), so rerunning the script
rewrites the same files as long as pycocotools and numpy compute the same numbers.

Run it from the repository root with a Python that has pycocotools (not needed to build or test):
    python3 -m venv /root/.cache/mlharness/pyref
    /root/.cache/mlharness/pyref/bin/pip install pycocotools numpy
    /root/.cache/mlharness/pyref/bin/python tools/make_coco_eval_goldens.py
"""

import contextlib
import io
import json
import os
import sys

import numpy as np
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

OUT = os.path.join("tests", "datasets", "data", "coco_eval")


def image(image_id, width=640, height=480):
    return {"id": image_id, "file_name": "%012d.jpg" % image_id, "width": width, "height": height}


def category(category_id):
    return {"id": category_id, "name": "class%d" % category_id, "supercategory": "thing"}


def annotation(ann_id, image_id, category_id, box, area=None, iscrowd=0):
    x, y, w, h = box
    return {
        "id": ann_id,
        "image_id": image_id,
        "category_id": category_id,
        "bbox": [x, y, w, h],
        "area": w * h if area is None else area,
        "iscrowd": iscrowd,
        "segmentation": [[x, y, x + w, y, x + w, y + h, x, y + h]],
    }


def detection(image_id, category_id, box, score):
    return {"image_id": image_id, "category_id": category_id, "bbox": list(box), "score": score}


def write_list_json(path, items):
    with open(path, "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(item) for item in items) + "\n]\n")


def write_instances(path, images, categories, annotations):
    with open(path, "w") as f:
        f.write('{"images": [\n' + ",\n".join(json.dumps(i) for i in images) + "\n],\n")
        f.write('"categories": [\n' + ",\n".join(json.dumps(c) for c in categories) + "\n],\n")
        f.write('"annotations": [\n' + ",\n".join(json.dumps(a) for a in annotations) + "\n]}\n")


def evaluate(instances_path, detections_path, image_ids, iou_type="bbox"):
    """COCOeval's stats (12 floats) and summarize()'s printout; image_ids: params.imgIds, or [] for all."""
    with contextlib.redirect_stdout(io.StringIO()):
        ground_truth = COCO(instances_path)
        results = ground_truth.loadRes(detections_path)
        coco_eval = COCOeval(ground_truth, results, iouType=iou_type)
        if image_ids:
            coco_eval.params.imgIds = image_ids
        coco_eval.evaluate()
        coco_eval.accumulate()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        coco_eval.summarize()
    return [float(s) for s in coco_eval.stats], printed.getvalue()


def write_case(name, images, categories, annotations, detections, subsets=(), keep_summary=False):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    instances_path = os.path.join(folder, "instances.json")
    detections_path = os.path.join(folder, "detections.json")
    write_instances(instances_path, images, categories, annotations)
    write_list_json(detections_path, detections)
    evaluations = []
    for image_ids in [[]] + [list(s) for s in subsets]:
        stats, summary = evaluate(instances_path, detections_path, image_ids)
        evaluations.append({"image_ids": image_ids, "stats": stats})
        if keep_summary and not image_ids:
            with open(os.path.join(folder, "summary.txt"), "w") as f:
                f.write(summary)
    with open(os.path.join(folder, "expected_stats.json"), "w") as f:
        json.dump(evaluations, f, indent=1)
        f.write("\n")
    print(name, ["%.4f" % s for s in evaluations[0]["stats"]])


def perfect():
    images = [image(1), image(2), image(3)]
    categories = [category(1), category(2)]
    boxes = [(1, 1, [10, 10, 50, 40]), (1, 2, [100, 120, 200, 150]), (2, 1, [5, 5, 20, 20]),
             (2, 1, [300, 200, 90, 120]), (3, 2, [50, 60, 70, 80])]
    annotations = [annotation(i + 1, im, c, b) for i, (im, c, b) in enumerate(boxes)]
    detections = [detection(im, c, b, 0.9 - 0.1 * i) for i, (im, c, b) in enumerate(boxes)]
    write_case("perfect", images, categories, annotations, detections)


def crowd():
    # A crowd region with a detection inside it (matched to the crowd: ignored, not a false
    # positive), two detections on one crowd box (crowds match any number), normal objects, and one
    # inside the crowd region whose detection overlaps the crowd more than the object (a match with
    # an object is kept over a better one with an ignored region).
    images = [image(1), image(2)]
    categories = [category(1)]
    annotations = [
        annotation(1, 1, 1, [0, 0, 200, 200], area=30000, iscrowd=1),
        annotation(2, 1, 1, [300, 300, 60, 50]),
        annotation(3, 2, 1, [20, 20, 40, 30]),
        annotation(4, 2, 1, [100, 100, 80, 80], area=5000, iscrowd=1),
        annotation(5, 1, 1, [150, 20, 40, 40]),
    ]
    detections = [
        detection(1, 1, [10, 10, 50, 50], 0.95),      # inside the crowd region
        detection(1, 1, [302, 298, 60, 52], 0.9),     # the object
        detection(1, 1, [150, 150, 100, 100], 0.8),   # half on the crowd region
        detection(2, 1, [110, 110, 30, 30], 0.85),    # inside the second crowd
        detection(2, 1, [120, 120, 30, 30], 0.7),     # inside it too
        detection(2, 1, [22, 21, 40, 30], 0.6),       # the object
        detection(2, 1, [400, 400, 20, 20], 0.75),    # a false positive
        detection(1, 1, [155, 20, 40, 40], 0.65),     # IoU .78 with object 5, all inside the crowd
    ]
    write_case("crowd", images, categories, annotations, detections)


def no_gt_image():
    # Image 2 has no annotations, only detections: false positives for category 1.
    images = [image(1), image(2), image(3)]
    categories = [category(1)]
    annotations = [annotation(1, 1, 1, [10, 10, 100, 100]), annotation(2, 3, 1, [50, 50, 30, 30])]
    detections = [
        detection(1, 1, [12, 10, 98, 100], 0.5),
        detection(2, 1, [10, 10, 100, 100], 0.9),
        detection(2, 1, [200, 200, 50, 50], 0.8),
        detection(3, 1, [50, 52, 30, 28], 0.6),
    ]
    write_case("no_gt_image", images, categories, annotations, detections)


def no_detection_image():
    # Image 2 has objects but no detections: they lower recall.
    images = [image(1), image(2), image(3)]
    categories = [category(1), category(2)]
    annotations = [
        annotation(1, 1, 1, [10, 10, 100, 100]),
        annotation(2, 2, 1, [20, 30, 40, 50]),
        annotation(3, 2, 2, [200, 100, 120, 90]),
        annotation(4, 3, 2, [0, 0, 64, 64]),
    ]
    detections = [detection(1, 1, [10, 12, 100, 96], 0.7), detection(3, 2, [2, 0, 64, 60], 0.4)]
    write_case("no_detection_image", images, categories, annotations, detections)


def duplicates():
    # Several detections of one object: the best-scored match counts, the rest are false positives.
    images = [image(1), image(2)]
    categories = [category(1)]
    annotations = [annotation(1, 1, 1, [100, 100, 80, 60]), annotation(2, 2, 1, [10, 10, 30, 30])]
    detections = [
        detection(1, 1, [102, 101, 80, 60], 0.9),
        detection(1, 1, [100, 100, 80, 60], 0.8),
        detection(1, 1, [98, 104, 84, 58], 0.85),
        detection(1, 1, [110, 100, 70, 60], 0.3),
        detection(2, 1, [12, 10, 30, 30], 0.2),
        detection(2, 1, [10, 10, 30, 30], 0.1),
    ]
    write_case("duplicates", images, categories, annotations, detections)


def area_ranges():
    # Objects of every size class, whose `area` differs from w*h (the box): the area field decides.
    images = [image(1), image(2)]
    categories = [category(1), category(2)]
    annotations = [
        annotation(1, 1, 1, [10, 10, 40, 40], area=900),      # box 1600, small by area
        annotation(2, 1, 1, [100, 10, 20, 20], area=400),     # small
        annotation(3, 1, 1, [200, 10, 120, 100], area=8000),  # box 12000, medium by area
        annotation(4, 1, 2, [10, 200, 100, 100], area=9216),  # medium and large (bounds included)
        annotation(5, 2, 1, [0, 0, 32, 32], area=1024),       # small and medium
        annotation(6, 2, 2, [300, 200, 200, 150], area=25000),  # large
        annotation(7, 2, 2, [50, 300, 30, 30], area=1500),    # box 900, medium by area
    ]
    detections = [
        detection(1, 1, [11, 10, 40, 40], 0.9),
        detection(1, 1, [100, 11, 20, 20], 0.3),
        detection(1, 1, [205, 12, 120, 100], 0.8),
        detection(1, 2, [12, 198, 100, 100], 0.7),
        detection(1, 1, [400, 400, 10, 10], 0.6),     # small false positive
        detection(1, 1, [300, 300, 200, 150], 0.5),   # large false positive
        detection(2, 1, [0, 1, 32, 32], 0.65),
        detection(2, 2, [310, 200, 190, 150], 0.95),
        detection(2, 2, [52, 300, 30, 30], 0.55),
        detection(2, 2, [0, 400, 50, 50], 0.45),      # medium false positive
    ]
    write_case("area_ranges", images, categories, annotations, detections)


def max_dets():
    # 150 detections on one image (only the best 100 count), 12 on another (maxDets 10 cuts).
    rng = np.random.RandomState(7)
    images = [image(1, 1000, 1000), image(2)]
    categories = [category(1)]
    annotations = []
    for i in range(40):
        x, y = 20 + (i % 8) * 120, 20 + (i // 8) * 180
        annotations.append(annotation(i + 1, 1, 1, [x, y, 60, 70]))
    for i in range(8):
        annotations.append(annotation(41 + i, 2, 1, [10 + i * 70, 100, 50, 50]))
    detections = []
    scores = np.round(rng.uniform(0.05, 1.0, size=150), 3)
    for i in range(150):
        if i % 3 == 0:
            a = annotations[(i // 3) % 40]["bbox"]  # on an object (a second hit is a duplicate)
            box = [a[0] + float(rng.randint(-8, 9)), a[1] + float(rng.randint(-8, 9)), 60, 70]
        else:
            box = [float(rng.randint(0, 900)), float(rng.randint(0, 900)), 40, 40]
        detections.append(detection(1, 1, box, float(scores[i])))
    for i in range(12):
        a = annotations[40 + i % 8]["bbox"]
        detections.append(detection(2, 1, [a[0] + i % 3, a[1], 50, 50], round(0.9 - 0.05 * i, 2)))
    write_case("max_dets", images, categories, annotations, detections)


def score_ties():
    # Equal scores within and across images: the order in the results list breaks ties (stable).
    images = [image(1), image(2), image(3)]
    categories = [category(1)]
    annotations = [
        annotation(1, 1, 1, [10, 10, 50, 50]),
        annotation(2, 2, 1, [100, 100, 60, 40]),
        annotation(3, 3, 1, [200, 50, 40, 80]),
        annotation(4, 3, 1, [300, 300, 50, 50]),
    ]
    detections = [
        detection(3, 1, [400, 10, 50, 50], 0.5),       # false positive, tied
        detection(1, 1, [10, 10, 50, 50], 0.5),        # true positive, tied
        detection(2, 1, [0, 300, 40, 40], 0.5),        # false positive, tied
        detection(2, 1, [100, 100, 60, 40], 0.5),      # true positive, tied
        detection(3, 1, [200, 50, 40, 80], 0.7),
        detection(1, 1, [12, 10, 50, 50], 0.7),        # duplicate, scored higher than the first
        detection(3, 1, [300, 302, 50, 50], 0.5),
    ]
    write_case("score_ties", images, categories, annotations, detections)


def category_without_gt():
    # Category 5 is declared but has no objects; category 99 is not declared at all. Detections of
    # either never count.
    images = [image(1), image(2)]
    categories = [category(1), category(3), category(5)]
    annotations = [
        annotation(1, 1, 1, [10, 10, 100, 100]),
        annotation(2, 1, 3, [200, 200, 50, 60]),
        annotation(3, 2, 3, [20, 300, 40, 40]),
    ]
    detections = [
        detection(1, 1, [10, 12, 100, 100], 0.8),
        detection(1, 5, [10, 10, 100, 100], 0.99),
        detection(1, 99, [200, 200, 50, 60], 0.97),
        detection(1, 3, [205, 200, 50, 60], 0.6),
        detection(2, 3, [20, 305, 40, 40], 0.3),
        detection(2, 5, [300, 300, 40, 40], 0.9),
        detection(2, 99, [20, 300, 40, 40], 0.9),
    ]
    write_case("category_without_gt", images, categories, annotations, detections)


def iou_edges():
    # IoUs exactly at thresholds (0.5, 0.75 and linspace's 0.8999999999999999 match at >=), just
    # below, equal-IoU ground truths (the later one wins), and an annotation with id 0 (COCOeval
    # reads its matches as none).
    images = [image(1), image(2)]
    categories = [category(1), category(2)]
    annotations = [
        annotation(1, 1, 1, [0, 0, 10, 10]),
        annotation(2, 1, 1, [100, 0, 10, 10]),
        annotation(3, 1, 1, [200, 0, 10, 10]),
        annotation(4, 1, 2, [0, 100, 20, 10]),     # two objects a detection overlaps equally
        annotation(5, 1, 2, [20, 100, 20, 10]),
        annotation(0, 2, 1, [50, 50, 30, 30]),
        annotation(6, 2, 1, [150, 50, 30, 30]),
        annotation(7, 2, 2, [0, 0, 2, 70]),
    ]
    detections = [
        detection(1, 1, [0, 0, 10, 5], 0.9),        # IoU 0.5
        detection(1, 1, [100, 0, 10, 7.5], 0.8),    # IoU 0.75
        detection(1, 1, [200, 0, 10, 4.99], 0.7),   # IoU just under 0.5
        detection(1, 2, [10, 100, 20, 10], 0.6),    # IoU 1/3 with both
        detection(1, 2, [5, 100, 20, 10], 0.5),     # IoU 0.6 with object 4
        detection(2, 1, [50, 50, 30, 30], 0.9),     # on the id-0 object
        detection(2, 1, [150, 50, 30, 30], 0.8),
        detection(2, 2, [0, 0, 2, 62.99999999999999], 0.7),  # IoU 0.8999999999999999, linspace's ".90"
    ]
    write_case("iou_edges", images, categories, annotations, detections)


def random_case():
    # 50 images, 5 categories with gaps in their ids; jittered, duplicate, wrong-class and stray
    # detections with scores rounded to 2 decimals (ties); some crowd boxes and images without
    # objects; one image with 120 detections.
    rng = np.random.RandomState(2024)
    category_ids = [1, 3, 7, 8, 12]
    images = [image(i) for i in range(1, 51)]
    categories = [category(c) for c in category_ids]
    annotations, detections = [], []
    for im in images:
        width, height = im["width"], im["height"]
        n_objects = 0 if im["id"] % 10 == 0 else rng.randint(1, 9)
        n_stray = 110 if im["id"] == 17 else rng.randint(0, 8)
        for _ in range(n_objects):
            w = round(float(np.exp(rng.uniform(np.log(4), np.log(300)))), 2)
            h = round(float(w * np.exp(rng.uniform(-0.7, 0.7))), 2)
            x = round(float(rng.uniform(0, width - min(w, width - 1))), 2)
            y = round(float(rng.uniform(0, height - min(h, height - 1))), 2)
            c = int(rng.choice(category_ids))
            crowd = int(rng.uniform() < 0.06)
            area = round(w * h * float(rng.uniform(0.4, 1.0)), 2)
            annotations.append(annotation(len(annotations) + 1, im["id"], c, [x, y, w, h], area, crowd))
            for _ in range(rng.choice([0, 1, 1, 1, 2])):
                jitter = rng.normal(0, 0.08, size=4) * [w, h, w, h]
                box = [round(float(v), 2) for v in [x + jitter[0], y + jitter[1], max(w + jitter[2], 1),
                                                    max(h + jitter[3], 1)]]
                dc = c if rng.uniform() < 0.9 else int(rng.choice(category_ids))
                detections.append(detection(im["id"], dc, box, round(float(rng.uniform(0.05, 1)), 2)))
        for _ in range(n_stray):
            w = round(float(np.exp(rng.uniform(np.log(4), np.log(200)))), 2)
            h = round(float(w * np.exp(rng.uniform(-0.5, 0.5))), 2)
            box = [round(float(rng.uniform(0, width - w)), 2), round(float(rng.uniform(0, height - h)), 2), w, h]
            detections.append(detection(im["id"], int(rng.choice(category_ids)), box,
                                        round(float(rng.uniform(0.05, 0.6)), 2)))
    subset = [i for i in range(1, 51) if i % 3 == 0] + [17]
    write_case("random", images, categories, annotations, detections, subsets=[subset], keep_summary=True)


def main():
    if not os.path.isdir(os.path.join("tests", "datasets")):
        sys.exit("run from the repository root")
    os.makedirs(OUT, exist_ok=True)
    params = COCOeval(iouType="bbox").params
    with open(os.path.join(OUT, "thresholds.json"), "w") as f:
        json.dump({"iou_thresholds": [float(t) for t in params.iouThrs],
                   "recall_thresholds": [float(r) for r in params.recThrs]}, f)
        f.write("\n")
    perfect()
    crowd()
    no_gt_image()
    no_detection_image()
    duplicates()
    area_ranges()
    max_dets()
    score_ties()
    category_without_gt()
    iou_edges()
    random_case()


if __name__ == "__main__":
    main()
