#include "datasets/wmt/sentencepiece_codec.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include "base/user_error.h"

#ifndef MLH_SENTENCEPIECE_MODULE_BUILT
#error "CMake passes MLH_SENTENCEPIECE_MODULE_BUILT (datasets/CMakeLists.txt)"
#endif
#ifndef MLH_SENTENCEPIECE_MODULE_NAME
#error "CMake passes MLH_SENTENCEPIECE_MODULE_NAME (datasets/CMakeLists.txt)"
#endif

namespace mlh::wmt {
namespace {

namespace fs = std::filesystem;

// What sentencepiece_module.cpp exports; the version changes with any signature.
constexpr int32_t kModuleInterfaceVersion = 1;
constexpr size_t kErrorCapacity = 1024;
// The unigram trainer sums its EM statistics per thread, so the model depends on the thread count:
// a constant keeps the model the same on every machine.
constexpr int kTrainerThreads = 4;
constexpr int32_t kUnkId = 2;

using InterfaceVersionFn = int32_t (*)();
using TrainFn = int32_t (*)(const char* args, const char* const* input_files, int32_t num_input_files,
                            uint32_t random_seed, const char* model_file, char* error,
                            size_t error_capacity);
using LoadFn = void* (*)(const char* model_bytes, size_t size, char* error, size_t error_capacity);
using FreeFn = void (*)(void* model);
using PieceCountFn = int32_t (*)(const void* model);
using SpecialIdsFn = void (*)(const void* model, int32_t* ids);
using EncodeFn = int64_t (*)(const void* model, const char* text, size_t text_size, int32_t* ids,
                             size_t capacity, char* error, size_t error_capacity);
using DecodeFn = int64_t (*)(const void* model, const int32_t* ids, size_t count, char* text,
                             size_t capacity, char* error, size_t error_capacity);

struct SentencePieceModule {
  fs::path file;
  TrainFn train = nullptr;
  LoadFn load = nullptr;
  FreeFn free_model = nullptr;
  PieceCountFn piece_count = nullptr;
  SpecialIdsFn special_ids = nullptr;
  EncodeFn encode = nullptr;
  DecodeFn decode = nullptr;
};

std::vector<fs::path> module_candidates() {
  std::vector<fs::path> candidates;
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    candidates.push_back(executable.parent_path() / MLH_SENTENCEPIECE_MODULE_NAME);
    candidates.push_back(executable.parent_path().parent_path() / "datasets" /
                         MLH_SENTENCEPIECE_MODULE_NAME);
  }
  candidates.emplace_back(MLH_SENTENCEPIECE_MODULE_BUILT);
  return candidates;
}

template <typename Function>
Function symbol(void* handle, const fs::path& file, const char* name) {
  void* address = dlsym(handle, name);
  if (address == nullptr) {
    throw UserError(file.string() + ": lacks " + name +
                    "; it is a stale SentencePiece module: rebuild the target mlh_sentencepiece");
  }
  return reinterpret_cast<Function>(address);
}

SentencePieceModule open_module() {
  const std::vector<fs::path> candidates = module_candidates();
  const auto found = std::find_if(candidates.begin(), candidates.end(), [](const fs::path& file) {
    std::error_code error;
    return fs::is_regular_file(file, error);
  });
  if (found == candidates.end()) {
    std::string looked;
    for (const fs::path& file : candidates) looked += (looked.empty() ? "" : ", ") + file.string();
    throw UserError(std::string("the SentencePiece module ") + MLH_SENTENCEPIECE_MODULE_NAME +
                    " is in none of " + looked +
                    "; build the target mlh_sentencepiece, or install it next to the mlharness "
                    "executable");
  }
  // RTLD_LOCAL | RTLD_DEEPBIND: the module and libsentencepiece resolve their symbols (its protobuf
  // runtime above all) among their own first, and export nothing into the process.
  void* handle = dlopen(found->c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw UserError(found->string() + ": cannot be loaded (" + (reason ? reason : "unknown reason") +
                    "); is libsentencepiece installed (apt-get install libsentencepiece0)?");
  }
  // The handle stays open for the life of the process: models may live until exit.
  const auto version = symbol<InterfaceVersionFn>(handle, *found, "mlh_spm_interface_version");
  if (version() != kModuleInterfaceVersion) {
    throw UserError(found->string() + ": has interface version " + std::to_string(version()) +
                    ", this mlharness needs " + std::to_string(kModuleInterfaceVersion) +
                    "; rebuild the target mlh_sentencepiece");
  }
  SentencePieceModule module;
  module.file = *found;
  module.train = symbol<TrainFn>(handle, *found, "mlh_spm_train");
  module.load = symbol<LoadFn>(handle, *found, "mlh_spm_load");
  module.free_model = symbol<FreeFn>(handle, *found, "mlh_spm_free");
  module.piece_count = symbol<PieceCountFn>(handle, *found, "mlh_spm_piece_count");
  module.special_ids = symbol<SpecialIdsFn>(handle, *found, "mlh_spm_special_ids");
  module.encode = symbol<EncodeFn>(handle, *found, "mlh_spm_encode");
  module.decode = symbol<DecodeFn>(handle, *found, "mlh_spm_decode");
  return module;
}

// Opened once per process; a failed open throws and is tried again on the next call.
const SentencePieceModule& sentencepiece_module() {
  static const SentencePieceModule module = open_module();
  return module;
}

std::string read_model_bytes(const fs::path& file) {
  std::error_code error;
  if (!fs::exists(file, error)) {
    throw UserError(file.string() +
                    ": no such SentencePiece model; run `mlharness prepare` to train one");
  }
  if (!fs::is_regular_file(file, error)) {
    throw UserError(file.string() + ": is not a file; expected a SentencePiece model (spm.model)");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file.string() + ": cannot be opened");
  // Reading through the buffer leaves the stream's state alone: check the buffer reached the end.
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.rdbuf()->sgetc() != std::char_traits<char>::eof()) {
    throw UserError(file.string() + ": cannot be read");
  }
  if (bytes.empty()) {
    throw UserError(file.string() + ": is empty; expected a SentencePiece model (prepare it again)");
  }
  return bytes;
}

