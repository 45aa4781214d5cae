#include "datasets/coco/detections_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "base/user_error.h"

namespace mlh::coco {
namespace {

namespace fs = std::filesystem;

void require_finite(const std::string& path, size_t index, const char* field, double value) {
  if (!std::isfinite(value)) {
    throw UserError(path + ": detection " + std::to_string(index) + " has a " + field +
                    " that is not a finite number; JSON cannot hold it");
  }
}

std::string where(const std::string& path, size_t index, const char* field) {
  return path + ": [" + std::to_string(index) + "]." + field;
}

int64_t integer_field(const std::string& path, size_t index, const nlohmann::json& entry, const char* field) {
  const auto found = entry.find(field);
  if (found == entry.end()) throw UserError(where(path, index, field) + " is missing");
  if (!found->is_number_integer()) throw UserError(where(path, index, field) + " is not an integer");
  if (found->is_number_unsigned() && found->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    throw UserError(where(path, index, field) + " is larger than 2^63-1");
  }
  return found->get<int64_t>();
}

std::string value_text(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

bool has_box(const nlohmann::json& entry) {
  const auto bbox = entry.find("bbox");
  return bbox != entry.end() && !(bbox->is_array() && bbox->empty());
}

// Converts a results list entry by entry, as loadRes reads it (see detections_json.h).
class ResultsReader {
 public:
  explicit ResultsReader(std::string path) : path_(std::move(path)) {}

  bool on_event(int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth == 0) {
      if (event == Event::object_start) throw UserError(path_ + ": the top level is not a list; give a COCO detection results file");
      return true;
    }
    if (depth != 1 || event == Event::object_start || event == Event::array_start || event == Event::key) return true;
    const size_t index = detections_.size();
    if (event != Event::object_end) throw UserError(path_ + ": [" + std::to_string(index) + "] is not an object");
    if (index == 0) {
      boxes_ = has_box(parsed);
      if (!boxes_ && parsed.find("segmentation") == parsed.end()) {
        throw UserError(where(path_, 0, "bbox") + " is missing, and so is .segmentation: give a box or a mask");
      }
    }
    detections_.push_back(convert(parsed, index));
    return false;
  }

  std::vector<Detection> take() { return std::move(detections_); }

 private:
  Detection convert(const nlohmann::json& entry, size_t i) const {
    Detection d;
    d.image_id = integer_field(path_, i, entry, "image_id");
    d.category_id = integer_field(path_, i, entry, "category_id");
    const auto segmentation = entry.find("segmentation");
    if (segmentation != entry.end()) {
      d.segmentation = read_mask(*segmentation, i);
    } else if (!boxes_) {
      throw UserError(where(path_, i, "segmentation") +
                      " is missing (the first entry is a mask result, so every entry is read as one, as loadRes reads them)");
    }
    const auto bbox = entry.find("bbox");
    if (bbox != entry.end() && (boxes_ || has_box(entry))) {
      read_box(*bbox, i, d);
    } else if (boxes_) {
      throw UserError(where(path_, i, "bbox") +
                      " is missing (the first entry is a box result, so every entry is read as one, as loadRes reads them)");
    } else {
      const std::array<double, 4> box = mask_box(d.segmentation);
      d.x = box[0], d.y = box[1], d.w = box[2], d.h = box[3];
    }
    d.area = boxes_ ? d.w * d.h : static_cast<double>(mask_area(d.segmentation));
    const auto score = entry.find("score");
    if (score == entry.end()) throw UserError(where(path_, i, "score") + " is missing");
    if (!score->is_number()) throw UserError(where(path_, i, "score") + " is not a number");
    d.score = score->get<double>();
    return d;
  }

  void read_box(const nlohmann::json& bbox, size_t i, Detection& d) const {
    const bool four_numbers = bbox.is_array() && bbox.size() == 4 &&
                              std::all_of(bbox.begin(), bbox.end(), [](const nlohmann::json& v) { return v.is_number(); });
    if (!four_numbers) throw UserError(where(path_, i, "bbox") + " is not a list of 4 numbers [x, y, width, height]");
    d.x = bbox[0].get<double>();
    d.y = bbox[1].get<double>();
    d.w = bbox[2].get<double>();
    d.h = bbox[3].get<double>();
  }

  RunLengthMask read_mask(const nlohmann::json& segmentation, size_t i) const {
    if (!segmentation.is_object()) {
      throw UserError(where(path_, i, "segmentation") + " " + value_text(segmentation) +
                      " is not an RLE object {\"size\": [height, width], \"counts\": \"...\"}");
    }
    const auto size = segmentation.find("size");
    const bool size_ok = size != segmentation.end() && size->is_array() && size->size() == 2 &&
                         (*size)[0].is_number_unsigned() && (*size)[1].is_number_unsigned() &&
                         (*size)[0].get<uint64_t>() * (*size)[1].get<uint64_t>() <= UINT32_MAX &&
                         (*size)[0].get<uint64_t>() <= UINT32_MAX && (*size)[1].get<uint64_t>() <= UINT32_MAX;
    if (!size_ok) {
      throw UserError(where(path_, i, "segmentation.size") + " is " +
                      (size == segmentation.end() ? std::string("missing") : value_text(*size) + ", not [height, width]") +
                      " (at most 2^32-1 pixels)");
    }
    RunLengthMask mask;
    mask.height = (*size)[0].get<int64_t>();
    mask.width = (*size)[1].get<int64_t>();
    const auto counts = segmentation.find("counts");
    if (counts == segmentation.end()) throw UserError(where(path_, i, "segmentation.counts") + " is missing");
    if (!counts->is_string()) {
      throw UserError(where(path_, i, "segmentation.counts") + " " + value_text(*counts) +
                      " is not a compressed RLE string (loadRes reads mask results in that form only)");
    }
    const std::string problem = decode_rle_string(counts->get_ref<const std::string&>(), mask.counts);
    if (!problem.empty()) throw UserError(where(path_, i, "segmentation.counts") + ": compressed RLE " + problem);
    uint64_t pixels = 0;
    for (uint32_t count : mask.counts) pixels += count;
    const uint64_t expected = static_cast<uint64_t>(mask.height) * static_cast<uint64_t>(mask.width);
    if (pixels != expected) {
      throw UserError(where(path_, i, "segmentation.counts") + ": runs cover " + std::to_string(pixels) +
                      " pixels, not height x width = " + std::to_string(expected));
    }
    return mask;
  }

  std::string path_;
  bool boxes_ = true;  // the first entry has a box: every entry is a box result
  std::vector<Detection> detections_;
};

}  // namespace

void write_detections_json(const std::string& json_path, const std::vector<Detection>& detections) {
  const std::string temporary = json_path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw UserError(json_path + ": cannot be written; check that its folder exists and is writable");
    out << '[';
    for (size_t i = 0; i < detections.size(); ++i) {
      const Detection& d = detections[i];
      require_finite(json_path, i, "bbox x", d.x);
      require_finite(json_path, i, "bbox y", d.y);
      require_finite(json_path, i, "bbox width", d.w);
      require_finite(json_path, i, "bbox height", d.h);
      require_finite(json_path, i, "score", d.score);
      // One small object at a time: a whole-list json value would cost hundreds of bytes per box.
      nlohmann::json entry = {{"image_id", d.image_id}, {"category_id", d.category_id}};
      if (d.segmentation.counts.empty()) {
        entry["bbox"] = {d.x, d.y, d.w, d.h};
      } else {
        entry["segmentation"] = {{"size", {d.segmentation.height, d.segmentation.width}},
                                 {"counts", encode_rle_string(d.segmentation.counts)}};
      }
      entry["score"] = d.score;
      out << (i == 0 ? "\n" : ",\n") << entry.dump();
    }
    out << "\n]\n";
    if (!out.flush()) throw UserError(json_path + ": cannot be written (disk full?)");
  }
  std::error_code error;
  fs::rename(temporary, json_path, error);
  if (error) throw UserError(json_path + ": cannot be written: " + error.message());
}

