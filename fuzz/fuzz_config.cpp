// YAML configs (harness/settings.h ConfigMap): reading a document, then binding keys of each type the
// settings structs use, as a workload's settings would, and the unknown-key check.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "harness/settings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    mlh::ConfigMap config = mlh::ConfigMap::from_yaml_text(
        std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    int64_t batch = 32;
    int epochs = 1;
    double lr = 0.1;
    bool amp = false;
    std::string optimizer = "sgd";
    std::vector<int64_t> layers{64, 32};
    std::vector<double> milestones{0.5};
    config.bind("batch_size", batch, "global batch");
    config.bind("epochs", epochs, "epochs", mlh::Bounds{1.0, 1000.0});
    config.bind("lr", lr, "learning rate", mlh::Bounds{0.0, 10.0});
    config.bind("amp", amp, "mixed precision");
    config.bind("optimizer", optimizer, "optimizer", mlh::one_of({"sgd", "adam", "lars"}));
    config.bind("layers", layers, "layer sizes", mlh::Bounds{1.0, 4096.0});
    config.bind("milestones", milestones, "decay points");
    config.check_all_bound();
  } catch (const mlh::UserError&) {
  }
  return 0;
}