class SentencePieceCodec final : public SubwordCodec {
 public:
  SentencePieceCodec(const SentencePieceModule& module, void* model, fs::path file)
      : module_(module), model_(model), file_(std::move(file)),
        vocabulary_size_(module.piece_count(model)) {}
  ~SentencePieceCodec() override { module_.free_model(model_); }
  SentencePieceCodec(const SentencePieceCodec&) = delete;
  SentencePieceCodec& operator=(const SentencePieceCodec&) = delete;

  int64_t vocabulary_size() const override { return vocabulary_size_; }

  TokenIds encode(const std::string& text) const override {
    // Pieces are at least one character, so the length (plus the dummy-prefix piece) is nearly
    // always enough; NFKC expansions are caught by the second call.
    TokenIds ids(text.size() + 2);
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::array<char, kErrorCapacity> error{};
      const int64_t needed = module_.encode(model_, text.data(), text.size(), ids.data(),
                                            ids.size(), error.data(), error.size());
      if (needed < 0) fail("encoding", error.data());
      const bool fitted = static_cast<size_t>(needed) <= ids.size();
      ids.resize(static_cast<size_t>(needed));
      if (fitted) {
        ids.push_back(kEosId);
        return ids;
      }
    }
    fail("encoding", "the id count changed between two calls");
  }

  std::string decode(const TokenIds& ids) const override {
    TokenIds pieces;
    pieces.reserve(ids.size());
    for (const int32_t id : ids) {
      if (id == kEosId) break;
      // Ids outside the vocabulary (a model's padded embedding rows) are skipped, as the t2t
      // codec skips them.
      if (id == kPadId || id < 0 || id >= vocabulary_size_) continue;
      pieces.push_back(id);
    }
    std::string text(pieces.size() * 8, '\0');
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::array<char, kErrorCapacity> error{};
      const int64_t needed = module_.decode(model_, pieces.data(), pieces.size(), text.data(),
                                            text.size(), error.data(), error.size());
      if (needed < 0) fail("decoding", error.data());
      const bool fitted = static_cast<size_t>(needed) <= text.size();
      text.resize(static_cast<size_t>(needed));
      if (fitted) return text;
    }
    fail("decoding", "the text length changed between two calls");
  }

  std::string describe() const override {
    return "SentencePiece " + file_.string() + " (" + std::to_string(vocabulary_size_) + " pieces)";
  }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& reason) const {
    throw InternalError("SentencePiece " + what + " with " + file_.string() + " failed: " + reason);
  }

  const SentencePieceModule& module_;
  void* model_;
  fs::path file_;
  int64_t vocabulary_size_;
};

// SentencePiece reserves UINT32_MAX for "seed from std::random_device".
uint32_t sentencepiece_seed(uint64_t seed) {
  const auto folded = static_cast<uint32_t>(seed ^ (seed >> 32));
  return folded == std::numeric_limits<uint32_t>::max() ? folded - 1 : folded;
}

// Whether the file has a line the trainer reads (non-empty once a trailing '\r' is gone).
bool has_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) return true;
  }
  return false;
}

