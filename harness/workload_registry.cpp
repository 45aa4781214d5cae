#include "base/user_error.h"
#include "harness/workload.h"

namespace mlh {

WorkloadRegistry& WorkloadRegistry::instance() {
  static WorkloadRegistry registry;
  return registry;
}

bool WorkloadRegistry::add(const std::string& name, const std::string& description,
                           WorkloadFactory factory) {
  MLH_ASSERT(entries_.count(name) == 0);
  entries_[name] = Entry{name, description, std::move(factory)};
  return true;
}

std::unique_ptr<Workload> WorkloadRegistry::create(const std::string& name) const {
  const auto found = entries_.find(name);
  if (found != entries_.end()) return found->second.factory();
  std::string known;
  for (const auto& [n, entry] : entries_) known += (known.empty() ? "" : ", ") + n;
  throw UserError("unknown workload '" + name + "'; known workloads: " + known);
}

}  // namespace mlh
