#include "datasets/coco/annotations.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/user_error.h"

namespace mlh::coco {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

enum class Section { kOther, kImages, kAnnotations, kCategories };

const char* section_name(Section section) {
  switch (section) {
    case Section::kImages: return "images";
    case Section::kAnnotations: return "annotations";
    case Section::kCategories: return "categories";
    case Section::kOther: break;
  }
  return "";
}

Section section_of(const std::string& key) {
  if (key == "images") return Section::kImages;
  if (key == "annotations") return Section::kAnnotations;
  if (key == "categories") return Section::kCategories;
  return Section::kOther;
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

// A JSON value for a message, cut short when long.
std::string value_text(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

class Reader {
 public:
  Reader(const std::string& path, const ReadOptions& options) : options_(options) { result_.path = path; }

  Annotations read() {
    const std::string text = file_text();
    json top;
    try {
      top = json::parse(text.data(), text.data() + text.size(),
                        [this](int depth, json::parse_event_t event, json& parsed) {
                          return on_event(depth, event, parsed);
                        });
    } catch (const json::parse_error& error) {
      throw UserError(result_.path + ": not valid JSON: " + error.what());
    } catch (const json::out_of_range& error) {  // a number beyond a double's range, as 1e999
      throw UserError(result_.path + ": not valid JSON: " + error.what());
    }
    if (!top.is_object()) throw UserError(result_.path + ": the top level is not a JSON object; give a COCO instances file");
    for (const char* key : {"images", "annotations", "categories"}) {
      const auto it = top.find(key);
      if (it == top.end() || !it->is_array()) {
        throw UserError(result_.path + ": " + key + " is " + (it == top.end() ? "missing" : "not a list") +
                        "; give a COCO instances file");
      }
    }
    assign_labels();
    link_annotations();
    return std::move(result_);
  }

 private:
  struct Where {
    Section section;
    int64_t index;
  };

  [[noreturn]] void fail(Where where, const std::string& field, const std::string& what) const {
    throw UserError(result_.path + ": " + section_name(where.section) + "[" + std::to_string(where.index) + "]" +
                    (field.empty() ? "" : "." + field) + ": " + what);
  }

  std::string file_text() const {
    const std::string& path = result_.path;
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (!fs::exists(status)) throw UserError(path + ": no such file; give a COCO instances_*.json file");
    if (fs::is_directory(status)) throw UserError(path + ": is a folder; give a COCO instances_*.json file");
    std::ifstream file(path, std::ios::binary);
    std::string text;
    const auto size = fs::file_size(path, error);
    if (file && !error) {
      text.resize(size);
      file.read(text.data(), static_cast<std::streamsize>(size));
    }
    if (!file || error) throw UserError(path + ": cannot be read; check that the file is readable");
    return text;
  }

  // Converts each element of the three lists as soon as it is parsed and discards its JSON, so the
  // whole document never sits in memory as a tree.
  bool on_event(int depth, json::parse_event_t event, json& parsed) {
    using Event = json::parse_event_t;
    if (depth == 1) {
      if (event == Event::key) {
        section_ = section_of(parsed.get_ref<const std::string&>());
        in_list_ = false;
      } else if (event == Event::array_start) {
        in_list_ = true;
      }
      return true;
    }
    if (depth != 2 || section_ == Section::kOther || !in_list_) return true;
    if (event == Event::object_start || event == Event::array_start || event == Event::key) return true;
    int64_t& index = next_index_[static_cast<int>(section_)];
    const Where where{section_, index++};
    if (event != Event::object_end) fail(where, "", value_text(parsed) + " is not an object");
    switch (section_) {
      case Section::kImages: add_image(parsed, where); break;
      case Section::kAnnotations: add_annotation(parsed, where); break;
      case Section::kCategories: add_category(parsed, where); break;
      case Section::kOther: break;
    }
    return false;
  }

  const json& member(const json& object, const char* key, Where where, const char* field = nullptr) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(where, field ? field : key, "is missing");
    return *it;
  }

  int64_t integer_of(const json& value, Where where, const std::string& field) const {
    if (value.is_number_integer()) {
      if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()}) {
        fail(where, field, value_text(value) + " is too large");
      }
      return value.get<int64_t>();
    }
    if (value.is_number_float()) {
      const double number = value.get<double>();
      if (number == std::floor(number) && std::abs(number) < 9.0e15) return static_cast<int64_t>(number);
    }
    fail(where, field, value_text(value) + " is not an integer");
  }

  double number_of(const json& value, Where where, const std::string& field) const {
    if (!value.is_number()) fail(where, field, value_text(value) + " is not a number");
    return value.get<double>();
  }

