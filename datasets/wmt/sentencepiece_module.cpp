// The SentencePiece module (target mlh_sentencepiece): a plain C interface over libsentencepiece, which
// sentencepiece_codec.cpp opens with dlopen(RTLD_LOCAL | RTLD_DEEPBIND). Debian's libsentencepiece
// carries its own protobuf runtime, which must never meet the one LibTorch loads; so nothing but C
// types crosses this boundary, every exception stops here, and errors come back as text in the
// caller's buffer. The declarations are repeated in sentencepiece_codec.cpp (kept in step through
// mlh_spm_interface_version).
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

// Exported by libsentencepiece (common.h, not installed): what the --minloglevel flag of spm_train
// sets. Train(args) only applies --minloglevel after it has logged the command line, so set it first.
namespace sentencepiece::logging {
void SetMinLogLevel(int level);
}

namespace {

constexpr int32_t kInterfaceVersion = 1;
constexpr int kErrorLogLevel = 2;  // INFO 0, WARNING 1, ERROR 2

void copy_message(const std::string& message, char* error, size_t error_capacity) {
  if (error == nullptr || error_capacity == 0) return;
  const size_t length = std::min(message.size(), error_capacity - 1);
  std::memcpy(error, message.data(), length);
  error[length] = '\0';
}

// Every non-empty line of the files in order, '\r' stripped; an unreadable file ends the iteration
// with an error status.
class LinesOfFiles : public sentencepiece::SentenceIterator {
 public:
  explicit LinesOfFiles(std::vector<std::string> files) : files_(std::move(files)) { advance(); }

  bool done() const override { return done_; }
  void Next() override { advance(); }
  const std::string& value() const override { return line_; }
  sentencepiece::util::Status status() const override { return status_; }

 private:
  void advance() {
    while (!done_) {
      if (!stream_.is_open()) {
        if (next_file_ == files_.size()) {
          done_ = true;
          return;
        }
        stream_.open(files_[next_file_], std::ios::binary);
        if (!stream_) {
          status_ = sentencepiece::util::Status(sentencepiece::util::StatusCode::kNotFound,
                                                files_[next_file_] + ": cannot be opened");
          done_ = true;
          return;
        }
        ++next_file_;
      }
      if (std::getline(stream_, line_)) {
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        if (!line_.empty()) return;
      } else {
        if (stream_.bad()) {
          status_ = sentencepiece::util::Status(sentencepiece::util::StatusCode::kDataLoss,
                                                files_[next_file_ - 1] + ": read failed");
          done_ = true;
          return;
        }
        stream_.close();
        stream_.clear();
      }
    }
  }

  std::vector<std::string> files_;
  size_t next_file_ = 0;
  std::ifstream stream_;
  std::string line_;
  bool done_ = false;
  sentencepiece::util::Status status_;
};

}  // namespace

#define MLH_SPM_EXPORT __attribute__((visibility("default")))

