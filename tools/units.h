// Binary size units of every userspace tool: option values in KiB or MiB
// become bytes here, and back for reports.
#pragma once

#include <cstdint>

namespace nvmev {

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;

}  // namespace nvmev
