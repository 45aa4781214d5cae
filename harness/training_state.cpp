#include "harness/training_state.h"

#include <cstring>
#include <sstream>

#include <torch/nn/module.h>

#include "base/user_error.h"
#include "harness/checkpoint_manifest.h"

namespace mlh {

namespace {

constexpr char kMagic[] = "MLHSTATE1\n";
constexpr size_t kMagicBytes = sizeof kMagic - 1;
constexpr char kTrailerMagic[] = "MLHEND1\n";
constexpr size_t kTrailerBytes = 8 + 8 + 4 + 4;  // magic, byte count before the trailer, CRC-32, padding
constexpr uint32_t kMaxNameBytes = 4096;
constexpr uint32_t kMaxDims = 16;

const std::map<int8_t, torch::ScalarType>& stored_dtypes() {
  static const std::map<int8_t, torch::ScalarType> dtypes = {
      {0, torch::kFloat}, {1, torch::kDouble}, {2, torch::kHalf}, {3, torch::kBFloat16}, {4, torch::kLong},
      {5, torch::kInt},   {6, torch::kShort},  {7, torch::kChar}, {8, torch::kByte},     {9, torch::kBool}};
  return dtypes;
}

int8_t dtype_code(torch::ScalarType dtype) {
  for (const auto& [code, stored] : stored_dtypes())
    if (stored == dtype) return code;
  throw UserError(std::string("a checkpoint cannot hold tensors of type ") + c10::toString(dtype));
}

template <class T>
void append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Reads the body of a state file, every read checked against its end.
class Cursor {
 public:
  Cursor(const char* data, size_t size, const std::string& source) : data_(data), size_(size), source_(source) {}
  template <class T>
  T read(const char* what) {
    T value;
    std::memcpy(&value, take(sizeof value, what), sizeof value);
    return value;
  }
  const char* take(size_t bytes, const char* what) {
    if (bytes > size_ - offset_) fail(std::string("ends inside ") + what);
    const char* at = data_ + offset_;
    offset_ += bytes;
    return at;
  }
  bool done() const { return offset_ == size_; }
  [[noreturn]] void fail(const std::string& why) const {
    throw UserError("checkpoint state " + source_ + " is not valid: " + why + " (at byte " + std::to_string(offset_) + ")");
  }

