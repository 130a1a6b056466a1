// Geometry validation: every rejected combination, and what is derived.
#include <fstream>
#include <sstream>
#include <utility>

#include "helpers.h"
#include "nvmev_params.h"

namespace nvmev::test {
namespace {

using ::testing::HasSubstr;

TEST(Config, DefaultsAreThePaperDrive) {
  ftl_config c = default_config();
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN];
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  EXPECT_EQ(g.dies, 8u);
  EXPECT_EQ(g.channels, 4u);
  EXPECT_EQ(uint64_t{g.pu_units} * K4, 32768u);
  EXPECT_EQ(uint64_t{g.gran_units} * K4, 32768u);  // default = page x planes
  EXPECT_EQ(g.stripe_bytes, 8u * 32768u);
  EXPECT_EQ(g.logical_units * K4, c.capacity_mib << 20);
  // over-provisioning is at least what was asked for
  EXPECT_GE(g.phys_units * 93, g.logical_units * 100);
}

// write_points_per_die=0 (the default): three quarters of the write
// buffer in partial program units, at most 48, at least 1; the drive
// then always loads.
TEST(Config, AutomaticWritePointsFitThreeQuartersOfTheBuffer) {
  const std::pair<uint64_t, uint32_t> cases[] = {
      {16384, 48},  // default: 512 units x 3/4 / 8 dies
      {4096, 12},   // 128 x 3/4 / 8
      {65536, 48},  // capped
      {288, 1},     // 9 units: 6 / 8 dies rounds to 0, one point
  };
  for (const auto& [kib, points] : cases) {
    ftl_config c = default_config();
    c.write_buffer_kib = kib;
    ftl_geometry g;
    char err[FTL_ERRMSG_LEN];
    ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << kib << ": " << err;
    EXPECT_EQ(g.host_wpts, points) << kib;
  }
  ftl_config c = default_config();
  c.write_points_per_die = 5;  // a given number is kept
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN];
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  EXPECT_EQ(g.host_wpts, 5u);
}

TEST(Config, EveryParameterRangeIsChecked) {
  for (size_t i = 0; i < ftl_nr_params; i++) {
    const ftl_param& p = ftl_params[i];
    SCOPED_TRACE(p.name);
    ftl_config c = default_config();
    if (p.min > 0) {
      *ftl_param_ptr(&c, &p) = p.min - 1;
      std::string e = validate(c);
      EXPECT_THAT(e, HasSubstr(std::string(p.name) + "=" + std::to_string(p.min - 1)));
      EXPECT_THAT(e, HasSubstr("out of range"));
    }
    *ftl_param_ptr(&c, &p) = p.max + 1;
    EXPECT_THAT(validate(c), HasSubstr(std::string(p.name) + "="));
  }
}

struct BadCase {
  const char* what;
  void (*apply)(ftl_config&);
  const char* message;
};

class ConfigRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(ConfigRejects, WithAPreciseMessage) {
  ftl_config c = default_config();
  GetParam().apply(c);
  EXPECT_THAT(validate(c), HasSubstr(GetParam().message));
}

