#include "harness/platform.h"

#include "harness/device.h"

namespace mlh {


std::string sanitize_path_component(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    const char mapped = keep ? c : '-';
    if (mapped == '-' && !out.empty() && out.back() == '-') continue;
    out.push_back(mapped);
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string PlatformInfo::label() const {
  std::string model = device_model;
  for (const char* noise : {"(R)", "(TM)", "(tm)", " CPU", " Processor"}) {
    for (auto at = model.find(noise); at != std::string::npos; at = model.find(noise))
      model.erase(at, std::char_traits<char>::length(noise));
  }
  if (const auto at = model.find(" @ "); at != std::string::npos) model.erase(at);
  return std::to_string(device_count) + "x" + sanitize_path_component(model);
}

PlatformInfo detect_platform(int world_size, const torch::Device& device) {
  PlatformInfo info;
  info.device_count = world_size;
  info.cuda = device.is_cuda();
  info.device_model = device_model(device);
  return info;
}

}  // namespace mlh
