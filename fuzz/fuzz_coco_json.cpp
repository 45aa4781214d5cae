// COCO JSON: the same bytes as an instances file (datasets/coco/annotations.h, with and without
// images that have no annotations) and as a detections results file (datasets/coco/detections_json.h).
#include <cstddef>
#include <cstdint>

#include "base/user_error.h"
#include "datasets/coco/annotations.h"
#include "datasets/coco/detections_json.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mlh::fuzz::write_input("instances_val2017.json", data, size);
  for (const bool keep_empty : {false, true}) {
    try {
      mlh::coco::ReadOptions options;
      options.keep_images_without_annotations = keep_empty;
      mlh::coco::read_annotations(path, options);
    } catch (const mlh::UserError&) {
    }
  }
  try {
    mlh::coco::read_detections_json(path);
  } catch (const mlh::UserError&) {
  }
  return 0;
}
