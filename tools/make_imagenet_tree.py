#!/usr/bin/env python3
"""Cuts JPEGs of ImageNet's sizes from real photographs into the ImageNet folder layout that
mlharness's loader (datasets/imagenet/folder.h) and torchvision's ImageFolder read:

    OUT/LOC_synset_mapping.txt            one made-up WordNet-style id per class
    OUT/train/n0000000C/img_NNNNN.JPEG    --images JPEGs over --classes classes
    OUT/val/n0000000C/img_NNNNN.JPEG      a tenth as many

Each JPEG is a random crop of a random source photograph (10% to 100% of its area, landscape 3:4..16:9
three times in four, else portrait), resized so its long side is 500 pixels (ImageNet's most common
size is 500x375 or 375x500) and saved at a JPEG quality between 75 and 95, so the tree has ImageNet's
sizes and real-photograph content for `mlharness bench --loader` and the torchvision reference.

Real photographs Debian ships: `apt-get install -y mate-backgrounds` puts twelve in
/usr/share/backgrounds/mate/nature (the default --source). Needs Pillow (python3-pil, which Debian's
python3-torchvision brings). Deterministic for a given --seed and source.

    /usr/bin/python3 tools/make_imagenet_tree.py --out /tmp/imagenet-photos --images 1000
    mlharness bench --workload resnet50 --loader --set data_path=/tmp/imagenet-photos
"""
import argparse
import os
import random
import sys

from PIL import Image


def photographs(source_dirs):
    paths = []
    for folder in source_dirs:
        for name in sorted(os.listdir(folder)):
            if name.lower().endswith((".jpg", ".jpeg")):
                paths.append(os.path.join(folder, name))
    return paths


def cut(photo, rng):
    """A random crop of `photo` at ImageNet's size."""
    width, height = photo.size
    landscape = rng.random() < 0.75
    aspect = rng.uniform(4 / 3, 16 / 9) if landscape else rng.uniform(9 / 16, 3 / 4)  # width / height
    area = rng.uniform(0.1, 1.0) * width * height
    crop_w = min(width, int(round((area * aspect) ** 0.5)))
    crop_h = min(height, int(round(crop_w / aspect)))
    crop_w = min(crop_w, int(round(crop_h * aspect)))
    left, top = rng.randint(0, width - crop_w), rng.randint(0, height - crop_h)
    piece = photo.crop((left, top, left + crop_w, top + crop_h))
    scale = 500 / max(crop_w, crop_h)
    return piece.resize((max(1, round(crop_w * scale)), max(1, round(crop_h * scale))), Image.BILINEAR)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="the tree's root folder (created; must not hold a train/ yet)")
    parser.add_argument("--images", type=int, default=1000, help="training JPEGs (default 1000)")
    parser.add_argument("--classes", type=int, default=10, help="class folders (default 10)")
    parser.add_argument("--source", action="append", help="folder of photographs (JPEG); may repeat "
                        "(default /usr/share/backgrounds/mate/nature, from Debian's mate-backgrounds)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.images < 1 or args.classes < 1:
        parser.error("--images and --classes must be at least 1")
    sources = args.source or ["/usr/share/backgrounds/mate/nature"]
    for folder in sources:
        if not os.path.isdir(folder):
            sys.exit(f"make_imagenet_tree.py: no folder {folder}; apt-get install -y mate-backgrounds, or pass --source DIR")
    paths = photographs(sources)
    if not paths:
        sys.exit(f"make_imagenet_tree.py: no JPEG photographs in {', '.join(sources)}")
    if os.path.exists(os.path.join(args.out, "train")):
        sys.exit(f"make_imagenet_tree.py: {args.out}/train exists; choose a new --out")
    rng = random.Random(args.seed)
    photos = [Image.open(path).convert("RGB") for path in paths]
    classes = [f"n{c:08d}" for c in range(args.classes)]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "LOC_synset_mapping.txt"), "w") as index:
        for name in classes:
            index.write(f"{name} photographs {name}\n")
    total_bytes = 0
    for split, count in (("train", args.images), ("val", max(1, args.images // 10))):
        for i in range(count):
            folder = os.path.join(args.out, split, classes[i % args.classes])
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"img_{i:05d}.JPEG")
            cut(photos[rng.randrange(len(photos))], rng).save(path, "JPEG", quality=rng.randint(75, 95))
            total_bytes += os.path.getsize(path) if split == "train" else 0
    print(f"{args.out}: {args.images} train and {max(1, args.images // 10)} val JPEGs in {args.classes} classes "
          f"from {len(paths)} photographs; train mean {total_bytes / args.images / 1024:.1f} KiB")


if __name__ == "__main__":
    main()
