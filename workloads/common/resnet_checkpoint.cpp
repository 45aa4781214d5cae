#include "workloads/common/resnet_checkpoint.h"

#include <fstream>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include <torch/csrc/jit/serialization/pickle.h>

#include "base/user_error.h"

namespace mlh::common {

int64_t load_torchvision_resnet(ResNet& backbone, const std::string& path, const std::string& torchvision_name) {
  const std::string export_hint = "export one with torch.save(dict(torchvision.models." + torchvision_name +
                                  "(weights='IMAGENET1K_V1').state_dict()), path)";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot read the backbone checkpoint (key backbone_checkpoint)");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  c10::IValue loaded;
  try {
    loaded = torch::pickle_load(bytes);
  } catch (const std::exception& e) {
    std::string reason = e.what();
    reason = reason.substr(0, reason.find('\n'));
    throw UserError(path + ": cannot read it as a dict saved by torch.save (" + reason + "); " + export_hint);
  }
  if (!loaded.isGenericDict())
    throw UserError(path + ": holds a " + loaded.tagKind() + ", not a dict of name -> tensor; " + export_hint);
  std::map<std::string, torch::Tensor> state;
  for (const auto& entry : loaded.toGenericDict())
    if (entry.key().isString() && entry.value().isTensor())
      state[entry.key().toStringRef()] = entry.value().toTensor();

  // Every tensor is checked before any is copied: a bad file leaves the backbone as it was.
  std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;  // (target, source)
  auto find = [&](const std::string& name, const torch::Tensor& target) {
    const auto found = state.find(name);
    if (found == state.end())
      throw UserError(path + ": no tensor '" + name + "' (is it a torchvision " + torchvision_name + " state dict?)");
    if (found->second.sizes() != target.sizes())
      throw UserError(path + ": '" + name + "' has shape " + c10::str(found->second.sizes()) + ", the backbone's is " +
                      c10::str(target.sizes()) + " (the checkpoint must be a full-width " + torchvision_name + ")");
    copies.emplace_back(target, found->second);
  };
  for (const auto& p : backbone->named_parameters()) find(p.key(), p.value());
  for (const auto& b : backbone->named_buffers())
    if (b.key().find("num_batches_tracked") == std::string::npos) find(b.key(), b.value());
  torch::NoGradGuard no_grad;
  for (auto& [target, source] : copies) target.copy_(source);
  return static_cast<int64_t>(copies.size());
}

}  // namespace mlh::common
