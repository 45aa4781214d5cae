// A learnable synthetic ImageNet in the real on-disk layout, so tests and smoke runs go through the
// same folder reader, decoder and transforms as the real data. Deterministic in the spec.
//
// Class k has its own colour (hue spaced by the golden ratio), stripe orientation and stripe period.
// Each image draws its size, a rectangle (60-100% of each side, random offset) painted with the
// class's stripes at a random phase and slightly jittered angle, period and brightness, over a grey
// background of random level, plus per-pixel noise. Random crops keep the colour and stripes, so a
// small CNN can tell the classes apart.
#pragma once

#include <cstdint>
#include <string>

namespace mlh::imagenet {

inline constexpr const char* kClassIndexFileName = "LOC_synset_mapping.txt";

struct SyntheticImageNetSpec {
  int classes = 10;
  int train_images_per_class = 8;
  int val_images_per_class = 2;
  int min_side = 160, max_side = 320;  // image sides drawn per image in [min_side, max_side]
  int jpeg_quality = 90;
  uint64_t seed = 1;
};

// Writes <root>/train/<wnid>/<wnid>_<n>.JPEG (n from 1), <root>/val/<wnid>/ILSVRC2012_val_<8 digits>
// .JPEG (numbered from 1 across classes in label order) and <root>/LOC_synset_mapping.txt
// ("<wnid> synthetic class <k>" lines, label order), with WordNet-style ids "n%08d" (class k is
// n01000000 + k). Folders are created as needed; files of the same name are overwritten, other files
// are left alone. Throws UserError when root cannot be written, or for a spec out of range (counts
// below 1, more than 10^6 classes, min_side below 8 or above max_side, quality outside 1..100).
void write_synthetic_imagenet(const std::string& root, const SyntheticImageNetSpec& spec);

}  // namespace mlh::imagenet