const BadCase kBadCases[] = {
    {"page not 4K multiple", [](ftl_config& c) { c.page_bytes = 6144; },
     "page_bytes=6144 is not a multiple of 4096"},
    {"granularity not 4K multiple", [](ftl_config& c) { c.granularity_bytes = 6144; },
     "granularity_bytes=6144 is not a multiple of 4096"},
    {"granularity larger than block",
     [](ftl_config& c) { c.granularity_bytes = 64ull * 32768 + 4096; },
     "is larger than an erase block"},
    {"both sizes",
     [](ftl_config& c) {
       c.capacity_mib = 4096;
       c.blocks_per_plane = 100;
     },
     "blocks_per_plane and capacity_mib are mutually exclusive"},
    {"no size",
     [](ftl_config& c) {
       c.blocks_per_plane = 0;
       c.capacity_mib = 0;
     },
     "one of blocks_per_plane or capacity_mib must be non-zero"},
    {"no GC headroom",
     [](ftl_config& c) {
       c.capacity_mib = 0;
       c.blocks_per_plane = 100;
       c.op_percent = 1;
     },
     "capacity too small for GC headroom: op_percent=1 leaves 1 spare blocks per die"},
    {"headroom for raised thresholds",
     [](ftl_config& c) {
       c.capacity_mib = 0;
       c.blocks_per_plane = 100;
       c.gc_fg_free_blocks = 8;
       c.gc_bg_free_blocks = 8;
     },
     "GC needs 10 (gc_fg_free_blocks + 2)"},
    {"fg above bg",
     [](ftl_config& c) {
       c.gc_fg_free_blocks = 5;
       c.gc_bg_free_blocks = 4;
     },
     "gc_fg_free_blocks=5 must not exceed gc_bg_free_blocks=4"},
    {"bg not below die blocks",
     [](ftl_config& c) {
       c.capacity_mib = 0;
       c.blocks_per_plane = 40;
       c.op_percent = 50;
       c.gc_bg_free_blocks = 40;
     },
     "gc_bg_free_blocks=40 must be below the 40 blocks of a die"},
    {"write buffer too small", [](ftl_config& c) { c.write_buffer_kib = 256; },
     "write_buffer_kib=256 is too small: it must hold (dies x write_points_per_die + 1) program "
     "units = 288 KiB"},
    {"write buffer too small for write points",
     [](ftl_config& c) {
       c.write_buffer_kib = 1024;
       c.write_points_per_die = 4;
     },
     "it must hold (dies x write_points_per_die + 1) program units = 1056 KiB"},
    {"too many pages",
     [](ftl_config& c) {
       c.channels = 256;
       c.dies_per_channel = 64;
       c.capacity_mib = 0;
       c.blocks_per_plane = 16777216;
     },
     "more than 4294967294 4 KiB pages"},
    {"huge capacity", [](ftl_config& c) { c.capacity_mib = 16777216; },
     "more than 4294967294 4 KiB pages"},
};

INSTANTIATE_TEST_SUITE_P(All, ConfigRejects, ::testing::ValuesIn(kBadCases),
                         [](const auto& info) {
                           std::string n = info.param.what;
                           for (auto& ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(Config, BlocksPerPlaneGivesCapacity) {
  ftl_config c = default_config();
  c.capacity_mib = 0;
  c.blocks_per_plane = 100;
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN];
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  EXPECT_EQ(g.blocks_per_die, 100u);
  EXPECT_EQ(g.phys_units, 100ull * 8 * 64 * 8);  // blocks x dies x pages x (32K/4K)
  EXPECT_EQ(g.logical_units, g.phys_units * 93 / 100);
}

TEST(Config, SmallDrivesGetTheSpareBlocksGcNeeds) {
  ftl_config c = default_config();
  c.capacity_mib = 256;  // 16 blocks per die: 7 % would be one spare block
  c.op_percent = 1;
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN];
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  EXPECT_EQ(g.logical_units * K4, 256ull << 20);
  EXPECT_GE(g.phys_units - g.logical_units, uint64_t{g.dies} * (c.gc_fg_free_blocks + 2) *
                                                g.units_per_block);
}

TEST(Config, GranularityAndStripeFollowTheParameter) {
  ftl_config c = default_config();
  c.granularity_bytes = 4096;
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN];
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  EXPECT_EQ(g.gran_units, 1u);
  EXPECT_EQ(g.stripe_bytes, 8u * 4096u);
  c.granularity_bytes = 73728;  // 72 KiB: not a power of two, still fine
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  EXPECT_EQ(g.stripe_bytes, 8u * 73728u);
}

TEST(Config, TimeScaleMultipliesDelays) {
  ftl_config c = default_config();
  c.time_scale = 10000;
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN];
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  EXPECT_EQ(g.t_read, c.read_ns * 10000);
  EXPECT_EQ(g.t_prog, c.prog_ns * 10000);
  EXPECT_EQ(g.t_erase, c.erase_ns * 10000);
  EXPECT_EQ(g.t_fw_read, c.fw_read_ns * 10000);
}

TEST(Config, TransferTimeDoesNotOverflow) {
  ftl_config c = default_config();
  c.time_scale = 10000;
  c.channel_mbps = 100000;  // 100 GB/s
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN];
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  const uint64_t bytes = 1ull << 32;
  // 4 GiB at 100 GB/s = 42.95 ms, x10000 = 429.5 s
  EXPECT_EQ(ftl_xfer_ns(&g, bytes, 100000), (bytes * 1000 * 10000 + 99999) / 100000);
  EXPECT_EQ(ftl_xfer_ns(&g, 4096, 1), 4096ull * 1000 * 10000);  // slowest link
}

