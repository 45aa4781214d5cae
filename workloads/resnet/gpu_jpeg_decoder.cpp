#include "workloads/resnet/gpu_jpeg_decoder.h"

#include <dlfcn.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <system_error>
#include <type_traits>

#include <c10/core/CPUAllocator.h>

#ifdef MLH_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "harness/device.h"
#include "workloads/resnet/nvjpeg_api.h"
#endif

namespace mlh::resnet {

namespace fs = std::filesystem;

namespace {

const char* const kLibraryNames[] = {"libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so"};

#ifdef MLH_WITH_CUDA

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

// The library and its entries. It stays loaded for the process (CUDA libraries are not made to be
// unloaded while their context lives).
struct NvjpegLibrary {
  std::string path;
  nvjpeg::GetProperty get_property = nullptr;
  nvjpeg::CreateSimple create_simple = nullptr;
  nvjpeg::Destroy destroy = nullptr;
  nvjpeg::StateCreate state_create = nullptr;
  nvjpeg::StateDestroy state_destroy = nullptr;
  nvjpeg::GetImageInfo get_image_info = nullptr;
  nvjpeg::Decode decode = nullptr;
};

// The first candidate that loads, with its entries; false and *why_not otherwise.
bool load_nvjpeg(NvjpegLibrary* library, std::string* why_not) {
  const std::string torch_folder = torch_library_folder();
  void* handle = nullptr;
  std::string load_error;  // from a file that exists but does not load (a missing dependency, say)
  for (const std::string& candidate : nvjpeg_library_candidates(torch_folder)) {
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    const char* error = dlerror();
    if (candidate.find('/') != std::string::npos && load_error.empty() && error != nullptr) load_error = error;
  }
  if (handle == nullptr) {
    const std::vector<std::string> folders = nvjpeg_folders(torch_folder);
    *why_not = "libnvjpeg not found (tried " + joined(std::vector<std::string>(std::begin(kLibraryNames), std::end(kLibraryNames))) +
               " on the library path" + (folders.empty() ? "" : ", and in " + joined(folders)) + ")" +
               (load_error.empty() ? "" : "; " + load_error) + "; pip install nvidia-nvjpeg into the torch environment";
    return false;
  }
  const auto entry = [&](const char* name, auto* function) {
    *function = reinterpret_cast<std::remove_pointer_t<decltype(function)>>(dlsym(handle, name));
    if (*function == nullptr && why_not->empty()) *why_not = std::string("the nvJPEG library lacks ") + name;
  };
  why_not->clear();
  entry("nvjpegGetProperty", &library->get_property);
  entry("nvjpegCreateSimple", &library->create_simple);
  entry("nvjpegDestroy", &library->destroy);
  entry("nvjpegJpegStateCreate", &library->state_create);
  entry("nvjpegJpegStateDestroy", &library->state_destroy);
  entry("nvjpegGetImageInfo", &library->get_image_info);
  entry("nvjpegDecode", &library->decode);
  Dl_info info{};
  if (library->decode != nullptr && dladdr(reinterpret_cast<void*>(library->decode), &info) != 0 && info.dli_fname)
    library->path = info.dli_fname;
  if (!why_not->empty()) *why_not += " (" + library->path + ")";
  return why_not->empty();
}

class NvjpegDecoder final : public DeviceJpegDecoder {
 public:
  NvjpegDecoder(const NvjpegLibrary& library, const torch::Device& device) : nvjpeg_(library), device_(device) {}
  ~NvjpegDecoder() override {
    if (state_ != nullptr) nvjpeg_.state_destroy(state_);
    if (handle_ != nullptr) nvjpeg_.destroy(handle_);
  }
  NvjpegDecoder(const NvjpegDecoder&) = delete;
  NvjpegDecoder& operator=(const NvjpegDecoder&) = delete;

  // The handle and the decode state on the device; false and *why_not when nvJPEG cannot start.
  bool start(std::string* why_not) {
    c10::cuda::CUDAGuard guard(device_);
    nvjpeg::Status status = nvjpeg_.create_simple(&handle_);
    if (status == nvjpeg::kSuccess) status = nvjpeg_.state_create(handle_, &state_);
    if (status != nvjpeg::kSuccess) {
      *why_not = std::string("nvJPEG did not start (") + nvjpeg::status_name(status) + ", " + nvjpeg_.path + ")";
      return false;
    }
    int major = 0, minor = 0, patch = 0;
    nvjpeg_.get_property(nvjpeg::kPropertyMajor, &major);
    nvjpeg_.get_property(nvjpeg::kPropertyMinor, &minor);
    nvjpeg_.get_property(nvjpeg::kPropertyPatch, &patch);
    version_ = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    return true;
  }

