// Where a run resumes (`--resume`): the checkpoint found on rank 0, broadcast, and checked on every
// rank against this run. Throws UserError when it is of another workload, rank count, seed or
// effective config, or of a run that has ended.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "harness/checkpoint.h"
#include "harness/run_options.h"
#include "harness/world.h"

namespace mlh {

FoundCheckpoint resume_point(const RunOptions& options, const World& world, const nlohmann::json& effective_config,
                             int64_t max_epochs);

}  // namespace mlh
