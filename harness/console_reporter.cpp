#include "harness/console_reporter.h"

#include <cstdio>
#include <string>

namespace mlh {

std::string describe_run(const RunFacts& facts) {
  std::string baseline_text;
  for (const auto& [name, value] : facts.baselines) {
    char part[96];
    std::snprintf(part, sizeof part, "; %s %.4f", name.c_str(), value);
    baseline_text += part;
  }
  const int ranks = facts.world_size, threads = facts.threads_per_rank, nodes = facts.layout.nodes;
  return facts.benchmark + " seed " + std::to_string(facts.seed) + " on " + facts.platform_label + " (" +
         std::to_string(ranks) + " rank" + (ranks > 1 ? "s" : "") +
         (nodes > 1 ? " on " + std::to_string(nodes) + " nodes" : "") +
         (facts.on_cuda ? " on " + facts.device_model + ", one GPU each"
                        : ", " + std::to_string(threads) + " thread" + (threads > 1 ? "s" : "") + " each") +
         "): target " + describe_targets(facts.info.targets) + baseline_text;
}

void ConsoleReporter::initialized(const RunFacts& facts) {
  // The config asks for something this device does differently.
  if (!facts.precision_note.empty()) progress_.note(facts.precision_note);
  progress_.message(describe_run(facts));
  if (!facts.energy_not_measured.empty()) progress_.message("energy not measured: " + facts.energy_not_measured);
}

void ConsoleReporter::resumed(const RunFacts& facts) {
  const ResumeFacts& from = *facts.resumed;
  for (const std::string& refused : from.refused) progress_.message("checkpoint refused: " + refused);
  progress_.message("resuming after epoch " + std::to_string(from.epoch) + " from " + from.checkpoint +
                    " (a resumed run's time to train is not a compliant result)");
}

void ConsoleReporter::evaluated(const RunFacts& facts, const EvalBlock&) {
  const EvalFacts& eval = facts.evals.back();
  char tail[96];
  std::snprintf(tail, sizeof tail, "%s  loss %.4f  [%.1f s]", eval.reached ? " reached" : "",
                facts.epochs.back().mean_loss, eval.run_seconds);
  progress_.message("epoch " + std::to_string(eval.epoch) + ": " + describe_quality(eval.quality, facts.info.targets) +
                    tail);
}

void ConsoleReporter::interrupted(const RunFacts& facts) { progress_.message(facts.abort_reason); }

}  // namespace mlh
