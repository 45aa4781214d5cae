#include "harness/device_world.h"

#ifdef MLH_WITH_CUDA
#include "harness/nccl_communicator.h"
#endif

namespace mlh {

World world_on_device(const World& world, const torch::Device& device) {
#ifdef MLH_WITH_CUDA
  if (device.is_cuda() && world.size() > 1)
    return world.with_communicator(make_nccl_communicator(device, world.rank(), world.size(), world.shared_comm()));
#else
  (void)device;
#endif
  return world;
}

}  // namespace mlh
