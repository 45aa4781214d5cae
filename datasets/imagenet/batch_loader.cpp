#include "datasets/imagenet/batch_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "compliance/user_error.h"
#include "datasets/imagenet/transforms.h"

namespace mlh::imagenet {
namespace {

constexpr size_t kMaxSkippedFilesKept = 100;
// A JPEG's end-of-image marker must lie among its last bytes (after trailing zero padding is
// dropped); a few bytes of slack allow for writers that append a newline or similar.
constexpr size_t kEndOfImageWindowBytes = 64;

bool is_jpeg(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0xFF && bytes[1] == 0xD8;
}

bool has_end_of_image_marker(const std::vector<uint8_t>& bytes) {
  size_t end = bytes.size();
  while (end > 0 && bytes[end - 1] == 0) --end;
  const size_t begin = end > kEndOfImageWindowBytes ? end - kEndOfImageWindowBytes : 0;
  for (size_t i = begin; i + 1 < end; ++i) {
    if (bytes[i] == 0xFF && bytes[i + 1] == 0xD9) return true;
  }
  return false;
}

// Reads and decodes `path` into 8-bit BGR. Returns why it is a bad image, or "" when it is fine.
std::string decode_image(const std::string& path, cv::Mat* bgr) {
  thread_local std::vector<uint8_t> bytes;
  errno = 0;
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    return std::string("cannot be read (") + (errno != 0 ? std::strerror(errno) : "open failed") +
           ")";
  }
  const std::streamoff size = file.tellg();
  if (size < 0) return "cannot be read (cannot tell its size)";
  bytes.resize(static_cast<size_t>(size));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), size)) return "cannot be read (read failed)";
  if (bytes.empty()) return "not a decodable image (empty file)";
  if (is_jpeg(bytes) && !has_end_of_image_marker(bytes)) {
    return "not a decodable image (truncated JPEG: no end-of-image marker)";
  }
  try {
    // EXIF orientation is ignored, as TF's decode_jpeg does.
    *bgr = cv::imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8UC1, bytes.data()),
                        cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  } catch (const cv::Exception& error) {
    return "not a decodable image (OpenCV: " + error.msg + ")";
  }
  if (bgr->empty()) return "not a decodable image (OpenCV cannot decode it)";
  return "";
}

void check_option(bool holds, const std::string& message) {
  if (!holds) throw UserError("imagenet loader: " + message);
}

}  // namespace

BadImagePolicy parse_bad_image_policy(const std::string& name) {
  if (name == "fail") return BadImagePolicy::kFail;
  if (name == "skip") return BadImagePolicy::kSkip;
  throw UserError("on_bad_image: unknown policy '" + name + "'; use fail or skip");
}

struct BatchLoader::Slot {
  ImageBatch batch;  // count and labels set when opened; images sized by the first worker
  std::once_flag images_allocated;
  // Under mutex_:
  int64_t remaining = 0;  // images not yet finished
  std::exception_ptr error;
  std::vector<std::pair<int64_t, std::string>> skipped;  // (position, path)
};

struct BatchLoader::Task {
  std::shared_ptr<Slot> slot;
  int64_t epoch = 0;
  int64_t position = 0;  // within the batch
  int32_t index = 0;     // into folder_.files
  // Outcome:
  bool skipped = false;
  std::exception_ptr error;
};

BatchLoader::BatchLoader(const ImageFolder& folder, LoaderOptions options)
    : folder_(folder),
      options_(options),
      image_floats_(int64_t{3} * options.image_size * options.image_size) {
  check_option(options.threads >= 1, "threads is " + std::to_string(options.threads) +
                                          "; use at least 1 worker thread");
  check_option(options.prefetch_batches >= 1,
               "prefetch_batches is " + std::to_string(options.prefetch_batches) +
                   "; prefetch at least 1 batch");
  check_option(options.image_size >= 1,
               "image_size is " + std::to_string(options.image_size) + "; it must be positive");
  check_option(options.train || options.eval_resize >= options.image_size,
               "eval_resize " + std::to_string(options.eval_resize) + " is below image_size " +
                   std::to_string(options.image_size) + "; the centre crop must fit");
  cv::setNumThreads(1);
  try {
    for (int t = 0; t < options.threads; ++t) workers_.emplace_back([this] { work(); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    throw;
  }
}

BatchLoader::~BatchLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void BatchLoader::start(std::vector<std::vector<int32_t>> batches, int64_t epoch) {
  for (const std::vector<int32_t>& batch : batches) {
    for (const int32_t index : batch) MLH_ASSERT(index >= 0 && index < folder_.size());
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    plan_ = std::move(batches);
    epoch_ = epoch;
    next_delivery_ = 0;
    issue_batch_ = 0;
    issue_position_ = 0;
    issuing_slot_.reset();
    open_slots_.clear();  // workers still on old tasks hold their slots and finish harmlessly
    pass_empty_batches();
  }
  work_ready_.notify_all();
}

ImageBatch BatchLoader::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  MLH_ASSERT(next_delivery_ < static_cast<int64_t>(plan_.size()));
  batch_ready_.wait(lock, [this] {
    return !open_slots_.empty() &&
           (open_slots_.front()->remaining == 0 || open_slots_.front()->error != nullptr);
  });
  const std::shared_ptr<Slot> slot = std::move(open_slots_.front());
  open_slots_.pop_front();
  ++next_delivery_;
  const std::exception_ptr error = std::move(slot->error);
  if (error != nullptr && slot == issuing_slot_) {
    // The failed batch's remaining images are not worth decoding.
    issuing_slot_.reset();
    ++issue_batch_;
    issue_position_ = 0;
  }
  pass_empty_batches();
  work_ready_.notify_all();
  if (error != nullptr) {
    lock.unlock();
    std::rethrow_exception(error);
  }

  std::sort(slot->skipped.begin(), slot->skipped.end());
  skipped_total_ += static_cast<int64_t>(slot->skipped.size());
  for (auto& [position, path] : slot->skipped) {
    if (skipped_files_.size() < kMaxSkippedFilesKept) skipped_files_.push_back(std::move(path));
  }
  return std::move(slot->batch);
}

void BatchLoader::recycle(ImageBatch batch) {
  if (batch.images.capacity() == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (spare_images_.size() <= static_cast<size_t>(options_.prefetch_batches)) {
    spare_images_.push_back(std::move(batch.images));
  }
}

int64_t BatchLoader::skipped_total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skipped_total_;
}

std::vector<std::string> BatchLoader::skipped_files() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skipped_files_;
}