std::string joined(const std::vector<fs::path>& files) {
  std::string text;
  for (const fs::path& file : files) text += (text.empty() ? "" : ", ") + file.string();
  return text;
}

}  // namespace

std::unique_ptr<SubwordCodec> load_sentencepiece_codec(const fs::path& model_file) {
  const std::string bytes = read_model_bytes(model_file);
  const SentencePieceModule& module = sentencepiece_module();
  std::array<char, kErrorCapacity> error{};
  void* model = module.load(bytes.data(), bytes.size(), error.data(), error.size());
  if (model == nullptr) {
    throw UserError(model_file.string() + ": is not a SentencePiece model (" + error.data() +
                    "); prepare the data folder again");
  }
  auto codec = std::make_unique<SentencePieceCodec>(module, model, model_file);
  std::array<int32_t, 4> special{};  // unk, bos, eos, pad
  module.special_ids(model, special.data());
  if (special[0] != kUnkId || special[1] != -1 || special[2] != kEosId || special[3] != kPadId) {
    throw UserError(model_file.string() + ": has special ids unk " + std::to_string(special[0]) +
                    ", bos " + std::to_string(special[1]) + ", eos " + std::to_string(special[2]) +
                    ", pad " + std::to_string(special[3]) +
                    "; mlharness needs pad 0, eos 1, unk 2 and no bos (spm_train --pad_id=0 "
                    "--eos_id=1 --unk_id=2 --bos_id=-1), as `mlharness prepare` trains");
  }
  return codec;
}

void train_sentencepiece_model(const std::vector<fs::path>& text_files, const fs::path& model_prefix,
                               const SentencePieceTraining& training) {
  if (text_files.empty()) throw UserError("SentencePiece training: no text files given");
  for (const fs::path& file : text_files) {
    std::error_code error;
    if (!fs::is_regular_file(file, error)) {
      throw UserError(file.string() + ": no such text file to train SentencePiece on");
    }
  }
  if (std::none_of(text_files.begin(), text_files.end(), has_text)) {
    throw UserError("SentencePiece training: " + joined(text_files) +
                    " hold no text (every line is empty); expected one sentence per line");
  }
  if (training.vocabulary_size <= kUnkId + 1 ||
      training.vocabulary_size > std::numeric_limits<int32_t>::max()) {
    throw UserError("SentencePiece training: vocabulary_size is " +
                    std::to_string(training.vocabulary_size) +
                    "; set it above the number of distinct characters in the text");
  }
  if (training.max_sentences < 0) {
    throw UserError("SentencePiece training: max_sentences is " +
                    std::to_string(training.max_sentences) + "; set it to 0 (all) or more");
  }
  const std::string args =
      "--model_type=unigram --vocab_size=" + std::to_string(training.vocabulary_size) +
      " --hard_vocab_limit=false --character_coverage=1.0 --pad_id=0 --eos_id=1 --unk_id=2"
      " --bos_id=-1 --minloglevel=2 --num_threads=" +
      std::to_string(kTrainerThreads) + " --input_sentence_size=" +
      std::to_string(training.max_sentences) + " --shuffle_input_sentence=true";

  const fs::path model_file = model_prefix.string() + ".model";
  const fs::path partial_file = model_file.string() + ".partial";
  if (model_file.has_parent_path()) {
    std::error_code error;
    fs::create_directories(model_file.parent_path(), error);
    if (error) {
      throw UserError(model_file.parent_path().string() + ": cannot be created (" +
                      error.message() + ")");
    }
  }
  std::vector<std::string> inputs;
  for (const fs::path& file : text_files) inputs.push_back(file.string());
  std::vector<const char*> input_pointers;
  for (const std::string& input : inputs) input_pointers.push_back(input.c_str());

  const SentencePieceModule& module = sentencepiece_module();
  std::array<char, kErrorCapacity> error{};
  const int32_t status = module.train(args.c_str(), input_pointers.data(),
                                      static_cast<int32_t>(input_pointers.size()),
                                      sentencepiece_seed(training.seed), partial_file.c_str(),
                                      error.data(), error.size());
  std::error_code ignored;
  if (status != 0) {
    fs::remove(partial_file, ignored);
    throw UserError("SentencePiece training on " + joined(text_files) + " failed: " +
                    error.data() + " (vocabulary_size " + std::to_string(training.vocabulary_size) +
                    ")");
  }
  std::error_code rename_error;
  fs::rename(partial_file, model_file, rename_error);
  if (rename_error) {
    fs::remove(partial_file, ignored);
    throw UserError(model_file.string() + ": cannot be written (" + rename_error.message() + ")");
  }
}

}  // namespace mlh::wmt
