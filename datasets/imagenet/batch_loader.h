// Decodes and augments ImageNet batches in a fixed pool of worker threads, a few batches ahead of the
// consumer, and delivers them in plan order. Work is handed out one image at a time, so several
// threads share a batch and a slow image does not stall a whole thread's batch. Per-sample results
// depend only on (seed, epoch, sample index): not on thread count, batch composition or rank.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "datasets/imagenet/folder.h"

namespace mlh::imagenet {

// What to do with a file that cannot be read or decoded: stop with a UserError, or skip it.
enum class BadImagePolicy { kFail, kSkip };
BadImagePolicy parse_bad_image_policy(const std::string& name);  // "fail" | "skip", else UserError

struct LoaderOptions {
  int threads = 1;           // worker threads (>= 1)
  int prefetch_batches = 2;  // batches decoded ahead of the one the consumer holds (>= 1)
  int image_size = 224;
  int eval_resize = 256;  // short side before the eval centre crop (>= image_size)
  bool train = true;      // train: random crop + flip (draw_train_augmentation); else eval transform
  bool random_flip = true;
  uint64_t seed = 0;
  BadImagePolicy on_bad_image = BadImagePolicy::kFail;
};

struct ImageBatch {
  int64_t count = 0;            // slots: the number of indices asked for
  std::vector<float> images;    // count * 3 * image_size * image_size, CHW per image
  std::vector<int64_t> labels;  // count; -1 for a slot whose image was skipped (zero pixels)
  int64_t skipped = 0;          // slots skipped in this batch
};

// A bad image is a file that is missing or unreadable, that OpenCV cannot decode, or a truncated JPEG
// (one starting FF D8 with no FF D9 end-of-image marker among its last 64 bytes, trailing zero bytes
// ignored; libjpeg would otherwise decode it silently with grey rows). Under kSkip each one prints a
// line "warning: skipping <path>: <reason>" to stderr when it is met.
class BatchLoader {
 public:
  // Keeps a reference to `folder`, which must outlive the loader. Starts the workers (idle until
  // start()) and sets OpenCV's own thread count to 1 (process-wide) so decodes do not oversubscribe.
  // Throws UserError for options out of range.
  BatchLoader(const ImageFolder& folder, LoaderOptions options);
  ~BatchLoader();  // stops and joins the workers; safe while they are mid-batch
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // Starts decoding `batches` (each a list of indices into folder.files) for `epoch`, replacing any
  // previous plan: batches of the old plan not yet delivered are dropped.
  void start(std::vector<std::vector<int32_t>> batches, int64_t epoch);
  // The next batch of the plan, in plan order; blocks until it is ready. Throws the UserError a
  // worker raised (a bad image under kFail, naming the file); that batch is then dropped and the
  // next call moves on to the following one. Calling past the end of the plan is an InternalError.
  ImageBatch next();
  // Optional: hands a consumed batch back so later batches reuse its pixel buffer instead of
  // allocating fresh memory, whose zero fill and page faults (~0.6 MB per 224 x 224 image) can cost
  // more than the decode (measured: 330 vs 915 images/s per thread). Keeps up to
  // prefetch_batches + 1 buffers.
  void recycle(ImageBatch batch);
  int64_t skipped_total() const;                   // skipped images in delivered batches
  std::vector<std::string> skipped_files() const;  // their paths, in delivery order (first 100)

 private:
  struct Slot;
  struct Task;

  void work();
  // The rest run under mutex_, except run_task.
  bool has_task() const;
  Task take_task();  // needs has_task()
  void pass_empty_batches();  // opens empty batches at the issue point, complete at once
  void run_task(Task& task);

  const ImageFolder& folder_;
  const LoaderOptions options_;
  const int64_t image_floats_;

  mutable std::mutex mutex_;
  std::condition_variable work_ready_;   // workers: a task, or stop
  std::condition_variable batch_ready_;  // consumer: the head batch is complete or failed
  bool stopping_ = false;
  uint64_t generation_ = 0;  // bumped by start(); tasks of older plans are dropped
  std::vector<std::vector<int32_t>> plan_;
  int64_t epoch_ = 0;
  int64_t next_delivery_ = 0;    // plan position of the batch next() returns next
  int64_t issue_batch_ = 0;      // plan position of the batch the next task belongs to
  int64_t issue_position_ = 0;   // position within it
  std::shared_ptr<Slot> issuing_slot_;             // batch issue_batch_ once its first task is out
  std::deque<std::shared_ptr<Slot>> open_slots_;  // opened, undelivered batches in plan order
  int64_t skipped_total_ = 0;
  std::vector<std::string> skipped_files_;
  std::vector<std::vector<float>> spare_images_;  // recycled pixel buffers
  std::vector<std::thread> workers_;
};

}  // namespace mlh::imagenet