bool BatchLoader::has_task() const {
  return issue_batch_ < static_cast<int64_t>(plan_.size()) &&
         issue_batch_ < next_delivery_ + options_.prefetch_batches;
}

void BatchLoader::pass_empty_batches() {
  while (has_task() && issue_position_ == 0 && plan_[issue_batch_].empty()) {
    open_slots_.push_back(std::make_shared<Slot>());
    ++issue_batch_;
    batch_ready_.notify_all();
  }
}

BatchLoader::Task BatchLoader::take_task() {
  const std::vector<int32_t>& indices = plan_[issue_batch_];
  if (issue_position_ == 0) {
    issuing_slot_ = std::make_shared<Slot>();
    ImageBatch& batch = issuing_slot_->batch;
    batch.count = static_cast<int64_t>(indices.size());
    batch.labels.reserve(indices.size());
    for (const int32_t index : indices) batch.labels.push_back(folder_.labels[index]);
    issuing_slot_->remaining = batch.count;
    open_slots_.push_back(issuing_slot_);
  }
  Task task;
  task.slot = issuing_slot_;
  task.epoch = epoch_;
  task.position = issue_position_;
  task.index = indices[issue_position_];
  if (++issue_position_ == static_cast<int64_t>(indices.size())) {
    issuing_slot_.reset();
    ++issue_batch_;
    issue_position_ = 0;
    pass_empty_batches();
  }
  return task;
}

void BatchLoader::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [this] { return stopping_ || has_task(); });
    if (stopping_) return;
    Task task = take_task();
    lock.unlock();
    run_task(task);
    lock.lock();
    Slot& slot = *task.slot;
    const bool failed = task.error != nullptr;
    // Moved, not copied: only the consumer touches an exception object once it is in a slot.
    if (failed && slot.error == nullptr) slot.error = std::move(task.error);
    if (task.skipped) {
      slot.batch.labels[task.position] = -1;
      ++slot.batch.skipped;
      slot.skipped.emplace_back(task.position, folder_.files[task.index]);
    }
    if (--slot.remaining == 0 || failed) batch_ready_.notify_all();
  }
}

void BatchLoader::run_task(Task& task) {
  try {
    Slot& slot = *task.slot;
    std::call_once(slot.images_allocated, [&] {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!spare_images_.empty()) {
          slot.batch.images = std::move(spare_images_.back());
          spare_images_.pop_back();
        }
      }
      // Every value is written below (a skipped image's zeros included), so a recycled buffer's
      // old contents need no clearing.
      slot.batch.images.resize(slot.batch.count * image_floats_);
    });
    float* out = slot.batch.images.data() + task.position * image_floats_;
    const std::string& path = folder_.files[task.index];
    cv::Mat bgr;
    const std::string bad_reason = decode_image(path, &bgr);
    if (!bad_reason.empty()) {
      if (options_.on_bad_image == BadImagePolicy::kFail) {
        throw UserError(path + ": " + bad_reason + "; set on_bad_image: skip to skip such files");
      }
      std::fill(out, out + image_floats_, 0.0f);
      task.skipped = true;
      std::cerr << ("warning: skipping " + path + ": " + bad_reason + "\n") << std::flush;
      return;
    }
    if (options_.train) {
      const TrainAugmentation augmentation = draw_train_augmentation(
          bgr.cols, bgr.rows, options_.seed, task.epoch, task.index, options_.random_flip);
      train_transform(bgr, augmentation.crop, augmentation.flip, options_.image_size, out);
    } else {
      eval_transform(bgr, options_.eval_resize, options_.image_size, out);
    }
  } catch (...) {
    task.error = std::current_exception();
  }
}

}  // namespace mlh::imagenet
