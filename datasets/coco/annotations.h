// COCO 2017 instance annotations (`annotations/instances_{train,val}2017.json`) as SSD and Mask R-CNN
// read them (spec/workloads.md §3, §4), parsed with nlohmann-json. No LibTorch here.
//
// - Categories: the 80 ids (1..90 with gaps) map to contiguous labels 1..80 in ascending id order;
//   label 0 is the background.
// - Boxes stay as COCO writes them: [x, y, w, h] in pixels of the original image.
// - Crowd annotations (iscrowd 1) are kept, as the SSD reference keeps them for training; COCO
//   evaluation treats them as regions to ignore.
// - Segmentations are parsed and kept for Mask R-CNN: polygons (lists of x,y pixel coordinates) or RLE
//   (uncompressed `counts` lists, or the compressed LEB128-style strings of the COCO API, decoded).
//   Polygons of 2 or fewer points (an even count below 6, which COCO 2017 train holds a few of) are
//   dropped and counted, as Detectron drops them; an odd count is an error.
// - Images without annotations are dropped unless asked to keep them (117,266 train and 4,952 val
//   images remain on the real set).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "datasets/coco/rle.h"

namespace mlh::coco {

struct Category {
  int64_t id = 0;     // COCO's category id
  std::string name;
  int64_t label = 0;  // contiguous, 1-based, in ascending id order
};

struct Segmentation {
  enum class Kind { kNone, kPolygons, kRle };
  Kind kind = Kind::kNone;
  std::vector<std::vector<double>> polygons;  // kPolygons: each x0,y0,x1,y1,... (at least 3 points)
                                              // kNone when every polygon was dropped, or none given
  RunLengthMask rle;                          // kRle: as the file gives it, its own size
};

struct Annotation {
  int64_t id = 0;
  int64_t image_id = 0;
  int64_t category_id = 0;
  int64_t label = 0;                 // the category's contiguous label
  double x = 0, y = 0, w = 0, h = 0; // bbox, pixels
  double area = 0;                   // the JSON's `area` (segment area; COCO's area ranges use it),
                                     // w * h when the file has none
  bool iscrowd = false;
  Segmentation segmentation;
};

struct Image {
  int64_t id = 0;
  std::string file_name;  // relative to the split's image folder (e.g. train2017/)
  int64_t width = 0, height = 0;
  std::vector<int32_t> annotations;  // indices into Annotations::annotations, in file order
};

struct ReadOptions {
  bool keep_images_without_annotations = false;
};

struct Annotations {
  std::string path;                     // the file read, for messages
  std::vector<Category> categories;     // ascending id, so categories[label - 1]
  std::vector<Image> images;            // file order, less dropped ones
  std::vector<Annotation> annotations;  // file order, only those of kept images
  std::map<int64_t, int64_t> label_of_category;  // id -> label
  std::map<int64_t, int32_t> image_index;        // image id -> index into images
  int64_t dropped_images = 0;                    // images without annotations left out
  int64_t dropped_polygons = 0;                  // polygons of fewer than 3 points left out

  int64_t num_classes() const { return static_cast<int64_t>(categories.size()); }  // without background
};

// Reads one instances file. Throws UserError, one line naming the file and the field (as
// "<path>: annotations[12].bbox: width -3 is negative"), for: a file that cannot be read; malformed
// JSON; a missing `images`, `annotations` or `categories` list; a missing or mistyped required field
// (images[i].id, .file_name, .width, .height (positive); annotations[i].id, .image_id, .category_id,
// .bbox (4 numbers); categories[i].id); a duplicate image or category id; an annotation whose image
// id or category id is not declared; a box with negative width or height, or a negative area; a
// malformed segmentation (not polygons or an RLE object, an odd polygon count, a bad RLE string, or
// runs that do not cover height x width). Optional: categories[i].name, annotations[i].area,
// .iscrowd (0/1 or a boolean, default 0), .segmentation. Each list is converted element by element
// as it is parsed, so the 448 MB train file never sits in memory as a JSON tree.
Annotations read_annotations(const std::string& json_path, const ReadOptions& options = {});

// The annotation's mask as COCO.annToRLE makes it, on its image (height x width): polygons
// rasterised and merged into one mask; RLE as given. An annotation with no segmentation (pycocotools
// fails on it) is an empty mask of the image's size.
RunLengthMask annotation_mask(const Segmentation& segmentation, int64_t image_height, int64_t image_width);

}  // namespace mlh::coco
