#include "harness/progress.h"

#include <cmath>

namespace mlh {

namespace {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  const long total = static_cast<long>(seconds + 0.5);
  char text[32];
  if (total >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60, total % 60);
  else
    std::snprintf(text, sizeof text, "%02ld:%02ld", total / 60, total % 60);
  return text;
}

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

Progress::Progress(Options options) : options_(options) {}

void Progress::begin_epoch(int64_t epoch, int64_t max_epochs, int64_t steps_in_epoch) {
  epoch_ = epoch;
  max_epochs_ = max_epochs;
  steps_in_epoch_ = steps_in_epoch;
  step_in_epoch_ = 0;
  epoch_samples_ = 0;
  epoch_start_ = last_step_ = last_shown_ = Clock::now();
}

bool Progress::count_step(int64_t global_samples) {
  const auto now = Clock::now();
  if (total_steps_ >= options_.warmup_steps) {
    steady_samples_ += global_samples;
    steady_seconds_ += seconds_between(last_step_, now);
  }
  last_step_ = now;
  ++total_steps_;
  ++step_in_epoch_;
  epoch_samples_ += global_samples;
  if (!options_.display) return false;
  const double since_shown = seconds_between(last_shown_, now);
  if (!(options_.interactive ? since_shown >= 0.2 : since_shown >= options_.interval_seconds)) return false;
  last_shown_ = now;
  return true;
}

void Progress::step(int64_t global_samples, double loss) {
  last_loss_ = loss;
  last_loss_tensor_ = torch::Tensor();
  if (count_step(global_samples)) show(false);
}

void Progress::step(int64_t global_samples, const torch::Tensor& loss) {
  last_loss_tensor_ = loss.detach();  // keeps no autograd graph alive
  if (count_step(global_samples)) show(false);
}

double Progress::shown_loss() {
  if (last_loss_tensor_.defined()) {
    last_loss_ = last_loss_tensor_.item<double>();
    last_loss_tensor_ = torch::Tensor();
  }
  return last_loss_;
}

void Progress::end_epoch() {
  const double seconds = seconds_between(epoch_start_, last_step_);
  epoch_rate_ = seconds > 0 ? epoch_samples_ / seconds : 0.0;
  if (options_.display && options_.interactive) show(true);
}

void Progress::message(const std::string& text) {
  if (!options_.display) return;
  if (line_open_) std::fputs("\r\033[K", options_.out);
  line_open_ = false;
  std::fprintf(options_.out, "%s\n", text.c_str());
  std::fflush(options_.out);
}

double Progress::steady_samples_per_second() const {
  return steady_seconds_ > 0 ? steady_samples_ / steady_seconds_ : 0.0;
}

void Progress::show(bool final_line) {
  const double elapsed = seconds_between(epoch_start_, Clock::now());
  const double rate = elapsed > 0 ? epoch_samples_ / elapsed : 0;
  const double per_step = step_in_epoch_ > 0 ? elapsed / step_in_epoch_ : 0;
  const double eta = per_step * (steps_in_epoch_ - step_in_epoch_);
  char line[256];
  std::snprintf(line, sizeof line, "epoch %lld/%lld  step %lld/%lld  %.0f samples/s  loss %.4f  %s %s",
                static_cast<long long>(epoch_), static_cast<long long>(max_epochs_),
                static_cast<long long>(step_in_epoch_), static_cast<long long>(steps_in_epoch_), rate,
                shown_loss(), final_line ? "took" : "ETA",
                format_duration(final_line ? elapsed : eta).c_str());
  if (options_.interactive) {
    std::fprintf(options_.out, "\r\033[K%s", line);
    line_open_ = true;
    if (final_line) {
      std::fputc('\n', options_.out);
      line_open_ = false;
    }
  } else {
    std::fprintf(options_.out, "%s\n", line);
  }
  std::fflush(options_.out);
}

}  // namespace mlh
