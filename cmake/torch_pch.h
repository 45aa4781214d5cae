// The one precompiled header for LibTorch translation units (see CMakeLists.txt).
#pragma once
#include <torch/torch.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>
