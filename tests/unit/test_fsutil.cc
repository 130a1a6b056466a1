// The report rows the file-system workload generators share (workloads/fsutil.h).
#include <gtest/gtest.h>

#include <stdexcept>

#include "fsutil.h"

using nvmev::json;
using namespace nvmev::fs;

namespace {

ReadResult result(double mb_per_s, uint64_t bytes, std::vector<uint64_t> reads) {
  ReadResult r;
  r.mb_per_s = mb_per_s;
  r.bytes = bytes;
  r.dies.collisions.assign(reads.size(), 1);
  r.dies.wait_ns.assign(reads.size(), 2000);
  r.dies.reads = std::move(reads);
  return r;
}

TEST(FsReport, RowCarriesThroughputExtentsAndDies) {
  json row = read_row("fragmented", result(50, 8 << 20, {3, 0, 5}), "extents", 256);
  EXPECT_EQ(row["file"], "fragmented");
  EXPECT_DOUBLE_EQ(row["mb_per_s"].get<double>(), 50);
  EXPECT_EQ(row["bytes"], 8u << 20);
  EXPECT_EQ(row["extents"], 256);
  EXPECT_EQ(row["die0_reads"], 3u);
  EXPECT_EQ(row["die2_reads"], 5u);
  EXPECT_EQ(row["collisions"], 3u);
  EXPECT_EQ(row["collision_wait_us"], 6u);
  EXPECT_EQ(row["dies_used"], 2u);
  // columns in report order: relative right after the throughput
  auto it = row.begin();
  EXPECT_EQ((it++).key(), "file");
  EXPECT_EQ((it++).key(), "mb_per_s");
  EXPECT_EQ((it++).key(), "relative");
}

TEST(FsReport, CompareRowsIsRelativeToTheFirstRow) {
  json rows = json::array();
  rows.push_back(read_row("contiguous", result(200, 1, {1}), "extents", 4));
  rows.push_back(read_row("fragmented", result(50, 1, {1}), "extents", 256));
  json summary = compare_rows(rows, "extents");
  EXPECT_DOUBLE_EQ(rows[0]["relative"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(rows[1]["relative"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(summary["relative_throughput"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(summary["dof"].get<double>(), 64.0);
}

TEST(FsReport, CompareRowsPerFileExtentsAndEdgeCases) {
  json rows = json::array();
  // a contiguous set with fewer than one extent per file counts as one
  rows.push_back(read_row("contiguous", result(0, 0, {}), "extents_per_file", 0.5));
  rows.push_back(read_row("fragmented", result(10, 1, {}), "extents_per_file", 15.5));
  json summary = compare_rows(rows, "extents_per_file");
  EXPECT_DOUBLE_EQ(summary["dof"].get<double>(), 15.5);
  // nothing read in the reference: no ratio rather than inf or NaN
  EXPECT_DOUBLE_EQ(summary["relative_throughput"].get<double>(), 0.0);

  json one = json::array({rows[0]});
  EXPECT_THROW(compare_rows(one, "extents_per_file"), std::logic_error);
}

}  // namespace