  void add_image(const json& object, Where where) {
    Image image;
    image.id = integer_of(member(object, "id", where), where, "id");
    const json& file_name = member(object, "file_name", where);
    if (!file_name.is_string() || file_name.get_ref<const std::string&>().empty()) {
      fail(where, "file_name", value_text(file_name) + " is not a file name");
    }
    image.file_name = file_name.get<std::string>();
    image.width = integer_of(member(object, "width", where), where, "width");
    image.height = integer_of(member(object, "height", where), where, "height");
    if (image.width < 1) fail(where, "width", std::to_string(image.width) + " is not positive");
    if (image.height < 1) fail(where, "height", std::to_string(image.height) + " is not positive");
    const auto [it, inserted] = result_.image_index.emplace(image.id, static_cast<int32_t>(result_.images.size()));
    if (!inserted) {
      fail(where, "id", std::to_string(image.id) + " is already the id of images[" + std::to_string(it->second) + "]");
    }
    result_.images.push_back(std::move(image));
  }

  void add_category(const json& object, Where where) {
    Category category;
    category.id = integer_of(member(object, "id", where), where, "id");
    const auto name = object.find("name");
    if (name != object.end()) {
      if (!name->is_string()) fail(where, "name", value_text(*name) + " is not a string");
      category.name = name->get<std::string>();
    }
    const auto [it, inserted] =
        result_.label_of_category.emplace(category.id, static_cast<int64_t>(result_.categories.size()));
    if (!inserted) {
      fail(where, "id", std::to_string(category.id) + " is already the id of categories[" + std::to_string(it->second) +
                            "]");
    }
    result_.categories.push_back(std::move(category));
  }

  void add_annotation(const json& object, Where where) {
    Annotation annotation;
    annotation.id = integer_of(member(object, "id", where), where, "id");
    annotation.image_id = integer_of(member(object, "image_id", where), where, "image_id");
    annotation.category_id = integer_of(member(object, "category_id", where), where, "category_id");
    const json& bbox = member(object, "bbox", where);
    if (!bbox.is_array() || bbox.size() != 4) fail(where, "bbox", value_text(bbox) + " is not 4 numbers [x, y, w, h]");
    annotation.x = number_of(bbox[0], where, "bbox[0]");
    annotation.y = number_of(bbox[1], where, "bbox[1]");
    annotation.w = number_of(bbox[2], where, "bbox[2]");
    annotation.h = number_of(bbox[3], where, "bbox[3]");
    if (annotation.w < 0) fail(where, "bbox", "width " + number_text(annotation.w) + " is negative");
    if (annotation.h < 0) fail(where, "bbox", "height " + number_text(annotation.h) + " is negative");
    const auto area = object.find("area");
    annotation.area = area != object.end() ? number_of(*area, where, "area") : annotation.w * annotation.h;
    if (annotation.area < 0) fail(where, "area", number_text(annotation.area) + " is negative");
    const auto iscrowd = object.find("iscrowd");
    if (iscrowd != object.end()) {
      if (iscrowd->is_boolean()) {
        annotation.iscrowd = iscrowd->get<bool>();
      } else {
        const int64_t flag = integer_of(*iscrowd, where, "iscrowd");
        if (flag != 0 && flag != 1) fail(where, "iscrowd", std::to_string(flag) + " is not 0 or 1");
        annotation.iscrowd = flag == 1;
      }
    }
    const auto segmentation = object.find("segmentation");
    if (segmentation != object.end()) annotation.segmentation = segmentation_of(*segmentation, where);
    result_.annotations.push_back(std::move(annotation));
  }

