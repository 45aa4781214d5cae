// A learnable synthetic COCO in the real on-disk layout, so tests and smoke runs of SSD go through the
// same annotations reader, decoder and transforms as COCO 2017. Deterministic in the spec.
//
// Category k (0-based) takes the k-th of COCO's 80 real ids (1..11, 13..25, 27, 28, 31..44, ...) and
// a distinct (shape, colour) pair out of 12 shapes (disk, square, triangle, diamond, cross, star,
// hexagon, pentagon, arrow, L, trapezoid, chevron) and 8 colours, named "<colour> <shape>"; the first
// 8 categories differ in both. Each image draws its size, a textured grey background (gradient,
// stripes, per-pixel noise) and 1..n objects: a random size (a fraction of the short side), centre,
// aspect and rotation, filled with the class's colour at a random brightness. Later objects are drawn
// on top (a placement is redrawn up to 8 times while its box covers more than 40% of a smaller box or
// is 40% covered, so few objects hide); every object is annotated with its polygon clipped to the
// image, its bounding box and the polygon's area.
#pragma once

#include <cstdint>
#include <string>

namespace mlh::coco {

struct SyntheticCocoSpec {
  int categories = 6;                   // 1..80
  int train_images = 64;
  int val_images = 16;
  int min_side = 160, max_side = 320;   // image sides drawn per image in [min_side, max_side]
  int min_objects = 1, max_objects = 4; // objects per image, drawn in [min_objects, max_objects]
  double min_object_fraction = 0.15;    // an object's size over the image's short side, drawn in
  double max_object_fraction = 0.6;     // [min_object_fraction, max_object_fraction]
  int jpeg_quality = 90;
  uint64_t seed = 1;
};

// Writes <root>/train2017/<12-digit id>.jpg, <root>/val2017/<12-digit id>.jpg and
// <root>/annotations/instances_{train,val}2017.json (info, licenses, images, annotations with
// segmentation as one polygon, bbox [x, y, w, h], area, iscrowd 0; categories). Train image ids run
// from 1, val ids follow them; annotation ids run from 1 across both files. Folders are created as
// needed; files of the same name are overwritten. Throws UserError when root cannot be written, or
// for a spec out of range (categories outside 1..80, image counts below 1, min_side below 32 or above
// max_side, max_side above 8192, objects outside 1..100 or min above max, fractions outside (0, 1] or
// min above max, quality outside 1..100).
void write_synthetic_coco(const std::string& root, const SyntheticCocoSpec& spec);

// A folder name that differs between specs that write different data, e.g.
// "coco-synthetic-c6-t64-v16-s160x320-o1x4-f0.15x0.6-q90-d1".
std::string synthetic_coco_folder_name(const SyntheticCocoSpec& spec);

}  // namespace mlh::coco
