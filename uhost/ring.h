// Queue ring arithmetic, kept apart from the memory it indexes so that the
// wrap and phase rules can be unit-tested.
#pragma once

#include <cstdint>

namespace uhost {

// Producer side of a submission queue: the host owns the tail, the
// controller reports its head in every completion. One slot always stays
// empty so that head == tail means "empty", never "full".
class SqRing {
 public:
  explicit SqRing(uint32_t entries) : entries_(entries) {}
  uint32_t entries() const { return entries_; }
  uint32_t tail() const { return tail_; }
  uint32_t head() const { return head_; }
  uint32_t used() const { return (tail_ + entries_ - head_) % entries_; }
  bool full() const { return (tail_ + 1) % entries_ == head_; }
  // the slot to write next; then advance()
  uint32_t advance() {
    uint32_t slot = tail_;
    tail_ = (tail_ + 1) % entries_;
    return slot;
  }
  void set_head(uint32_t head) { head_ = head % entries_; }
  void reset() { tail_ = head_ = 0; }

 private:
  uint32_t entries_;
  uint32_t tail_ = 0, head_ = 0;
};

// Consumer side of a completion queue: an entry is new when its phase tag
// equals the phase the host expects; the expected phase flips each time
// the head wraps, so old entries need not be cleared.
class CqRing {
 public:
  explicit CqRing(uint32_t entries) : entries_(entries) {}
  uint32_t entries() const { return entries_; }
  uint32_t head() const { return head_; }
  bool phase() const { return phase_; }
  bool is_new(bool entry_phase) const { return entry_phase == phase_; }
  void advance() {
    if (++head_ == entries_) {
      head_ = 0;
      phase_ = !phase_;
    }
  }
  void reset() {
    head_ = 0;
    phase_ = true;  // a zeroed ring holds phase 0: nothing new
  }

 private:
  uint32_t entries_;
  uint32_t head_ = 0;
  bool phase_ = true;
};

}  // namespace uhost
