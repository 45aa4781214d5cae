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

// One line kept on screen: a live status line still open is cleared first.
void print_kept_line(std::FILE* out, bool& line_open, const std::string& text) {
  if (line_open) std::fputs("\r\033[K", out);
  line_open = false;
  std::fprintf(out, "%s\n", text.c_str());
  std::fflush(out);
}

}  // namespace

Progress::Progress(ThroughputMeter& meter, Options options) : meter_(meter), options_(options) {}

void Progress::begin_epoch(int64_t epoch, int64_t max_epochs, int64_t steps_in_epoch) {
  epoch_ = epoch;
  max_epochs_ = max_epochs;
  steps_in_epoch_ = steps_in_epoch;
  last_shown_ = Clock::now();
}

bool Progress::count_step(int64_t global_samples) {
  meter_.step(global_samples);
  if (options_.after_step) options_.after_step();
  if (!options_.display) return false;
  const auto now = Clock::now();
  const double since_shown = std::chrono::duration<double>(now - last_shown_).count();
  if (since_shown < (options_.interactive ? 0.2 : options_.interval_seconds)) return false;
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
  if (options_.display && options_.interactive) show(true);
  last_loss_tensor_ = torch::Tensor();
}

void Progress::message(const std::string& text) {
  if (options_.display) print_kept_line(options_.out, line_open_, text);
}

void Progress::note(const std::string& text) {
  if (options_.notes) print_kept_line(options_.out, line_open_, "mlharness: note: " + text);
}

void Progress::show(bool final_line) {
  const double elapsed = meter_.epoch_seconds();
  const int64_t steps = meter_.epoch_steps();
  const double rate = elapsed > 0 ? meter_.epoch_samples() / elapsed : 0;
  const double per_step = steps > 0 ? elapsed / steps : 0;
  const double eta = per_step * (steps_in_epoch_ - steps);
  char line[256];
  std::snprintf(line, sizeof line, "epoch %lld/%lld  step %lld/%lld  %.0f samples/s  loss %.4f  %s %s",
                static_cast<long long>(epoch_), static_cast<long long>(max_epochs_),
                static_cast<long long>(steps), static_cast<long long>(steps_in_epoch_), rate,
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