 private:
  const char* data_;
  size_t size_;
  size_t offset_ = 0;
  const std::string& source_;
};

}  // namespace

void TrainingState::put(const std::string& name, const torch::Tensor& value) {
  MLH_ASSERT(!name.empty() && name.size() <= kMaxNameBytes && value.defined());
  tensors_[name] = value.detach().to(torch::kCPU).contiguous().clone();
}

void TrainingState::put_int(const std::string& name, int64_t value) { put(name, torch::tensor(value, torch::kLong)); }

void TrainingState::put_double(const std::string& name, double value) {
  put(name, torch::tensor(value, torch::kDouble));
}

void TrainingState::put_module(const std::string& prefix, const torch::nn::Module& module) {
  for (const auto& item : module.named_parameters()) put(prefix + "/" + item.key(), item.value());
  for (const auto& item : module.named_buffers()) put(prefix + "/" + item.key(), item.value());
}

const torch::Tensor& TrainingState::get(const std::string& name) const {
  const auto found = tensors_.find(name);
  if (found == tensors_.end())
    throw UserError("the checkpoint has no '" + name + "': it was written by another workload, model or version");
  return found->second;
}

int64_t TrainingState::get_int(const std::string& name) const {
  const torch::Tensor& value = get(name);
  if (value.scalar_type() != torch::kLong || value.numel() != 1)
    throw UserError("the checkpoint's '" + name + "' is not an integer");
  return value.item<int64_t>();
}

double TrainingState::get_double(const std::string& name) const {
  const torch::Tensor& value = get(name);
  if (value.scalar_type() != torch::kDouble || value.numel() != 1)
    throw UserError("the checkpoint's '" + name + "' is not a number");
  return value.item<double>();
}

void TrainingState::copy_into(const std::string& name, torch::Tensor destination) const {
  const torch::Tensor& value = get(name);
  if (value.sizes() != destination.sizes() || value.scalar_type() != destination.scalar_type()) {
    std::ostringstream why;
    why << "the checkpoint's '" << name << "' is " << c10::toString(value.scalar_type()) << value.sizes()
        << " where this run has " << c10::toString(destination.scalar_type()) << destination.sizes()
        << ": it was written with another model size or config";
    throw UserError(why.str());
  }
  torch::NoGradGuard no_grad;
  destination.copy_(value);
}

void TrainingState::load_module(const std::string& prefix, torch::nn::Module& module) const {
  for (const auto& item : module.named_parameters()) copy_into(prefix + "/" + item.key(), item.value());
  for (const auto& item : module.named_buffers()) copy_into(prefix + "/" + item.key(), item.value());
}

std::string TrainingState::to_bytes() const {
  std::string out(kMagic, kMagicBytes);
  append<uint64_t>(out, tensors_.size());
  for (const auto& [name, value] : tensors_) {
    append<uint32_t>(out, static_cast<uint32_t>(name.size()));
    out += name;
    append<int8_t>(out, dtype_code(value.scalar_type()));
    append<uint32_t>(out, static_cast<uint32_t>(value.dim()));
    for (int64_t size : value.sizes()) append<int64_t>(out, size);
    const uint64_t bytes = static_cast<uint64_t>(value.numel()) * value.element_size();
    append<uint64_t>(out, bytes);
    out.append(static_cast<const char*>(value.data_ptr()), bytes);
  }
  const uint64_t body_bytes = out.size();
  const uint32_t crc = crc32_of(out);
  out.append(kTrailerMagic, 8);
  append<uint64_t>(out, body_bytes);
  append<uint32_t>(out, crc);
  append<uint32_t>(out, 0);
  return out;
}

TrainingState TrainingState::from_bytes(const std::string& bytes, const std::string& source) {
  if (bytes.size() < kMagicBytes + kTrailerBytes || bytes.compare(0, kMagicBytes, kMagic) != 0)
    throw UserError("checkpoint state " + source + " is not a state file (" + std::to_string(bytes.size()) +
                    " bytes, no MLHSTATE1 header)");
  const size_t body_bytes = bytes.size() - kTrailerBytes;
  uint64_t recorded_bytes = 0;
  uint32_t recorded_crc = 0;
  std::memcpy(&recorded_bytes, bytes.data() + body_bytes + 8, 8);
  std::memcpy(&recorded_crc, bytes.data() + body_bytes + 16, 4);
  if (bytes.compare(body_bytes, 8, kTrailerMagic, 8) != 0 || recorded_bytes != body_bytes)
    throw UserError("checkpoint state " + source + " is cut short or padded (" + std::to_string(bytes.size()) +
                    " bytes): it was not written to the end");
  const std::string body = bytes.substr(0, body_bytes);
  if (crc32_of(body) != recorded_crc)
    throw UserError("checkpoint state " + source + " fails its CRC-32 check: the file was altered or damaged");

  Cursor cursor(body.data() + kMagicBytes, body.size() - kMagicBytes, source);
  const uint64_t count = cursor.read<uint64_t>("the entry count");
  TrainingState state;
  for (uint64_t i = 0; i < count; ++i) {
    const uint32_t name_bytes = cursor.read<uint32_t>("a name length");
    if (name_bytes == 0 || name_bytes > kMaxNameBytes) cursor.fail("an entry name of " + std::to_string(name_bytes) + " bytes");
    const std::string name(cursor.take(name_bytes, "a name"), name_bytes);
    const auto dtype = stored_dtypes().find(cursor.read<int8_t>("a type code"));
    if (dtype == stored_dtypes().end()) cursor.fail("entry '" + name + "' has an unknown type code");
    const uint32_t dims = cursor.read<uint32_t>("a rank");
    if (dims > kMaxDims) cursor.fail("entry '" + name + "' has " + std::to_string(dims) + " dimensions");
    std::vector<int64_t> sizes(dims);
    uint64_t numel = 1;
    for (uint32_t d = 0; d < dims; ++d) {
      sizes[d] = cursor.read<int64_t>("a shape");
      if (sizes[d] < 0 || (sizes[d] > 0 && numel > (uint64_t{1} << 50) / static_cast<uint64_t>(sizes[d])))
        cursor.fail("entry '" + name + "' has an impossible shape");
      numel *= static_cast<uint64_t>(sizes[d]);
    }
    const uint64_t data_bytes = cursor.read<uint64_t>("a byte count");
    const uint64_t element_bytes = c10::elementSize(dtype->second);
    if (data_bytes != numel * element_bytes) cursor.fail("entry '" + name + "' has a byte count that does not match its shape");
    const char* data = cursor.take(data_bytes, "tensor data");
    if (state.tensors_.count(name)) cursor.fail("entry '" + name + "' appears twice");
    torch::Tensor value = torch::empty(sizes, torch::TensorOptions().dtype(dtype->second));
    if (data_bytes > 0) std::memcpy(value.data_ptr(), data, data_bytes);
    state.tensors_.emplace(name, std::move(value));
  }
  if (!cursor.done()) cursor.fail("bytes after the last entry");
  return state;
}

}  // namespace mlh