std::vector<Detection> read_detections_json(const std::string& json_path) {
  std::error_code error;
  const fs::file_status status = fs::status(json_path, error);
  if (!fs::exists(status)) throw UserError(json_path + ": no such file; give a COCO detection results JSON file");
  if (fs::is_directory(status)) throw UserError(json_path + ": is a folder; give a COCO detection results JSON file");
  std::ifstream file(json_path, std::ios::binary);
  std::string text(static_cast<size_t>(fs::file_size(json_path, error)), '\0');
  if (error || !file.read(text.data(), static_cast<std::streamsize>(text.size()))) {
    throw UserError(json_path + ": cannot be read; check that the file is readable");
  }

  ResultsReader reader(json_path);
  try {
    // Each entry is converted when it ends and dropped from the tree (the callback's false).
    const nlohmann::json top = nlohmann::json::parse(
        text, [&reader](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          return reader.on_event(depth, event, parsed);
        });
    if (!top.is_array()) throw UserError(json_path + ": the top level is not a list; give a COCO detection results file");
  } catch (const nlohmann::json::parse_error& parse_error) {
    throw UserError(json_path + ": not valid JSON: " + parse_error.what());
  } catch (const nlohmann::json::out_of_range& out_of_range) {  // a number beyond a double's range
    throw UserError(json_path + ": not valid JSON: " + out_of_range.what());
  }
  return reader.take();
}

}  // namespace mlh::coco
