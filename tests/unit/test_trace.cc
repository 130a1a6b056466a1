// The text trace format of nvmev-sim: parsing, errors, replay.
#include <sstream>

#include "helpers.h"
#include "trace.h"

namespace nvmev::test {
namespace {

using ::testing::HasSubstr;

std::vector<TraceOp> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_trace(in, "t.trace");
}

std::string parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Trace, ParsesEveryOperation) {
  auto ops = parse(
      "# a comment\n"
      "\n"
      "W 0 32K\n"
      "@1500 R 4096 4k   # trailing comment\n"
      "W 1M 8192 append=32K\n"
      "W 1G 4096 overwrite\n"
      "T 0 2M\n"
      "F\n"
      "B\n");
  ASSERT_EQ(ops.size(), 7u);
  EXPECT_EQ(ops[0].cmd.op, FTL_OP_WRITE);
  EXPECT_EQ(ops[0].cmd.len, 32768u);
  EXPECT_FALSE(ops[0].at_ns);
  EXPECT_EQ(ops[0].line, 3u);
  EXPECT_EQ(ops[1].cmd.op, FTL_OP_READ);
  EXPECT_EQ(*ops[1].at_ns, 1500u);
  EXPECT_EQ(ops[1].cmd.len, 4096u);
  EXPECT_EQ(ops[2].cmd.off, 1u << 20);
  EXPECT_EQ(ops[2].cmd.hint, FTL_HINT_APPEND);
  EXPECT_EQ(ops[2].cmd.hint_prev_off, 32768u);
  EXPECT_EQ(ops[3].cmd.off, 1u << 30);
  EXPECT_EQ(ops[3].cmd.hint, FTL_HINT_OVERWRITE);
  EXPECT_EQ(ops[4].cmd.op, FTL_OP_TRIM);
  EXPECT_EQ(ops[5].cmd.op, FTL_OP_FLUSH);
  EXPECT_TRUE(ops[6].barrier);
}

struct BadLine {
  const char* text;
  const char* message;
};

void PrintTo(const BadLine& b, std::ostream* os) { *os << '"' << b.text << '"'; }

class TraceRejects : public ::testing::TestWithParam<BadLine> {};

TEST_P(TraceRejects, WithFileLineAndReason) {
  EXPECT_THAT(parse_error(std::string("R 0 4K\n") + GetParam().text + "\n"),
              HasSubstr(std::string("t.trace:2: ") + GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    All, TraceRejects,
    ::testing::Values(BadLine{"X 0 4K", "unknown operation 'X'"},
                      BadLine{"READ 0 4K", "unknown operation 'READ'"},
                      BadLine{"R 0", "R needs <offset> <length>"},
                      BadLine{"R zero 4K", "bad offset 'zero'"},
                      BadLine{"R 0 0", "bad length '0'"},
                      BadLine{"R 0 4Q", "bad length '4Q'"},
                      BadLine{"R -1 4K", "bad offset '-1'"},
                      BadLine{"W 0 99999999999999999999", "bad length"},
                      BadLine{"W 0 17179869184G", "bad length"},
                      BadLine{"@12x R 0 4K", "bad submit time '@12x'"},
                      BadLine{"@100", "submit time without an operation"},
                      BadLine{"@100 B", "a barrier takes no submit time"},
                      BadLine{"R 0 4K overwrite", "unexpected 'overwrite': hints apply to writes only"},
                      BadLine{"W 0 4K append=x", "bad append offset 'x'"},
                      BadLine{"W 0 4K overwrite append=0", "more than one hint"},
                      BadLine{"W 0 4K fast", "unexpected 'fast'"}));

TEST(Trace, ReplayReportsPerOperation) {
  Model m(paper_config());
  auto ops = parse("W 0 256K\nF\nB\n@1000000000 R 0 256K\nT 0 256K\nR 0 4K\n");
  TraceResult r = run_trace(m, ops, 8);
  EXPECT_EQ(r.total.ops, 5u);
  EXPECT_EQ(r.total.errors, 0u);
  EXPECT_EQ(r.per_op[FTL_OP_WRITE].ops, 1u);
  EXPECT_EQ(r.per_op[FTL_OP_READ].ops, 2u);
  EXPECT_EQ(r.per_op[FTL_OP_READ].bytes, 256u * 1024 + 4096);
  EXPECT_EQ(r.per_op[FTL_OP_TRIM].ops, 1u);
  EXPECT_GE(r.total.end_ns, 1000000000u);
  EXPECT_EQ(m.stats().unmapped_read_units, 1u);  // the read after the trim
  for (const auto& d : m.die_stats()) EXPECT_EQ(d.host_reads, 1u);
}

TEST(Trace, ErrorsFromTheModelAreCounted) {
  Model m(paper_config());
  auto ops = parse("R 2G 4K\nW 0 4K\n");
  TraceResult r = run_trace(m, ops, 1);
  EXPECT_EQ(r.per_op[FTL_OP_READ].errors, 1u);
  EXPECT_EQ(r.total.errors, 1u);
}

}  // namespace
}  // namespace nvmev::test
