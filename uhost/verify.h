// Self-describing data blocks for verified I/O. Every 4 KiB block written
// carries a header with its block number, the run's seed, a per-block
// generation (bumped on every write of the block) and a CRC-32C of the
// whole block, so a read can tell good data from corrupt data (CRC),
// misplaced data (block number), data of another run (seed) and stale
// data (an older generation) -- a plain CRC check finds only the first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace uhost {

constexpr size_t kVerifyBlock = 4096;

uint32_t crc32c(const void* data, size_t len, uint32_t crc = 0);

// Fill one block for block number @block, generation @gen.
void fill_block(void* buf, uint64_t block, uint64_t seed, uint32_t gen);

enum class BlockCheck { ok, zero, bad_crc, wrong_block, wrong_seed, wrong_generation };

// Check one block read back; @expect_gen 0 means "never written": the
// block must read as zeroes.
BlockCheck check_block(const void* buf, uint64_t block, uint64_t seed, uint32_t expect_gen,
                       uint32_t* found_gen = nullptr);

std::string to_string(BlockCheck c);

}  // namespace uhost