  torch::Device device() const override { return device_; }

  torch::Tensor decode(const uint8_t* bytes, size_t size, std::string* why_not) override {
    c10::cuda::CUDAGuard guard(device_);
    int components = 0, subsampling = 0;
    int widths[nvjpeg::kMaxComponents] = {}, heights[nvjpeg::kMaxComponents] = {};
    nvjpeg::Status status = nvjpeg_.get_image_info(handle_, bytes, size, &components, &subsampling, widths, heights);
    if (status != nvjpeg::kSuccess || widths[0] <= 0 || heights[0] <= 0) {
      *why_not = std::string("nvjpegGetImageInfo: ") + nvjpeg::status_name(status);
      return {};
    }
    torch::Tensor image = torch::empty({heights[0], widths[0], 3}, torch::TensorOptions(torch::kByte).device(device_));
    nvjpeg::Image destination{};
    destination.channel[0] = image.data_ptr<uint8_t>();
    destination.pitch[0] = static_cast<size_t>(widths[0]) * 3;
    status = nvjpeg_.decode(handle_, state_, bytes, size, nvjpeg::kOutputRgbInterleaved, &destination,
                            at::cuda::getCurrentCUDAStream(device_.index()).stream());
    if (status != nvjpeg::kSuccess) {
      *why_not = std::string("nvjpegDecode: ") + nvjpeg::status_name(status);
      return {};
    }
    return image;
  }

  std::string description() const override {
    return "nvJPEG " + version_ + " (" + nvjpeg_.path + ") on " + device_name(device_);
  }

 private:
  const NvjpegLibrary nvjpeg_;
  const torch::Device device_;
  nvjpeg::Handle handle_ = nullptr;
  nvjpeg::State state_ = nullptr;
  std::string version_;
};

#endif  // MLH_WITH_CUDA

}  // namespace

std::unique_ptr<DeviceJpegDecoder> open_gpu_jpeg_decoder(const torch::Device& device, std::string* why_not) {
#ifndef MLH_WITH_CUDA
  *why_not = "this build has no CUDA (Debian's LibTorch; launch/setup.sh --cuda builds one)";
  return nullptr;
#else
  if (!device.is_cuda()) {
    *why_not = "the device is the CPU";
    return nullptr;
  }
  NvjpegLibrary library;
  if (!load_nvjpeg(&library, why_not)) return nullptr;
  auto decoder = std::make_unique<NvjpegDecoder>(library, device);
  try {
    if (!decoder->start(why_not)) return nullptr;
  } catch (const std::exception& error) {  // the device itself cannot be used (c10::Error)
    const std::string what = error.what();
    *why_not = "nvJPEG did not start (" + what.substr(0, what.find('\n')) + ", " + library.path + ")";
    return nullptr;
  }
  return decoder;
#endif
}

std::vector<std::string> nvjpeg_folders(const std::string& torch_library_folder) {
  if (torch_library_folder.empty()) return {};
  const fs::path site_packages = fs::path(torch_library_folder).parent_path().parent_path();
  return {(site_packages / "nvidia" / "cu13" / "lib").string(), (site_packages / "nvidia" / "nvjpeg" / "lib").string(),
          (site_packages / "torchvision.libs").string()};
}

std::vector<std::string> nvjpeg_library_candidates(const std::string& torch_library_folder) {
  std::vector<std::string> candidates(std::begin(kLibraryNames), std::end(kLibraryNames));
  for (const std::string& folder : nvjpeg_folders(torch_library_folder)) {
    std::vector<std::string> found;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("libnvjpeg", 0) == 0 && name.find(".so") != std::string::npos) found.push_back(entry.path().string());
    }
    // Newest first (libnvjpeg.so.13 before .so.12); a bare .so last, as it may be a link to either.
    std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) { return a > b; });
    candidates.insert(candidates.end(), found.begin(), found.end());
  }
  return candidates;
}

std::string torch_library_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&c10::GetCPUAllocator), &info) == 0 || info.dli_fname == nullptr) return "";
  const fs::path library(info.dli_fname);
  if (library.filename().string().rfind("libc10", 0) != 0) return "";  // linked statically, or not found
  return library.parent_path().string();
}

}  // namespace mlh::resnet
