// The research's experiments on the model: the alignment (stride) curve
// and the fragmented-file read, plus the virtual-time engine.
#include "helpers.h"
#include "workloads.h"

namespace nvmev::test {
namespace {

class Alignment : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Model m(paper_config());
    AlignmentParams p;
    p.region_bytes = 64 * MiB;
    p.reads_per_stride = 4000;
    for (uint64_t kib : {4, 8, 16, 32, 64, 128, 256, 288, 320, 384, 512, 1024})
      p.strides.push_back(kib * KiB);
    points_ = run_alignment(m, p);
  }
  static const AlignmentPoint& at(uint64_t kib) {
    for (const auto& p : points_)
      if (p.stride_bytes == kib * KiB) return p;
    throw std::out_of_range("stride not run");
  }
  static std::vector<AlignmentPoint> points_;
};
std::vector<AlignmentPoint> Alignment::points_;

TEST_F(Alignment, FullThroughputUpToTheGranularity) {
  for (uint64_t kib : {4, 8, 16, 32}) {
    EXPECT_GT(at(kib).relative, 0.9) << kib << " KiB";
    EXPECT_EQ(at(kib).dies.dies_used(), 8u) << kib << " KiB";
  }
}

TEST_F(Alignment, HalvesWithEachDoublingUpToTheStripe) {
  EXPECT_NEAR(at(64).relative, 0.5, 0.06);
  EXPECT_NEAR(at(128).relative, 0.25, 0.04);
  EXPECT_NEAR(at(256).relative, 0.125, 0.025);
  EXPECT_EQ(at(64).dies.dies_used(), 4u);
  EXPECT_EQ(at(128).dies.dies_used(), 2u);
  EXPECT_EQ(at(256).dies.dies_used(), 1u);
  // on one die nearly every read waits for the previous one
  EXPECT_GT(at(256).dies.total_collisions(), at(256).phase.ops * 9 / 10);
}

TEST_F(Alignment, RepeatsWithThe256KiBStripe) {
  EXPECT_GT(at(288).relative, 0.9);               // 288 mod 256 = 32
  EXPECT_NEAR(at(320).relative, 0.5, 0.06);       // 320 mod 256 = 64
  EXPECT_NEAR(at(384).relative, 0.25, 0.04);      // 384 mod 256 = 128
  EXPECT_NEAR(at(512).relative, 0.125, 0.025);    // multiples of the stripe
  EXPECT_NEAR(at(1024).relative, 0.125, 0.025);
}

TEST(Fragment, WorstCaseAppendReadsAtMostOneFifthOfContiguous) {
  FragmentParams p;
  FragmentResult r = run_fragment(paper_config(), p);
  EXPECT_LE(r.relative, 0.20);
  EXPECT_GT(r.relative, 0.08);
  // every chunk of the fragmented file sits on one die
  EXPECT_EQ(r.fragmented_dies.dies_used(), 1u);
  EXPECT_EQ(r.contiguous_dies.dies_used(), 8u);
  EXPECT_GT(r.fragmented_dies.total_collisions(), r.fragmented_dies.total_reads() * 9 / 10);
  EXPECT_EQ(r.fragmented.errors + r.contiguous.errors, 0u);
}

TEST(Fragment, WorstCaseOverwriteMatchesAppend) {
  FragmentParams p;
  p.kind = FragmentParams::Kind::Overwrite;
  FragmentResult r = run_fragment(paper_config(), p);
  EXPECT_LE(r.relative, 0.20);
  EXPECT_EQ(r.fragmented_dies.dies_used(), 1u);
}

TEST(Fragment, RandomGapsFragmentLess) {
  FragmentParams p;
  p.gap = FragmentParams::Gap::Random;
  FragmentResult r = run_fragment(paper_config(), p);
  EXPECT_GT(r.relative, 0.3);
  EXPECT_LT(r.relative, 0.95);
}

TEST(Fragment, RejectsImpossibleLayouts) {
  FragmentParams p;
  p.file_bytes = 8 * MiB + 4096;  // not a multiple of the chunk
  EXPECT_THROW(run_fragment(paper_config(), p), std::invalid_argument);
  p = FragmentParams{};
  p.file_bytes = 2048 * MiB;  // more than the device
  EXPECT_THROW(run_fragment(paper_config(), p), std::invalid_argument);
}

TEST(RandWrite, ReportsWriteAmplificationAndGc) {
  Model m(small_config());
  RandWriteParams p;
  p.passes = 2;
  RandWriteResult r = run_randwrite(m, p);
  EXPECT_GT(r.write_amplification, 1.2);
  EXPECT_GT(r.stats.gc_cycles, 0u);
  EXPECT_EQ(r.stats.errors, 0u);
  EXPECT_EQ(r.random.ops, 2 * m.capacity_bytes() / K4);
}

TEST(Engine, QueueDepthOneRunsCommandsBackToBack) {
  Model m(paper_config());
  Engine e(m, 1);
  Completion a = e.submit(cmd(FTL_OP_READ, 0, K4));
  Completion b = e.submit(cmd(FTL_OP_READ, 1 << 20, K4));
  EXPECT_EQ(e.now(), a.done_ns);  // b waited for a's slot
  EXPECT_GT(b.done_ns, a.done_ns);
}

TEST(Engine, DeeperQueuesOverlapCommands) {
  Model m(paper_config());
  Engine e(m, 2);
  Completion a = e.submit(cmd(FTL_OP_READ, 0, K4));
  e.submit(cmd(FTL_OP_READ, 1 << 20, K4));
  EXPECT_EQ(e.now(), 0u);
  EXPECT_GT(a.done_ns, 0u);
}

TEST(Engine, SubmitTimesAreHonoured) {
  Model m(paper_config());
  Engine e(m, 4);
  e.submit(cmd(FTL_OP_READ, 0, K4), 5000000);
  EXPECT_EQ(e.now(), 5000000u);
  e.begin_phase();
  e.submit(cmd(FTL_OP_WRITE, 0, K4));
  PhaseResult p = e.end_phase();
  EXPECT_EQ(p.ops, 1u);
  EXPECT_EQ(p.bytes, K4);
  EXPECT_EQ(e.op_result(FTL_OP_WRITE).ops, 1u);
  EXPECT_EQ(e.op_result(FTL_OP_READ).ops, 0u);
  EXPECT_THROW(e.set_queue_depth(0), std::invalid_argument);
}

}  // namespace
}  // namespace nvmev::test
