#!/usr/bin/env python3
"""Mask R-CNN reference training loop: torchvision's Mask R-CNN R50-FPN (the model of
maskrcnn_resnet50_fpn, 81 classes, built from its parts so that the trunk keeps FrozenBatchNorm2d
without pretrained weights) in plain PyTorch eager, torch.optim.SGD at the MLPerf reference's groups
(momentum 0.9; weights at the rate with weight decay 1e-4, biases at twice the rate without), on one
fixed batch of random square images with three random boxes of random classes each, their rectangles
as the instance masks, as `mlharness bench --workload maskrcnn` trains. Rate: images/s. Needs Debian's
python3-torch and python3-torchvision (0.14). See reference/README.md.

The model follows the MLPerf v0.7 reference (maskrcnn-benchmark, e2e_mask_rcnn_R_50_FPN_1x) and
mlharness's workloads/maskrcnn: a ResNet-50 trunk with the stride on each stage's first 1x1 (torchvision
puts it on the 3x3; the strides are swapped here, so the convolutions' arithmetic is the reference's),
FrozenBatchNorm2d, the stem and layer1 frozen (trainable_backbone_layers=3); FPN P2-P6 of 256
channels; anchors 32-512 at ratios 0.5, 1, 2; RPN 2,000 best anchors per level into NMS (0.7), 256
sampled per image; 512 ROIs sampled per image at 25% positive; ROIAlign 7x7 (boxes) and 14x14 (masks),
sampling ratio 2; a 1024-wide two-layer box head; four 256-channel mask convs and a 2x deconvolution;
detection at score 0.05, NMS 0.5, 100 per image; 1,000 proposals per image in evaluation.
44,347,573 parameters as torchvision counts them (mlharness reports 44,400,693: its frozen norm layers
keep their 53,120 affine weights as parameters that do not train, FrozenBatchNorm2d as buffers);
44,125,173 train in both.

Where the two loops differ (the arithmetic is otherwise the same):
  - Proposals in training: torchvision's RPN keeps the 2,000 best after NMS per image
    (rpn_post_nms_top_n_train is per image, over all levels). The MLPerf reference and mlharness keep
    2,000 per level and image after NMS, then the 2,000 best over the whole batch
    (FPN_POST_NMS_TOP_N_TRAIN, mlharness's num_image_candidates). With a batch of N images torchvision
    matches up to 2,000 * N proposals against the ground truth instead of 2,000; both then sample 512
    per image for the box head, so the heads' work is the same.
  - Mask targets: torchvision cuts them from dense image-sized masks (uint8 [3, H, W] per image, made
    once here) with roi_align; mlharness rasterises the polygons into each positive ROI's 28x28 grid,
    as the reference does.
  - The transform: the images are square with a side that is a multiple of 32, min_size = max_size =
    the side, and torchvision's resize is skipped (_skip_resize) and normalisation is the identity
    (image_mean 0, image_std 1, and the subtraction itself dropped): mlharness's bench step takes
    images already resized and normalised by its loader. torchvision still copies the images into its
    padded batch tensor every step (a few MB).
  - Initialisation differs (torchvision's defaults against the reference's); random weights only
    change which proposals survive, not the work per step.

Inference (--inference of mlharness bench) has no reference loop here; the other reference loops time
training only.
"""
import common
import torch
import torchvision.models.detection.roi_heads
import torchvision.ops.boxes
import torchvision.ops.poolers

from torchvision.models import resnet50
from torchvision.models.detection import MaskRCNN
from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
from torchvision.ops.misc import FrozenBatchNorm2d

TRAINABLE_BACKBONE_LAYERS = 3  # layer2..layer4: the stem and layer1 frozen (FREEZE_CONV_BODY_AT = 2)
BOXES_PER_IMAGE = 3


def add_arguments(parser):
    parser.add_argument("--min-image-size", type=int, default=800,
                        help="the images' side before rounding up to a multiple of 32, as mlharness's "
                             "min_image_size (default 800, configs/maskrcnn.yaml's)")
    parser.add_argument("--classes", type=int, default=80,
                        help="object classes, the background besides (default 80, COCO's)")
    parser.add_argument("--learning-rate", type=float, default=1e-4,
                        help="SGD rate of the weights, the biases at twice it (default 1e-4, mlharness bench's)")


