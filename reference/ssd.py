#!/usr/bin/env python3
"""SSD reference training loop: SSD300 on a ResNet-34 trunk, the MLPerf v0.7 model as mlharness's
workloads/ssd builds it (torchvision's ResNet-34 cut after layer3 with layer3's first stride 1, a
38x38x256 map; five extra blocks of 1x1 conv + ReLU, 3x3 conv + ReLU with strides 2, 2, 2, 1, 1: maps
19, 10, 5, 3, 1; 3x3 location and class heads with 4, 6, 6, 6, 4, 4 boxes per location; 81 classes:
19,972,534 parameters), in plain PyTorch eager, torch.optim.SGD (momentum 0.9, weight decay 5e-4 on
every parameter), on one fixed batch of random 300x300 images with three random boxes of random classes
each. Every step matches the boxes to the 8,732 default boxes (IoU > 0.5, each box's best default box
forced), encodes them, and takes the reference's loss (smooth L1 on the positives, cross-entropy on the
positives and the 3p hardest negatives, over p per image), as `mlharness bench --workload ssd` does.
Rate: images/s. Needs Debian's python3-torch. See reference/README.md."""
import math

import common
import torch
import torch.nn as nn
import torch.nn.functional as F

from resnet import ssd_resnet34_trunk

CLASSES = 81  # COCO's 80 and the background, label 0
IMAGE_SIZE = 300
EXTRA_STRIDES = [2, 2, 2, 1, 1]
EXTRA_MID, EXTRA_OUT = [256, 256, 128, 128, 128], [512, 512, 256, 256, 256]
# dboxes300_coco: maps, steps and scales in pixels of the 300-pixel figure, aspect ratios per map.
FEATURE_SIZES = [38, 19, 10, 5, 3, 1]
STEPS = [8, 16, 32, 64, 100, 300]
SCALES = [21, 45, 99, 153, 207, 261, 315]
ASPECT_RATIOS = [[2], [2, 3], [2, 3], [2, 3], [2], [2]]
BOXES_PER_LOCATION = [2 + 2 * len(r) for r in ASPECT_RATIOS]  # 4, 6, 6, 6, 4, 4
VARIANCE_XY, VARIANCE_WH = 0.1, 0.2


class Ssd300(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = ssd_resnet34_trunk()
        channels = [self.backbone.out_channels] + EXTRA_OUT
        self.additional_blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(cin, mid, 1), nn.ReLU(),
                          nn.Conv2d(mid, out, 3, stride=stride, padding=1 if stride == 2 else 0), nn.ReLU())
            for cin, mid, out, stride in zip(channels, EXTRA_MID, EXTRA_OUT, EXTRA_STRIDES))
        self.loc = nn.ModuleList(nn.Conv2d(c, n * 4, 3, padding=1) for c, n in zip(channels, BOXES_PER_LOCATION))
        self.conf = nn.ModuleList(nn.Conv2d(c, n * CLASSES, 3, padding=1) for c, n in zip(channels, BOXES_PER_LOCATION))
        for module in (self.additional_blocks, self.loc, self.conf):
            for p in module.parameters():
                if p.dim() > 1:
                    nn.init.xavier_uniform_(p)

    def forward(self, images):
        n = images.size(0)
        x = self.backbone.features(images)
        locations, scores = [], []
        for k in range(len(self.loc)):
            if k > 0:
                x = self.additional_blocks[k - 1](x)
            locations.append(self.loc[k](x).reshape(n, 4, -1))
            scores.append(self.conf[k](x).reshape(n, CLASSES, -1))
        return torch.cat(locations, 2), torch.cat(scores, 2)


def default_boxes_xywh():
    """[8732, 4] (cx, cy, w, h) normalised, in the reference's order: sizes outside positions."""
    values = []
    for k, n in enumerate(FEATURE_SIZES):
        small = SCALES[k] / IMAGE_SIZE
        large = math.sqrt(small * SCALES[k + 1] / IMAGE_SIZE)
        sizes = [(small, small), (large, large)]
        for ratio in ASPECT_RATIOS[k]:
            w, h = small * math.sqrt(ratio), small / math.sqrt(ratio)
            sizes += [(w, h), (h, w)]
        per_figure = IMAGE_SIZE / STEPS[k]
        for w, h in sizes:
            for i in range(n):
                for j in range(n):
                    values.append(((j + 0.5) / per_figure, (i + 0.5) / per_figure, w, h))
    return torch.tensor(values, dtype=torch.double).float().clamp_(0, 1)


