// nvmev-streams: write a byte range of a block device through one of its
// write streams (Linux 6.16 and later: io_uring's write_stream, which the
// nvme driver turns into an FDP placement identifier). Direct I/O, in
// blocks of --block bytes, a pattern of the stream's number. Stream 0 is
// no stream. Prints what it wrote as JSON.
//
// Debian 12's liburing (2.3) predates the field: it is the byte at offset
// 44 of the submission queue entry (include/uapi/linux/io_uring.h,
// "write_stream"), set here by hand.
#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <iostream>
#include <string>

#include "fsutil.h"

using nvmev::json;
using namespace nvmev::fs;

namespace {

constexpr size_t kWriteStreamOffset = 44;
static_assert(sizeof(io_uring_sqe) >= kWriteStreamOffset + 1, "an SQE holds the write_stream byte");

void set_write_stream(io_uring_sqe* sqe, uint8_t stream) {
  std::memcpy(reinterpret_cast<uint8_t*>(sqe) + kWriteStreamOffset, &stream, 1);
}

// One write of @len bytes at @off through @stream; throws on failure.
void write_one(io_uring& ring, int fd, const void* buf, size_t len, uint64_t off, uint8_t stream) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  if (!sqe) throw std::runtime_error("io_uring: no submission queue entry");
  io_uring_prep_write(sqe, fd, buf, static_cast<unsigned>(len), off);
  set_write_stream(sqe, stream);
  int ret = io_uring_submit(&ring);
  if (ret != 1) throw std::runtime_error("io_uring_submit: " + std::string(strerror(-ret)));
  io_uring_cqe* cqe = nullptr;
  ret = io_uring_wait_cqe(&ring, &cqe);
  if (ret) throw std::runtime_error("io_uring_wait_cqe: " + std::string(strerror(-ret)));
  int res = cqe->res;
  io_uring_cqe_seen(&ring, cqe);
  if (res < 0) throw std::runtime_error("write at " + std::to_string(off) + " through stream " +
                                        std::to_string(stream) + ": " + strerror(-res));
  if (static_cast<size_t>(res) != len) throw std::runtime_error("short write at " + std::to_string(off));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Write a range of a block device through one write stream (io_uring)"};
  std::string dev;
  unsigned stream = 0;
  uint64_t offset = 0, bytes = 0, block = 128 * 1024;
  app.add_option("device", dev, "block device, e.g. /dev/nvme0n1")->required();
  app.add_option("--stream", stream, "write stream, 1..max_write_streams; 0: none")->check(CLI::Range(0, 255));
  app.add_option("--offset", offset, "first byte, a multiple of 4096")->required();
  app.add_option("--bytes", bytes, "bytes to write, a multiple of 4096")->required()->check(CLI::PositiveNumber);
  app.add_option("--block", block, "bytes per write, a multiple of 4096")->check(CLI::Range(4096, 1 << 20));
  CLI11_PARSE(app, argc, argv);
  if (offset % 4096 || bytes % 4096 || block % 4096) {
    std::cerr << "nvmev-streams: --offset, --bytes and --block must be multiples of 4096\n";
    return 2;
  }
  try {
    int fd = open(dev.c_str(), O_WRONLY | O_DIRECT);
    if (fd < 0) throw sys_error("open " + dev);
    io_uring ring;
    int ret = io_uring_queue_init(4, &ring, 0);
    if (ret) throw std::runtime_error("io_uring_queue_init: " + std::string(strerror(-ret)));
    Buffer buf = aligned_buffer(block);
    std::memset(buf.get(), 0x40 + static_cast<int>(stream), block);
    for (uint64_t done = 0; done < bytes;) {
      size_t len = static_cast<size_t>(std::min(block, bytes - done));
      write_one(ring, fd, buf.get(), len, offset + done, static_cast<uint8_t>(stream));
      done += len;
    }
    io_uring_queue_exit(&ring);
    close(fd);
    std::cout << json{{"device", dev}, {"stream", stream}, {"offset", offset}, {"bytes", bytes}}.dump() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "nvmev-streams: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
