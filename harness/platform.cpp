#include "harness/platform.h"

#include <fstream>

#include <torch/cuda.h>
#ifdef MLH_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace mlh {

namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string model = line.substr(colon + 1);
        model.erase(0, model.find_first_not_of(" \t"));
        return model;
      }
    }
  }
  return "cpu";
}

}  // namespace

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

PlatformInfo detect_platform(int world_size) {
  PlatformInfo info;
  info.device_count = world_size;
  info.cuda = torch::cuda::is_available();
  info.device_model = cpu_model();
#ifdef MLH_WITH_CUDA
  if (info.cuda) info.device_model = at::cuda::getCurrentDeviceProperties()->name;
#endif
  return info;
}

}  // namespace mlh