// What a sparse drive cannot make sparse: 8 bytes per 4 KiB page (both
// mapping directions) and a little per block and die.
TEST(Config, MetadataBytesAreTheTablesCreateAllocates) {
  ftl_config c = default_config();
  c.capacity_mib = 131072;  // 128 GiB
  ftl_geometry g;
  char err[FTL_ERRMSG_LEN];
  ASSERT_EQ(ftl_config_derive(&c, &g, err, sizeof(err)), 0) << err;
  uint64_t bytes = 0;
  ASSERT_EQ(ftl_metadata_bytes(&c, &bytes, err, sizeof(err)), 0) << err;
  EXPECT_GE(bytes, 4 * (g.logical_units + g.phys_units));
  EXPECT_LE(bytes, 4 * (g.logical_units + g.phys_units) * 11 / 10);
  c.capacity_mib = 262144;  // twice the drive: twice the tables, within a block each
  uint64_t twice = 0;
  ASSERT_EQ(ftl_metadata_bytes(&c, &twice, err, sizeof(err)), 0) << err;
  EXPECT_NEAR(static_cast<double>(twice) / bytes, 2.0, 0.01);
  c.page_bytes = 6144;
  EXPECT_EQ(ftl_metadata_bytes(&c, &bytes, err, sizeof(err)), -EINVAL);
  EXPECT_THAT(std::string(err), HasSubstr("page_bytes=6144"));
}

TEST(Config, CreateReportsTheValidatorMessage) {
  ftl_config c = default_config();
  c.page_bytes = 6144;
  char err[FTL_ERRMSG_LEN] = "";
  ftl* f = reinterpret_cast<ftl*>(&c);  // must be overwritten
  EXPECT_EQ(ftl_create(&c, &f, err, sizeof(err)), -EINVAL);
  EXPECT_EQ(f, nullptr);
  EXPECT_THAT(std::string(err), HasSubstr("page_bytes=6144"));
  EXPECT_THROW(Model m(c), ConfigError);
}

TEST(Config, DocsListEveryParameter) {
  std::ifstream f(std::string(NVMEV_SOURCE_DIR) + "/docs/parameters.md");
  ASSERT_TRUE(f) << "docs/parameters.md not found";
  std::stringstream ss;
  ss << f.rdbuf();
  // each parameter has a row "| `name` | default | min – max |"
  for (size_t i = 0; i < ftl_nr_params; i++) {
    const ftl_param& p = ftl_params[i];
    std::string row = std::string("| `") + p.name + "` | " + std::to_string(p.def) + " | " +
                      std::to_string(p.min) + " \u2013 " + std::to_string(p.max) + " |";
    EXPECT_THAT(ss.str(), HasSubstr(row)) << p.name << ": docs/parameters.md row is missing or stale";
  }
}

// The module's own parameters (nvmev/nvmev_params.h): each row of the
// table is a row of the docs, default, range and description.
TEST(Config, DocsListEveryModuleParameter) {
  std::ifstream f(std::string(NVMEV_SOURCE_DIR) + "/docs/parameters.md");
  ASSERT_TRUE(f) << "docs/parameters.md not found";
  std::stringstream ss;
  ss << f.rdbuf();
  int rows = 0;
#define NVMEV_PARAM_ROW(name, def, min, max, desc)                                             \
  {                                                                                            \
    std::string row = std::string("| `") + #name + "` | " + std::to_string(def) + " | " +    \
                      std::to_string(min) + " \u2013 " + std::to_string(max) + " | " + desc + \
                      " |";                                                                    \
    EXPECT_THAT(ss.str(), HasSubstr(row)) << #name << ": docs/parameters.md row is missing or stale"; \
    rows++;                                                                                    \
  }
  NVMEV_PARAMS(NVMEV_PARAM_ROW)
#undef NVMEV_PARAM_ROW
  // and no stale row: the section lists the table, the memmap sizes and
  // whether the load makes a drive (the load's, not a drive's, parameters)
  std::string doc = ss.str();
  size_t at = doc.find("## The module's own parameters");
  ASSERT_NE(at, std::string::npos);
  std::istringstream section(doc.substr(at));
  int listed = 0;
  for (std::string line; std::getline(section, line);)
    if (line.rfind("| `", 0) == 0 && line.rfind("| `memmap_start`", 0) != 0 &&
        line.rfind("| `default_drive`", 0) != 0)
      listed++;
  EXPECT_EQ(listed, rows) << "docs/parameters.md lists a module parameter the table has not";
}

}  // namespace
}  // namespace nvmev::test
