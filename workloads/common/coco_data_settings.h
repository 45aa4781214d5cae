// The data settings of the COCO workloads (SSD, spec/workloads.md §3; Mask R-CNN, §4): a COCO 2017
// folder, or the generated one (datasets/coco/synthetic.h) their mini configs train on, and how its
// images are loaded. A workload's settings struct derives from it and calls bind from its own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/user_error.h"
#include "datasets/coco/synthetic.h"
#include "datasets/generated_folder.h"
#include "datasets/sample_loader.h"
#include "harness/settings.h"
#include "harness/world.h"

namespace mlh {

struct CocoDataSettings {
  enum class DataSource { kCoco, kSyntheticCoco };

  DataSource data_source = DataSource::kCoco;
  std::string data_path;
  std::string train_split = "train2017";
  std::string eval_split = "val2017";
  int64_t loader_threads = 0;
  int64_t prefetch_batches = 3;
  BadSamplePolicy on_bad_image = BadSamplePolicy::kFail;
  coco::SyntheticCocoSpec synthetic;
  int64_t synthetic_data_seed = 1;

  // data_source, data_path, train_split, eval_split, loader_threads, prefetch_batches, on_bad_image
  // and the synthetic_* keys.
  void bind(ConfigMap& c) {
    c.bind_choice("data_source", data_source,
                  "coco (a COCO 2017 folder at data_path) or synthetic_coco (generated under --data-dir)",
                  Choices<DataSource>{{"coco", DataSource::kCoco}, {"synthetic_coco", DataSource::kSyntheticCoco}});
    c.bind("data_path", data_path,
           "COCO folder: <train_split>/ and <eval_split>/ JPEGs, annotations/instances_<split>.json");
    c.bind("train_split", train_split, "training image folder under data_path (and its annotations file's suffix)");
    c.bind("eval_split", eval_split, "evaluation image folder under data_path (and its annotations file's suffix)");
    c.bind("loader_threads", loader_threads, "decode threads per rank (0 = the rank's cores)", at_least(0));
    c.bind("prefetch_batches", prefetch_batches, "batches decoded ahead of the model", at_least(1));
    c.bind_choice("on_bad_image", on_bad_image, "a missing, corrupt or truncated image: fail (exit 2, naming it) or skip (count it)",
                  Choices<BadSamplePolicy>{{"fail", BadSamplePolicy::kFail}, {"skip", BadSamplePolicy::kSkip}});
    c.bind("synthetic_categories", synthetic.categories, "synthetic_coco: object classes", in_range(1, 80));
    c.bind("synthetic_train_images", synthetic.train_images, "synthetic_coco: training images", at_least(1));
    c.bind("synthetic_val_images", synthetic.val_images, "synthetic_coco: validation images", at_least(1));
    c.bind("synthetic_min_side", synthetic.min_side, "synthetic_coco: smallest image side, pixels", at_least(16));
    c.bind("synthetic_max_side", synthetic.max_side, "synthetic_coco: largest image side, pixels", at_least(16));
    c.bind("synthetic_max_objects", synthetic.max_objects, "synthetic_coco: most objects per image", at_least(1));
    c.bind("synthetic_data_seed", synthetic_data_seed, "synthetic_coco: seed of the generated set (not the run seed)");
  }

  // UserError for a COCO source without a path (naming `mini_config`, the workload's generated-data
  // config) and for synthetic sides out of order.
  void validate_data(const std::string& mini_config) const {
    if (data_source == DataSource::kCoco && data_path.empty())
      throw UserError("key 'data_path' is empty; data_source coco reads a COCO 2017 folder (or use --config " +
                      mini_config + ")");
    if (synthetic.min_side > synthetic.max_side) throw UserError("key 'synthetic_min_side' is above 'synthetic_max_side'");
  }

  coco::SyntheticCocoSpec synthetic_spec() const {
    coco::SyntheticCocoSpec spec = synthetic;
    spec.seed = static_cast<uint64_t>(synthetic_data_seed);
    return spec;
  }

  // The COCO folder a run reads: data_path, or the generated folder under data_root.
  std::string coco_root(const std::string& data_root) const {
    if (data_source == DataSource::kCoco) return data_path;
    return (std::filesystem::path(data_root) / coco::synthetic_coco_folder_name(synthetic_spec())).string();
  }

  // Writes the synthetic folder once (rank 0; the others wait at the engine's barrier or the caller's).
  void generate_synthetic_if_missing(const std::string& root, const World& world) const {
    if (data_source != DataSource::kSyntheticCoco || !world.is_root()) return;
    generate_folder_once(root, [&](const std::string& folder) { coco::write_synthetic_coco(folder, synthetic_spec()); });
  }

  // Decode threads per rank.
  int threads(const World& world) const {
    return static_cast<int>(loader_threads > 0 ? loader_threads : world.cores_per_rank());
  }
};

// <root>/annotations/instances_<split>.json
inline std::string coco_annotations_file(const std::string& root, const std::string& split) {
  return (std::filesystem::path(root) / "annotations" / ("instances_" + split + ".json")).string();
}

}  // namespace mlh
