// The fuzz targets' reader of their input: fields off the front of the
// byte string libFuzzer hands them, zeros once it runs out.
#ifndef NVMEV_FUZZ_INPUT_H
#define NVMEV_FUZZ_INPUT_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace nvmev_fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  uint64_t u64() {
    uint64_t v = 0;
    size_t n = std::min<size_t>(8, static_cast<size_t>(end_ - p_));
    std::memcpy(&v, p_, n);
    p_ += n;
    return v;
  }
  uint32_t u32() { return static_cast<uint32_t>(u64()); }
  // n bytes as they are (a command as it sits in a queue)
  void bytes(void* dst, size_t n) {
    size_t k = std::min(n, static_cast<size_t>(end_ - p_));
    if (!n) return;  // dst may be null: an empty vector
    std::memset(dst, 0, n);
    if (!k) return;  // p_ may be null: an empty input
    std::memcpy(dst, p_, k);
    p_ += k;
  }
  uint8_t u8() { return p_ < end_ ? *p_++ : 0; }
  bool empty() const { return p_ == end_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace nvmev_fuzz

#endif  // NVMEV_FUZZ_INPUT_H