def to_ltrb(xywh):
    return torch.cat([xywh[:, :2] - 0.5 * xywh[:, 2:], xywh[:, :2] + 0.5 * xywh[:, 2:]], 1)


def to_xywh(ltrb):
    return torch.cat([0.5 * (ltrb[:, :2] + ltrb[:, 2:]), ltrb[:, 2:] - ltrb[:, :2]], 1)


def box_iou(a, b):  # [G, 4], [D, 4] ltrb -> [G, D]
    left_top = torch.max(a[:, None, :2], b[None, :, :2])
    right_bottom = torch.min(a[:, None, 2:], b[None, :, 2:])
    extent = (right_bottom - left_top).clamp_min(0)
    intersection = extent[..., 0] * extent[..., 1]
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
    return intersection / (area(a)[:, None] + area(b)[None, :] - intersection)


def match(boxes_ltrb, labels, defaults_xywh, defaults_ltrb, threshold=0.5):
    """One image's targets: encoded offsets [4, D] and labels [D] (0 = background)."""
    ious = box_iou(boxes_ltrb, defaults_ltrb)
    best_iou, best_gt = ious.max(0)
    best_default = ious.argmax(1)
    best_gt[best_default] = torch.arange(boxes_ltrb.size(0))  # each box keeps its best default box
    best_iou[best_default] = 2.0
    positive = best_iou > threshold
    matched_labels = torch.where(positive, labels[best_gt], torch.zeros_like(best_gt))
    matched = to_xywh(torch.where(positive.unsqueeze(1), boxes_ltrb[best_gt], defaults_ltrb))
    offset_xy = (matched[:, :2] - defaults_xywh[:, :2]) / defaults_xywh[:, 2:] / VARIANCE_XY
    offset_wh = (matched[:, 2:] / defaults_xywh[:, 2:]).log() / VARIANCE_WH
    return torch.cat([offset_xy, offset_wh], 1).t(), matched_labels


def ssd_loss(ploc, plabel, gloc, glabel):
    """The reference's loss, the batch's mean per image (as mlharness's workloads/common/ssd_loss.h)."""
    positive = glabel > 0
    positive_count = positive.sum(1)
    localisation = (F.smooth_l1_loss(ploc, gloc, reduction="none").sum(1) * positive).sum(1)
    confidence = F.cross_entropy(plabel, glabel, reduction="none")
    negative_loss = confidence.detach().masked_fill(positive, 0)
    order = negative_loss.sort(dim=1, descending=True, stable=True)[1]
    rank = torch.empty_like(order).scatter_(1, order, torch.arange(order.size(1)).expand_as(order))
    hard_negative = rank < (3 * positive_count).clamp_max(order.size(1)).unsqueeze(1)
    classification = (confidence * (positive.float() + hard_negative.float())).sum(1)
    per_image = (localisation + classification) * (positive_count > 0) / positive_count.float().clamp_min(1e-6)
    return per_image.mean()


def main():
    args = common.parse_args(__doc__, 32, "images per step (default 32, configs/ssd.yaml's global batch)")
    model = Ssd300()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9, weight_decay=5e-4)
    defaults_xywh = default_boxes_xywh()
    defaults_ltrb = to_ltrb(defaults_xywh)
    images = torch.randn(args.batch_size, 3, IMAGE_SIZE, IMAGE_SIZE)
    boxes, labels = [], []
    for _ in range(args.batch_size):
        corner = torch.rand(3, 2) * 0.6
        boxes.append(torch.cat([corner, corner + 0.1 + torch.rand(3, 2) * 0.3], 1))
        labels.append(torch.randint(1, CLASSES, (3,)))

    def step():
        model.train()
        with torch.no_grad():
            targets = [match(b, l, defaults_xywh, defaults_ltrb) for b, l in zip(boxes, labels)]
            gloc, glabel = torch.stack([t[0] for t in targets]), torch.stack([t[1] for t in targets])
        optimizer.zero_grad()
        with common.autocast(args.precision):
            ploc, plabel = model(images)
        ssd_loss(ploc.float(), plabel.float(), gloc, glabel).backward()
        optimizer.step()

    common.measure("ssd", args, step, args.batch_size, "images", model, default_boxes=defaults_xywh.size(0))


if __name__ == "__main__":
    main()
