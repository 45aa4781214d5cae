#include "datasets/coco/detections_json.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

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
      const nlohmann::json entry = {
          {"image_id", d.image_id}, {"category_id", d.category_id}, {"bbox", {d.x, d.y, d.w, d.h}}, {"score", d.score}};
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
  std::stringstream text;
  text << file.rdbuf();
  if (!file) throw UserError(json_path + ": cannot be read; check that the file is readable");

  nlohmann::json top;
  try {
    top = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& parse_error) {
    throw UserError(json_path + ": not valid JSON: " + parse_error.what());
  } catch (const nlohmann::json::out_of_range& out_of_range) {  // a number beyond a double's range
    throw UserError(json_path + ": not valid JSON: " + out_of_range.what());
  }
  if (!top.is_array()) throw UserError(json_path + ": the top level is not a list; give a COCO detection results file");

  std::vector<Detection> detections;
  detections.reserve(top.size());
  for (size_t i = 0; i < top.size(); ++i) {
    const nlohmann::json& entry = top[i];
    if (!entry.is_object()) throw UserError(json_path + ": [" + std::to_string(i) + "] is not an object");
    Detection d;
    d.image_id = integer_field(json_path, i, entry, "image_id");
    d.category_id = integer_field(json_path, i, entry, "category_id");
    const auto bbox = entry.find("bbox");
    if (bbox == entry.end()) throw UserError(where(json_path, i, "bbox") + " is missing");
    if (!bbox->is_array() || bbox->size() != 4) {
      throw UserError(where(json_path, i, "bbox") + " is not a list of 4 numbers [x, y, width, height]");
    }
    for (const nlohmann::json& value : *bbox) {
      if (!value.is_number()) {
        throw UserError(where(json_path, i, "bbox") + " is not a list of 4 numbers [x, y, width, height]");
      }
    }
    d.x = (*bbox)[0].get<double>();
    d.y = (*bbox)[1].get<double>();
    d.w = (*bbox)[2].get<double>();
    d.h = (*bbox)[3].get<double>();
    const auto score = entry.find("score");
    if (score == entry.end()) throw UserError(where(json_path, i, "score") + " is missing");
    if (!score->is_number()) throw UserError(where(json_path, i, "score") + " is not a number");
    d.score = score->get<double>();
    detections.push_back(d);
  }
  return detections;
}

}  // namespace mlh::coco
