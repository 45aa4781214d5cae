#!/usr/bin/env python3
"""Goldens of SSD's colour jitter steps (apply_color_jitter of ssd_transforms.h), made the way the
MLPerf SSD reference jitters: torchvision's ColorJitter on PIL images, that is
torchvision.transforms.functional's adjust_brightness, adjust_contrast, adjust_saturation (PIL's
ImageEnhance Brightness, Contrast and Color) and adjust_hue (PIL's HSV, the hue channel plus
np.uint8(factor * 255)), one step on one small image at a time.

Writes tests/workloads/data/color_jitter/pil_goldens.json:
  "versions": PIL, torchvision, numpy;
  "images": {name: rows of [R, G, B] pixels (PIL's channel order; OpenCV's cv::Mat holds B, G, R)};
  "cases": [{"image": name, "step": "brightness" | "contrast" | "saturation" | "hue", "factor": the
      blend factor or, for hue, the shift in turns, "output": rows of [R, G, B]}].
Everything is fixed numbers, so rerunning rewrites the same file as long as PIL, torchvision and
numpy compute the same pixels. Needs Debian's python3-pil and python3-torchvision (the pyenv python3
on PATH has neither); nothing here is needed to build or test. Rerun from the repository root:
    apt-get install -y python3-pil python3-torchvision
    /usr/bin/python3 tools/make_color_jitter_goldens.py
"""

import json
import os

import numpy as np
import PIL
import torchvision
import torchvision.transforms.functional as F
from PIL import Image

OUT = os.path.join("tests", "workloads", "data", "color_jitter", "pil_goldens.json")

# Rows of [R, G, B].
IMAGES = {
    # A grey pixel that truncates (101 * 1.5 = 151.5) and a colour whose red clips.
    "grey_and_blue": [[[101, 101, 101], [0, 10, 200]]],
    # Two greys whose mean, 15.5, rounds up.
    "grey_pair": [[[10, 10, 10], [21, 21, 21]]],
    "brown": [[[150, 100, 50]]],
    "red": [[[255, 0, 0], [255, 0, 0]], [[255, 0, 0], [255, 0, 0]]],
    "grey": [[[90, 90, 90], [90, 90, 90]], [[90, 90, 90], [90, 90, 90]]],
    # Primaries, secondaries and a few mixed and dull colours.
    "palette": [
        [[255, 0, 0], [0, 255, 0], [0, 0, 255]],
        [[255, 255, 0], [200, 120, 40], [30, 144, 255]],
        [[128, 0, 128], [250, 128, 114], [120, 110, 100]],
    ],
}

ADJUST = {
    "brightness": F.adjust_brightness,
    "contrast": F.adjust_contrast,
    "saturation": F.adjust_saturation,
    "hue": F.adjust_hue,
}

# (image, step, factors)
CASES = [
    ("grey_and_blue", "brightness", [0.5, 1.5]),
    ("grey_pair", "contrast", [0.0, 0.5, 1.5]),
    ("brown", "saturation", [0.0, 0.5, 2.0]),
    ("red", "hue", [1.0 / 3.0, 0.05, -0.05]),
    ("grey", "hue", [-0.05, 0.05, 1.0 / 3.0]),
    ("palette", "brightness", [0.5, 1.5]),
    ("palette", "contrast", [0.0, 0.5, 1.5]),
    ("palette", "saturation", [0.0, 0.5, 2.0]),
    ("palette", "hue", [-0.05, 0.05, 1.0 / 3.0]),
]


def pil_image(rows):
    return Image.fromarray(np.array(rows, dtype=np.uint8), "RGB")


def main():
    lines = [
        "{",
        '  "generated_by": "tools/make_color_jitter_goldens.py",',
        '  "versions": %s,' % json.dumps(
            {"PIL": PIL.__version__, "torchvision": torchvision.__version__, "numpy": np.__version__}),
        '  "images": {',
        ",\n".join("    %s: %s" % (json.dumps(name), json.dumps(rows)) for name, rows in IMAGES.items()),
        "  },",
        '  "cases": [',
    ]
    cases = []
    for image_name, step, factors in CASES:
        for factor in factors:
            output = ADJUST[step](pil_image(IMAGES[image_name]), factor)
            assert output.mode == "RGB" and output.size == pil_image(IMAGES[image_name]).size
            cases.append("    " + json.dumps({"image": image_name, "step": step, "factor": factor,
                                              "output": np.asarray(output).tolist()}))
    lines.append(",\n".join(cases))
    lines += ["  ]", "}"]
    text = "\n".join(lines) + "\n"
    json.loads(text)  # well-formed
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)
    print("wrote %s: %d cases" % (OUT, len(cases)))


if __name__ == "__main__":
    main()