extern "C" {

MLH_SPM_EXPORT int32_t mlh_spm_interface_version() { return kInterfaceVersion; }

// Trains on the non-empty lines of `input_files` with the spm_train flags in `args` (space separated;
// no --input or --model_prefix) and writes the serialized model to `model_file`. `random_seed` seeds
// SentencePiece's generator (spm_train's --random_seed; UINT32_MAX is reserved for "random").
// Returns 0, or -1 with a message in `error`.
MLH_SPM_EXPORT int32_t mlh_spm_train(const char* args,
                                                             const char* const* input_files,
                                                             int32_t num_input_files,
                                                             uint32_t random_seed,
                                                             const char* model_file, char* error,
                                                             size_t error_capacity) {
  try {
    sentencepiece::logging::SetMinLogLevel(kErrorLogLevel);
    sentencepiece::SetRandomGeneratorSeed(random_seed);
    LinesOfFiles lines(std::vector<std::string>(input_files, input_files + num_input_files));
    std::string model;
    const sentencepiece::util::Status status =
        sentencepiece::SentencePieceTrainer::Train(args, &lines, &model);
    if (!status.ok()) {
      copy_message(status.ToString(), error, error_capacity);
      return -1;
    }
    std::ofstream out(model_file, std::ios::binary | std::ios::trunc);
    out.write(model.data(), static_cast<std::streamsize>(model.size()));
    out.close();
    if (!out) {
      copy_message(std::string(model_file) + ": cannot be written", error, error_capacity);
      return -1;
    }
    return 0;
  } catch (const std::exception& caught) {
    copy_message(caught.what(), error, error_capacity);
  } catch (...) {
    copy_message("unknown exception in SentencePiece training", error, error_capacity);
  }
  return -1;
}

// A model from its serialized bytes (the content of a .model file), or null with a message in `error`.
MLH_SPM_EXPORT void* mlh_spm_load(const char* model_bytes, size_t size,
                                                          char* error, size_t error_capacity) {
  try {
    sentencepiece::logging::SetMinLogLevel(kErrorLogLevel);
    auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const sentencepiece::util::Status status =
        processor->LoadFromSerializedProto(std::string(model_bytes, size));
    if (!status.ok()) {
      copy_message(status.ToString(), error, error_capacity);
      return nullptr;
    }
    return processor.release();
  } catch (const std::exception& caught) {
    copy_message(caught.what(), error, error_capacity);
  } catch (...) {
    copy_message("unknown exception loading a SentencePiece model", error, error_capacity);
  }
  return nullptr;
}

MLH_SPM_EXPORT void mlh_spm_free(void* model) {
  delete static_cast<sentencepiece::SentencePieceProcessor*>(model);
}

MLH_SPM_EXPORT int32_t mlh_spm_piece_count(const void* model) {
  return static_cast<const sentencepiece::SentencePieceProcessor*>(model)->GetPieceSize();
}

// The special ids the model was trained with (-1 when disabled): unk, bos, eos, pad.
MLH_SPM_EXPORT void mlh_spm_special_ids(const void* model, int32_t* ids) {
  const auto* processor = static_cast<const sentencepiece::SentencePieceProcessor*>(model);
  ids[0] = processor->unk_id();
  ids[1] = processor->bos_id();
  ids[2] = processor->eos_id();
  ids[3] = processor->pad_id();
}

// Encodes UTF-8 `text`: writes min(needed, capacity) ids and returns how many the text needs (call
// again with more room when that exceeds `capacity`), or -1 with a message in `error`.
MLH_SPM_EXPORT int64_t mlh_spm_encode(const void* model, const char* text,
                                                              size_t text_size, int32_t* ids,
                                                              size_t capacity, char* error,
                                                              size_t error_capacity) {
  try {
    std::vector<int> pieces;
    const sentencepiece::util::Status status =
        static_cast<const sentencepiece::SentencePieceProcessor*>(model)->Encode(
            std::string(text, text_size), &pieces);
    if (!status.ok()) {
      copy_message(status.ToString(), error, error_capacity);
      return -1;
    }
    std::copy_n(pieces.begin(), std::min(pieces.size(), capacity), ids);
    return static_cast<int64_t>(pieces.size());
  } catch (const std::exception& caught) {
    copy_message(caught.what(), error, error_capacity);
  } catch (...) {
    copy_message("unknown exception in SentencePiece encoding", error, error_capacity);
  }
  return -1;
}

// Decodes ids to UTF-8 text: writes min(needed, capacity) bytes (no terminator) and returns how many
// the text needs, or -1 with a message in `error` (an id out of range).
MLH_SPM_EXPORT int64_t mlh_spm_decode(const void* model, const int32_t* ids,
                                                              size_t count, char* text,
                                                              size_t capacity, char* error,
                                                              size_t error_capacity) {
  try {
    std::string decoded;
    const sentencepiece::util::Status status =
        static_cast<const sentencepiece::SentencePieceProcessor*>(model)->Decode(
            std::vector<int>(ids, ids + count), &decoded);
    if (!status.ok()) {
      copy_message(status.ToString(), error, error_capacity);
      return -1;
    }
    if (capacity > 0) std::memcpy(text, decoded.data(), std::min(decoded.size(), capacity));
    return static_cast<int64_t>(decoded.size());
  } catch (const std::exception& caught) {
    copy_message(caught.what(), error, error_capacity);
  } catch (...) {
    copy_message("unknown exception in SentencePiece decoding", error, error_capacity);
  }
  return -1;
}

}  // extern "C"
