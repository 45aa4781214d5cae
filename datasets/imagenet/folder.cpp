#include "datasets/imagenet/folder.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "base/user_error.h"

namespace mlh::imagenet {
namespace {

namespace fs = std::filesystem;

constexpr const char* kClassIndexHint =
    "give a class index such as LOC_synset_mapping.txt: one WordNet id per line, in label order";

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool has_image_extension(const fs::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".jpeg" || extension == ".jpg" || extension == ".png";
}

bool is_hidden(const fs::path& path) {
  const std::string name = path.filename().string();
  return !name.empty() && name.front() == '.';
}

// Image files directly inside `folder`, full paths sorted by name.
std::vector<std::string> sorted_image_files(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const fs::path& path = it->path();
    if (is_hidden(path) || !has_image_extension(path)) continue;
    std::error_code type_error;
    if (it->is_directory(type_error)) continue;
    names.push_back(path.filename().string());
  }
  if (error) {
    throw UserError(folder.string() + ": cannot be listed (" + error.message() +
                    "); check its permissions");
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> files;
  files.reserve(names.size());
  for (const std::string& name : names) files.push_back((folder / name).string());
  return files;
}

}  // namespace

std::vector<std::string> read_class_index(const std::string& path) {
  std::error_code status_error;
  const fs::file_status status = fs::status(path, status_error);
  if (!fs::exists(status)) throw UserError(path + ": no such file; " + kClassIndexHint);
  if (fs::is_directory(status)) throw UserError(path + ": is a folder; " + kClassIndexHint);
  std::ifstream file(path);
  if (!file) throw UserError(path + ": cannot be opened; check that the file is readable");

  std::vector<std::string> class_ids;
  std::unordered_map<std::string, int64_t> first_line_of;
  std::string line;
  for (int64_t line_number = 1; std::getline(file, line); ++line_number) {
    const auto begin = std::find_if_not(line.begin(), line.end(), is_space);
    if (begin == line.end() || *begin == '#') continue;
    const std::string id(begin, std::find_if(begin, line.end(), is_space));
    const auto [it, inserted] = first_line_of.emplace(id, line_number);
    if (!inserted) {
      throw UserError(path + ":" + std::to_string(line_number) + ": class '" + id +
                      "' is listed again (first at line " + std::to_string(it->second) +
                      "); list each class once");
    }
    class_ids.push_back(id);
  }
  if (file.bad()) throw UserError(path + ": read failed; check the disk and the file");
  if (class_ids.empty()) throw UserError(path + ": names no classes; " + kClassIndexHint);
  return class_ids;
}

ImageFolder scan_image_folder(const std::string& split_dir,
                              const std::vector<std::string>& class_ids) {
  std::error_code status_error;
  const fs::file_status status = fs::status(split_dir, status_error);
  if (!fs::is_directory(status)) {
    throw UserError(split_dir + (fs::exists(status) ? ": is not a folder" : ": no such folder") +
                    "; give a split folder holding one folder of images per class");
  }
  const fs::path split(split_dir);
  const std::unordered_set<std::string> known(class_ids.begin(), class_ids.end());

  // Folders that are not classes of the index: most likely a mismatched index, so say so first.
  std::vector<std::string> unknown;
  bool holds_loose_images = false;
  std::error_code error;
  for (fs::directory_iterator it(split, error), end; !error && it != end; it.increment(error)) {
    if (is_hidden(it->path())) continue;
    std::error_code type_error;
    if (it->is_directory(type_error)) {
      if (known.count(it->path().filename().string()) == 0) unknown.push_back(it->path().string());
    } else if (has_image_extension(it->path())) {
      holds_loose_images = true;
    }
  }
  if (error) {
    throw UserError(split_dir + ": cannot be listed (" + error.message() +
                    "); check its permissions");
  }
  if (!unknown.empty()) {
    std::sort(unknown.begin(), unknown.end());
    throw UserError(unknown.front() + ": folder is not a class of the class index (which has " +
                    std::to_string(class_ids.size()) + " classes" +
                    (unknown.size() > 1
                         ? "; " + std::to_string(unknown.size() - 1) + " more such folders"
                         : std::string()) +
                    "); use the class index that matches this dataset");
  }

  ImageFolder folder;
  folder.split_dir = split_dir;
  folder.class_ids = class_ids;
  for (size_t label = 0; label < class_ids.size(); ++label) {
    const fs::path class_dir = split / class_ids[label];
    std::error_code class_error;
    if (!fs::is_directory(class_dir, class_error)) {
      throw UserError(class_dir.string() + ": no such folder for class " +
                      std::to_string(label) + " of the class index" +
                      (holds_loose_images
                           ? "; the split holds loose images: sort them into one folder per class"
                           : "; every class needs a folder of images"));
    }
    std::vector<std::string> files = sorted_image_files(class_dir);
    if (files.empty()) {
      throw UserError(class_dir.string() +
                      ": empty class folder (no .jpeg, .jpg or .png files); every class needs "
                      "at least one image");
    }
    folder.labels.insert(folder.labels.end(), files.size(), static_cast<int32_t>(label));
    std::move(files.begin(), files.end(), std::back_inserter(folder.files));
  }
  return folder;
}

}  // namespace mlh::imagenet
