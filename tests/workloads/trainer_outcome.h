// For the tests that a workload's bench step is its training step: what a trainer's steps left, to
// compare two trainers bitwise. Trainer: model() (a module holder) and step() (a harness TrainStep).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <torch/torch.h>

namespace mlh {

// The trainer's parameters and buffers by name, then "loss": the summed loss its step keeps for the
// epoch (taken, so read once per trainer).
struct TrainerOutcome {
  std::vector<std::string> names;
  std::vector<torch::Tensor> tensors;
  size_t parameters = 0;  // tensors[0, parameters) are the parameters
};

template <class Trainer>
TrainerOutcome trainer_outcome(Trainer& trainer) {
  TrainerOutcome outcome;
  for (const auto& p : trainer.model()->named_parameters()) {
    outcome.names.push_back(p.key());
    outcome.tensors.push_back(p.value().detach().clone());
  }
  outcome.parameters = outcome.tensors.size();
  for (const auto& b : trainer.model()->named_buffers()) {
    outcome.names.push_back(b.key());
    outcome.tensors.push_back(b.value().clone());
  }
  outcome.names.push_back("loss");
  outcome.tensors.push_back(torch::tensor(trainer.step().take_loss_sum(), torch::kDouble));
  return outcome;
}

// Every tensor of `actual` equals `expected`'s bitwise; names the first that does not.
inline ::testing::AssertionResult same_outcome(const TrainerOutcome& actual, const TrainerOutcome& expected) {
  if (actual.names != expected.names) return ::testing::AssertionFailure() << "different parameters or buffers";
  for (size_t i = 0; i < actual.tensors.size(); ++i)
    if (!torch::equal(actual.tensors[i], expected.tensors[i]))
      return ::testing::AssertionFailure() << actual.names[i] << " differs";
  return ::testing::AssertionSuccess();
}

// Every parameter and the loss of `after` differ from `before` (buffers may stay); names the first
// that did not move.
inline ::testing::AssertionResult every_parameter_moved(const TrainerOutcome& before, const TrainerOutcome& after) {
  if (before.names != after.names) return ::testing::AssertionFailure() << "different parameters or buffers";
  for (size_t i = 0; i < after.tensors.size(); ++i) {
    const bool must_move = i < after.parameters || i + 1 == after.tensors.size();
    if (must_move && torch::equal(after.tensors[i], before.tensors[i]))
      return ::testing::AssertionFailure() << after.names[i] << " did not move";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace mlh
