// What one rank's checkpoint holds: named tensors (model parameters and buffers, optimizer moments,
// loss scale, counters, random streams), in name order, copied to the CPU. Names are paths such as
// "model/conv1.weight", "optimizer/momentum/12", "engine/epoch". A workload writes its part with
// put_module / put and reads it back with load_module / copy_into / get_int, which refuse (UserError)
// a missing entry or one of another shape or type: a checkpoint of another model or config.
//
// The file: "MLHSTATE1\n", the entry count, then per entry its name, dtype, shape and raw bytes,
// all little-endian, and a trailer with the byte count and CRC-32 of everything before it. A file
// that is cut short or altered fails the check and is refused as a whole, never half-read.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <torch/types.h>

namespace torch::nn {
class Module;
}

namespace mlh {

class TrainingState {
 public:
  // Keeps a contiguous CPU copy of `value` (any dtype; no autograd history).
  void put(const std::string& name, const torch::Tensor& value);
  void put_int(const std::string& name, int64_t value);
  void put_double(const std::string& name, double value);
  // Every parameter and buffer of `module`, as "<prefix>/<its name>".
  void put_module(const std::string& prefix, const torch::nn::Module& module);

  bool contains(const std::string& name) const { return tensors_.count(name) > 0; }
  const torch::Tensor& get(const std::string& name) const;  // UserError naming a missing entry
  int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  // Copies the saved tensor into `destination` (on any device) in place; same shape and dtype.
  void copy_into(const std::string& name, torch::Tensor destination) const;
  // Copies "<prefix>/<name>" into each parameter and buffer of `module`; every one must be there.
  void load_module(const std::string& prefix, torch::nn::Module& module) const;

  const std::map<std::string, torch::Tensor>& tensors() const { return tensors_; }

  std::string to_bytes() const;
  // Throws UserError naming `source` for anything but a whole, unaltered state file.
  static TrainingState from_bytes(const std::string& bytes, const std::string& source);

 private:
  std::map<std::string, torch::Tensor> tensors_;
};

}  // namespace mlh
