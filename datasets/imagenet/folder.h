// The ImageNet folder layout (as torchvision's ImageFolder reads it): <split_dir>/<wnid>/<image>, one
// folder per class, plus a class index file giving the label order. No pixels are read here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlh::imagenet {

// The class index file names the classes in label order, one per line, the WordNet id first:
// "n01440764" or "n01440764 tench, Tinca tinca" (the Kaggle LOC_synset_mapping.txt format).
// Blank lines and lines starting with '#' are skipped. Throws UserError (file and line) for a
// missing/unreadable file, a duplicate id, or no classes.
std::vector<std::string> read_class_index(const std::string& path);

struct ImageFolder {
  std::string split_dir;               // e.g. <root>/train
  std::vector<std::string> class_ids;  // label order
  std::vector<std::string> files;      // full paths, grouped by class in label order, names sorted
  std::vector<int32_t> labels;         // 0-based label of files[i]

  int64_t size() const { return static_cast<int64_t>(files.size()); }
};

// Scans <split_dir>/<class_id>/* for image files (extensions .jpeg .jpg .png, any case; other files
// and entries whose name starts with '.' are ignored). File names are sorted (byte order), so the
// result does not depend on the filesystem's listing order. Throws UserError naming the path for: a
// missing split folder; a class of the index without a folder; a class folder with no image files;
// a folder in split_dir that is not in the class index.
ImageFolder scan_image_folder(const std::string& split_dir,
                              const std::vector<std::string>& class_ids);

}  // namespace mlh::imagenet