def mask_rcnn(classes, side):
    trunk = resnet50(weights=None, norm_layer=FrozenBatchNorm2d)
    for stage in (trunk.layer2, trunk.layer3, trunk.layer4):  # STRIDE_IN_1X1, as the reference's trunk
        first = stage[0]
        first.conv1.stride, first.conv2.stride = first.conv2.stride, first.conv1.stride
    backbone = _resnet_fpn_extractor(trunk, TRAINABLE_BACKBONE_LAYERS)
    model = MaskRCNN(
        backbone, num_classes=classes + 1,
        min_size=side, max_size=side, image_mean=[0.0, 0.0, 0.0], image_std=[1.0, 1.0, 1.0], _skip_resize=True,
        rpn_pre_nms_top_n_train=2000, rpn_post_nms_top_n_train=2000,
        rpn_pre_nms_top_n_test=1000, rpn_post_nms_top_n_test=1000,
        rpn_batch_size_per_image=256, rpn_nms_thresh=0.7,
        box_batch_size_per_image=512, box_positive_fraction=0.25,
        box_score_thresh=0.05, box_nms_thresh=0.5, box_detections_per_img=100)
    model.transform.normalize = lambda image: image  # mean 0, std 1: skip the two passes outright
    return model


def float_kernels_under_autocast():
    """torchvision 0.14 has no CPU bf16 kernels for nms and roi_align (nor CPU autocast rules for them):
    under amp they run in float and return the input's dtype, as torchvision 0.15's CPU autocast does."""
    nms, roi_align = torchvision.ops.boxes.nms, torchvision.ops.poolers.roi_align

    def float_nms(boxes, scores, iou_threshold):
        return nms(boxes.float(), scores.float(), iou_threshold)

    def float_roi_align(features, boxes, *args, **kwargs):
        with torch.autocast("cpu", enabled=False):
            boxes = boxes.float() if torch.is_tensor(boxes) else [b.float() for b in boxes]
            return roi_align(features.float(), boxes, *args, **kwargs).to(features.dtype)

    torchvision.ops.boxes.nms = float_nms  # what batched_nms calls
    torchvision.ops.poolers.roi_align = float_roi_align  # what MultiScaleRoIAlign calls
    torchvision.models.detection.roi_heads.roi_align = float_roi_align  # the mask targets' crops


def sgd_groups(model, learning_rate, weight_decay=1e-4, bias_factor=2.0):
    """The reference's groups (mlharness's make_maskrcnn_sgd): the trainable biases apart."""
    weights, biases = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (biases if name.endswith("bias") else weights).append(p)
    return [{"params": weights, "lr": learning_rate, "weight_decay": weight_decay},
            {"params": biases, "lr": learning_rate * bias_factor, "weight_decay": 0.0}]


def random_targets(batch, side, classes):
    """Three random boxes per image (as mlharness's bench: corners in [0, 0.6) of the side, extents in
    [0.1, 0.4)), random classes 1..classes, each box's rectangle as its mask."""
    targets = []
    for _ in range(batch):
        corner = torch.rand(BOXES_PER_IMAGE, 2) * 0.6 * side
        boxes = torch.cat([corner, corner + (0.1 + torch.rand(BOXES_PER_IMAGE, 2) * 0.3) * side], 1)
        masks = torch.zeros(BOXES_PER_IMAGE, side, side, dtype=torch.uint8)
        for j, (left, top, right, bottom) in enumerate(boxes.round().long().tolist()):
            masks[j, top:bottom, left:right] = 1
        targets.append({"boxes": boxes, "labels": torch.randint(1, classes + 1, (BOXES_PER_IMAGE,)),
                        "masks": masks})
    return targets


def main():
    args = common.parse_args(__doc__, 2, "images per step (default 2, the reference's per GPU)", add_arguments)
    if args.min_image_size < 32 or args.classes < 1:
        raise SystemExit("maskrcnn.py: --min-image-size must be at least 32 and --classes at least 1")
    side = (args.min_image_size + 31) // 32 * 32
    if args.precision == "amp":
        float_kernels_under_autocast()
    model = mask_rcnn(args.classes, side)
    optimizer = torch.optim.SGD(sgd_groups(model, args.learning_rate), lr=args.learning_rate, momentum=0.9)
    images = list(torch.randn(args.batch_size, 3, side, side).unbind(0))
    targets = random_targets(args.batch_size, side, args.classes)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)

    def step():
        model.train()
        optimizer.zero_grad()
        with common.autocast(args.precision):
            losses = model(images, targets)
        sum(loss.float() for loss in losses.values()).backward()
        optimizer.step()

    common.measure("maskrcnn", args, step, args.batch_size, "images", model, image_size=side,
                   trainable_parameters=trainable, classes=args.classes)


if __name__ == "__main__":
    main()
