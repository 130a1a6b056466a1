// What every userspace tool shares (tools/): the one percentile, the
// debugfs files' "key=value" lines and plain numbers, the placement
// query's answer, a setting held for a scope.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "device_files.h"
#include "percentile.h"
#include "units.h"

namespace nvmev {
namespace {

TEST(Percentile, NearestRank) {
  std::vector<uint64_t> v;
  for (uint64_t i = 1; i <= 1000; i++) v.push_back(i);
  EXPECT_EQ(percentile_of_sorted(v, 50), 500u);
  EXPECT_EQ(percentile_of_sorted(v, 99), 990u);
  EXPECT_EQ(percentile_of_sorted(v, 99.9), 999u);  // not 1000: no float round-up
  EXPECT_EQ(percentile_of_sorted(v, 100), 1000u);
  EXPECT_EQ(percentile_of_sorted(v, 0.01), 1u);
}

TEST(Percentile, SmallSamples) {
  // with few samples a high percentile is the maximum
  std::vector<double> seven = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(percentile_of_sorted(seven, 99), 7);
  EXPECT_EQ(percentile_of_sorted(seven, 50), 4);
  std::vector<uint64_t> one = {42};
  EXPECT_EQ(percentile_of_sorted(one, 1), 42u);
  EXPECT_EQ(percentile_of_sorted(one, 100), 42u);
  std::vector<uint64_t> none;
  EXPECT_EQ(percentile_of_sorted(none, 50), 0u);
  EXPECT_EQ(percentile(none, 50), 0u);
}

TEST(Percentile, UnsortedAgreesWithSorted) {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 997; i++) v.push_back((i * 7919) % 997);  // a permutation of 0..996
  std::vector<uint64_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (double p : {1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    std::vector<uint64_t> copy = v;
    EXPECT_EQ(percentile(copy, p), percentile_of_sorted(sorted, p)) << "p" << p;
  }
}

TEST(Units, Binary) {
  EXPECT_EQ(KiB, 1024u);
  EXPECT_EQ(MiB, 1048576u);
}

// a temporary file with @text, removed with the object
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/nvmev-tools-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path = name;
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string text() const {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
};

TEST(DeviceFiles, Paths) {
  EXPECT_EQ(debugfs_file("stats"), "/sys/kernel/debug/nvmev/stats");
}

TEST(DeviceFiles, ReadKey) {
  TempFile f("dies=8\nlba_bytes=4096\ndies_per_channel=2\n");
  EXPECT_EQ(read_key(f.path, "dies"), 8u);
  EXPECT_EQ(read_key(f.path, "lba_bytes"), 4096u);
  EXPECT_EQ(read_key(f.path, "dies_per_channel"), 2u);
  EXPECT_THROW(read_key(f.path, "channels"), std::runtime_error);
  EXPECT_THROW(read_key(f.path + ".missing", "dies"), std::runtime_error);
}

TEST(DeviceFiles, ScopedSettingPutsTheOldValueBack) {
  TempFile f("7\n");
  {
    ScopedSetting s(f.path, 100);
    EXPECT_EQ(read_number(f.path), 100u);
  }
  EXPECT_EQ(read_number(f.path), 7u);
  { ScopedSetting none("", 5); }  // an empty path touches nothing
}

TEST(DeviceFiles, LocateParsesTheAnswer) {
  // a regular file stands in for the query: what is written is read back
  TempFile f("");
  EXPECT_THROW(locate(f.path, 12), std::runtime_error);  // "12" is no answer
  EXPECT_EQ(f.text(), "12\n");
}

}  // namespace
}  // namespace nvmev