  Segmentation segmentation_of(const json& value, Where where) {
    Segmentation segmentation;
    if (value.is_array()) {
      segmentation.polygons.reserve(value.size());
      for (size_t k = 0; k < value.size(); ++k) {
        const json& polygon = value[k];
        const std::string field = "segmentation[" + std::to_string(k) + "]";
        if (!polygon.is_array()) fail(where, field, value_text(polygon) + " is not a polygon (a list of x, y numbers)");
        if (polygon.size() % 2 != 0) {
          fail(where, field, "has " + std::to_string(polygon.size()) + " numbers; a polygon takes x, y pairs");
        }
        std::vector<double> coordinates;
        coordinates.reserve(polygon.size());
        for (const json& number : polygon) coordinates.push_back(number_of(number, where, field));
        if (coordinates.size() < 6) {
          ++result_.dropped_polygons;
          continue;
        }
        segmentation.polygons.push_back(std::move(coordinates));
      }
      if (!segmentation.polygons.empty()) segmentation.kind = Segmentation::Kind::kPolygons;
      return segmentation;
    }
    if (!value.is_object()) fail(where, "segmentation", value_text(value) + " is neither polygons nor an RLE object");
    RunLengthMask& rle = segmentation.rle;
    const json& size = member(value, "size", where, "segmentation.size");
    if (!size.is_array() || size.size() != 2) fail(where, "segmentation.size", value_text(size) + " is not [height, width]");
    rle.height = integer_of(size[0], where, "segmentation.size");
    rle.width = integer_of(size[1], where, "segmentation.size");
    if (rle.height < 0 || rle.width < 0) fail(where, "segmentation.size", value_text(size) + " has a negative side");
    const auto counts = value.find("counts");
    if (counts == value.end()) fail(where, "segmentation.counts", "is missing");
    if (counts->is_string()) {
      const std::string problem = decode_rle_string(counts->get_ref<const std::string&>(), rle.counts);
      if (!problem.empty()) fail(where, "segmentation.counts", "compressed RLE " + problem);
    } else if (counts->is_array()) {
      rle.counts.reserve(counts->size());
      for (const json& count : *counts) {
        const int64_t number = integer_of(count, where, "segmentation.counts");
        if (number < 0 || number > std::numeric_limits<uint32_t>::max()) {
          fail(where, "segmentation.counts", std::to_string(number) + " is not a run length");
        }
        rle.counts.push_back(static_cast<uint32_t>(number));
      }
    } else {
      fail(where, "segmentation.counts", value_text(*counts) + " is neither a list of run lengths nor an RLE string");
    }
    uint64_t pixels = 0;
    for (uint32_t count : rle.counts) pixels += count;
    const uint64_t expected = static_cast<uint64_t>(rle.height) * static_cast<uint64_t>(rle.width);
    if (pixels != expected) {
      fail(where, "segmentation.counts",
           "runs cover " + std::to_string(pixels) + " pixels, not height x width = " + std::to_string(expected));
    }
    segmentation.kind = Segmentation::Kind::kRle;
    return segmentation;
  }

  void assign_labels() {
    std::sort(result_.categories.begin(), result_.categories.end(),
              [](const Category& a, const Category& b) { return a.id < b.id; });
    for (size_t k = 0; k < result_.categories.size(); ++k) {
      Category& category = result_.categories[k];
      category.label = static_cast<int64_t>(k) + 1;
      result_.label_of_category[category.id] = category.label;
    }
  }

  // Checks each annotation's image and category, drops images without annotations (unless kept) and
  // lists each image's annotations.
  void link_annotations() {
    std::vector<Annotation>& annotations = result_.annotations;
    if (annotations.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      throw UserError(result_.path + ": holds more than 2^31-1 annotations");
    }
    std::vector<int32_t> annotations_of_image(result_.images.size(), 0);
    std::vector<int32_t> image_of_annotation(annotations.size());
    for (size_t i = 0; i < annotations.size(); ++i) {
      Annotation& annotation = annotations[i];
      const Where where{Section::kAnnotations, static_cast<int64_t>(i)};
      const auto category = result_.label_of_category.find(annotation.category_id);
      if (category == result_.label_of_category.end()) {
        fail(where, "category_id", std::to_string(annotation.category_id) + " is not a declared category");
      }
      annotation.label = category->second;
      const auto image = result_.image_index.find(annotation.image_id);
      if (image == result_.image_index.end()) {
        fail(where, "image_id", std::to_string(annotation.image_id) + " is not an image id of the file");
      }
      image_of_annotation[i] = image->second;
      ++annotations_of_image[image->second];
    }

    std::vector<int32_t> kept_index(result_.images.size(), -1);
    std::vector<Image> kept;
    kept.reserve(result_.images.size());
    result_.image_index.clear();
    for (size_t k = 0; k < result_.images.size(); ++k) {
      if (annotations_of_image[k] == 0 && !options_.keep_images_without_annotations) {
        ++result_.dropped_images;
        continue;
      }
      kept_index[k] = static_cast<int32_t>(kept.size());
      result_.image_index.emplace(result_.images[k].id, kept_index[k]);
      kept.push_back(std::move(result_.images[k]));
      kept.back().annotations.reserve(annotations_of_image[k]);
    }
    // Every annotation names a declared image, which has at least that annotation, so none is lost.
    for (size_t i = 0; i < annotations.size(); ++i) {
      kept[kept_index[image_of_annotation[i]]].annotations.push_back(static_cast<int32_t>(i));
    }
    result_.images = std::move(kept);
  }

  ReadOptions options_;
  Annotations result_;
  Section section_ = Section::kOther;
  bool in_list_ = false;
  int64_t next_index_[4] = {0, 0, 0, 0};
};

}  // namespace

Annotations read_annotations(const std::string& json_path, const ReadOptions& options) {
  return Reader(json_path, options).read();
}

RunLengthMask annotation_mask(const Segmentation& segmentation, int64_t image_height, int64_t image_width) {
  switch (segmentation.kind) {
    case Segmentation::Kind::kPolygons: return polygons_to_mask(segmentation.polygons, image_height, image_width);
    case Segmentation::Kind::kRle: return segmentation.rle;
    case Segmentation::Kind::kNone: break;
  }
  return polygons_to_mask({}, image_height, image_width);
}

}  // namespace mlh::coco
