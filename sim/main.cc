// nvmev-sim: the flash model of nvmev.ko, driven in virtual time.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>

#include "report.h"
#include "trace.h"
#include "workloads.h"
#include "zoned.h"

using namespace nvmev;

namespace {

json die_rows(const std::vector<ftl_die_stats>& dies) {
  json rows = json::array();
  for (size_t d = 0; d < dies.size(); d++) {
    json row{{"die", d}};
    row.update(to_json(dies[d]));
    rows.push_back(row);
  }
  return rows;
}

json base_report(const char* workload, const Model& m) {
  return json{{"workload", workload},
              {"config", config_json(m.config())},
              {"geometry", geometry_json(m)}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "nvmev-sim: the SSD model of nvmev.ko (ftl/) in virtual time.\n"
      "Geometry and timing options are the module parameters of nvmev.ko."};
  app.require_subcommand(1);
  app.fallthrough();

  ftl_config cfg;
  ftl_config_defaults(&cfg);
  auto* geo = app.add_option_group("Geometry and timing");
  for (size_t i = 0; i < ftl_nr_params; i++) {
    const ftl_param& p = ftl_params[i];
    // module-parameter spelling (capacity_mib) and the usual CLI one (capacity-mib)
    std::string dashed = p.name;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    std::string names = std::string("--") + p.name;
    if (dashed != p.name) names += ",--" + dashed;
    geo->add_option(names, *ftl_param_ptr(&cfg, &p), p.desc)
        ->capture_default_str();
  }
  std::string format = "json", output;
  app.add_option("--format", format, "output format")
      ->check(CLI::IsMember({"json", "csv"}))
      ->capture_default_str();
  app.add_option("--output,-o", output, "write results to this file instead of stdout");

  auto* params_cmd = app.add_subcommand("params", "list every geometry/timing parameter");

  AlignmentParams ap;
  uint64_t stride_min = 4, stride_max = 1024, stride_step = 4, region_mib = 256;
  auto* align_cmd = app.add_subcommand(
      "alignment", "sequential write, then 4 KiB random reads at multiples of a stride");
  align_cmd->add_option("--region-mib", region_mib, "region written and read")->capture_default_str();
  align_cmd->add_option("--stride-min-kib", stride_min, "first stride")->capture_default_str();
  align_cmd->add_option("--stride-max-kib", stride_max, "last stride")->capture_default_str();
  align_cmd->add_option("--stride-step-kib", stride_step, "stride increment")->capture_default_str();
  align_cmd->add_option("--reads", ap.reads_per_stride, "reads per stride")->capture_default_str();
  align_cmd->add_option("--qd", ap.queue_depth, "queue depth")->capture_default_str();
  align_cmd->add_option("--seed", ap.seed, "random seed")->capture_default_str();

  RandWriteParams rp;
  uint64_t bs_kib = 4;
  auto* rw_cmd = app.add_subcommand(
      "randwrite", "fill, then random overwrites of passes x capacity (garbage collection)");
  rw_cmd->add_option("--passes", rp.passes, "capacity multiples written")->capture_default_str();
  rw_cmd->add_option("--bs-kib", bs_kib, "write size")->capture_default_str();
  rw_cmd->add_option("--qd", rp.queue_depth, "queue depth")->capture_default_str();
  rw_cmd->add_option("--seed", rp.seed, "random seed")->capture_default_str();

  FragmentParams fp;
  std::string kind = "append", gap = "worst";
  uint64_t file_mib = 8, chunk_kib = 0, read_kib = 1024;
  auto* frag_cmd = app.add_subcommand(
      "fragment", "fragmented-file write pattern, then a sequential read vs a contiguous file");
  frag_cmd->add_option("--kind", kind, "how the file is fragmented")
      ->check(CLI::IsMember({"append", "overwrite"}))
      ->capture_default_str();
  frag_cmd->add_option("--gap", gap, "other data written between chunks: stripe - chunk, or random")
      ->check(CLI::IsMember({"worst", "random"}))
      ->capture_default_str();
  frag_cmd->add_option("--file-mib", file_mib, "target file size")->capture_default_str();
  frag_cmd->add_option("--chunk-kib", chunk_kib, "file chunk; 0 = die-allocation granularity")
      ->capture_default_str();
  frag_cmd->add_option("--read-kib", read_kib, "read command size")->capture_default_str();
  uint64_t settle_ms = 1000;
  frag_cmd->add_flag("--send-hints", fp.send_hints,
                     "send append/overwrite hints with the target file's writes");
  frag_cmd->add_option("--settle-ms", settle_ms, "idle time before the read")->capture_default_str();
  frag_cmd->add_option("--seed", fp.seed, "random seed")->capture_default_str();

  SubpageParams sp;
  uint64_t sp_file_kib = 1024, sp_append_kib = 16, sp_other_kib = 16, sp_read_kib = 1024;
  auto* sub_cmd = app.add_subcommand(
      "subpage", "files grown together by appends smaller than a program unit, then read");
  sub_cmd->add_option("--files", sp.files, "files written at once")->capture_default_str();
  sub_cmd->add_option("--file-kib", sp_file_kib, "size of each file")->capture_default_str();
  sub_cmd->add_option("--append-kib", sp_append_kib, "append size")->capture_default_str();
  sub_cmd->add_option("--other-kib", sp_other_kib, "other data written after each append")
      ->capture_default_str();
  sub_cmd->add_option("--read-kib", sp_read_kib, "read command size")->capture_default_str();
  sub_cmd->add_flag("--send-hints", sp.send_hints, "send append hints with the files' appends");
  sub_cmd->add_flag("--extents", sp.extents,
                    "each append in an extent of its own, read as its extents at once");

  ZoneSweepParams zsp;
  uint64_t zone_mib = 0, zone_wkib = 64, zone_rkib = 64;
  std::string widths = "1,2,4,8", opens = "1,2,4,8";
  auto* zsweep_cmd = app.add_subcommand(
      "zone-sweep", "zoned drive: write, then read, whole zones vs zone width and open zones");
  zsweep_cmd->add_option("--zone-mib", zone_mib, "zone size; 0 = one block on every die")
      ->capture_default_str();
  zsweep_cmd->add_option("--widths", widths, "zone widths in dies")->capture_default_str();
  zsweep_cmd->add_option("--open-zones", opens, "zones written at once")->capture_default_str();
  zsweep_cmd->add_option("--write-kib", zone_wkib, "write size")->capture_default_str();
  zsweep_cmd->add_option("--read-kib", zone_rkib, "read size")->capture_default_str();
  zsweep_cmd->add_option("--qd", zsp.queue_depth, "queue depth")->capture_default_str();

  ZoneLogParams zlp;
  auto* zlog_cmd = app.add_subcommand(
      "zone-log",
      "the same log-structured zone workload on a zoned and a conventional drive (WAF, latency)");
  zlog_cmd->add_option("--zone-mib", zone_mib, "zone size; 0 = one block on every die")
      ->capture_default_str();
  zlog_cmd->add_option("--width", zlp.width, "zone width in dies; 0 = all")->capture_default_str();
  zlog_cmd->add_option("--open-zones", zlp.open_zones, "zones written at once")
      ->capture_default_str();
  zlog_cmd->add_option("--write-kib", zone_wkib, "write size")->capture_default_str();
  zlog_cmd->add_option("--qd", zlp.queue_depth, "queue depth")->capture_default_str();
  zlog_cmd->add_option("--passes", zlp.passes, "capacity multiples written")->capture_default_str();
  zlog_cmd->add_option("--fill-percent", zlp.fill_percent, "zones full before the run")
      ->check(CLI::Range(1, 99))
      ->capture_default_str();
  zlog_cmd->add_option("--seed", zlp.seed, "random seed")->capture_default_str();

  std::string trace_file;
  unsigned trace_qd = 32;
  auto* trace_cmd = app.add_subcommand("trace", "replay a text trace (format in docs/sim.md)");
  trace_cmd->add_option("file", trace_file, "trace file, - for stdin")->required();
  trace_cmd->add_option("--qd", trace_qd, "queue depth for commands without @time")
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and friends exit 0; every usage error exits 2
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  apply_default_capacity(cfg);
  std::ofstream file;
  if (!output.empty()) {
    file.open(output);
    if (!file) {
      std::cerr << "nvmev-sim: cannot write " << output << "\n";
      return 2;
    }
  }
  std::ostream& out = output.empty() ? std::cout : file;
  const bool csv = format == "csv";

  try {
    if (*params_cmd) {
      json rows = json::array();
      for (size_t i = 0; i < ftl_nr_params; i++)
        rows.push_back({{"name", ftl_params[i].name},
                        {"default", ftl_params[i].def},
                        {"min", ftl_params[i].min},
                        {"max", ftl_params[i].max},
                        {"description", ftl_params[i].desc}});
      print_report(out, json{{"workload", "params"}, {"rows", rows}}, csv);
      return 0;
    }

    if (*frag_cmd) {
      fp.kind = kind == "append" ? FragmentParams::Kind::Append : FragmentParams::Kind::Overwrite;
      fp.gap = gap == "worst" ? FragmentParams::Gap::Worst : FragmentParams::Gap::Random;
      fp.file_bytes = file_mib * MiB;
      fp.chunk_bytes = chunk_kib * KiB;
      fp.read_bytes = read_kib * KiB;
      fp.settle_ns = settle_ms * 1000000;
      Model probe(cfg);
      FragmentResult r = run_fragment(cfg, fp);
      json rep = base_report("fragment", probe);
      rep["summary"] = {{"kind", to_string(fp.kind)},
                        {"gap", to_string(fp.gap)},
                        {"hints_sent", fp.send_hints},
                        {"file_bytes", fp.file_bytes},
                        {"relative_throughput", r.relative},
                        {"hints_honoured", r.fragmented_stats.hint_honoured},
                        {"hints_ignored", r.fragmented_stats.hint_ignored_off +
                                              r.fragmented_stats.hint_ignored_unmapped +
                                              r.fragmented_stats.hint_ignored_range +
                                              r.fragmented_stats.hint_ignored_wear +
                                              r.fragmented_stats.hint_ignored_invalid}};
      json rows = json::array();
      auto row = [&](const char* layout, const PhaseResult& p, const DieActivity& a) {
        json j{{"layout", layout},
               {"mb_per_s", p.mb_per_s()},
               {"relative", p.mb_per_s() / r.contiguous.mb_per_s()},
               {"mean_latency_us", p.mean_latency_ns / 1000},
               {"nand_reads", a.total_reads()},
               {"collisions", a.total_collisions()},
               {"collision_wait_us", a.total_wait_ns() / 1000},
               {"dies_used", a.dies_used()}};
        for (size_t d = 0; d < a.reads.size(); d++)
          j["die" + std::to_string(d) + "_reads"] = a.reads[d];
        rows.push_back(j);
      };
      row("fragmented", r.fragmented, r.fragmented_dies);
      row("contiguous", r.contiguous, r.contiguous_dies);
      rep["rows"] = rows;
      print_report(out, rep, csv);
      return 0;
    }

    if (*sub_cmd) {
      sp.file_bytes = sp_file_kib * KiB;
      sp.append_bytes = sp_append_kib * KiB;
      sp.other_bytes = sp_other_kib * KiB;
      sp.read_bytes = sp_read_kib * KiB;
      Model probe(cfg);
      SubpageResult r = run_subpage(cfg, sp);
      json rep = base_report("subpage", probe);
      rep["summary"] = {{"files", sp.files},
                        {"file_bytes", sp.file_bytes},
                        {"append_bytes", sp.append_bytes},
                        {"other_bytes", sp.other_bytes},
                        {"hints_sent", sp.send_hints},
                        {"extents", sp.extents},
                        {"write_points_per_die", probe.geometry().host_wpts}};
      json rows = json::array();
      auto row = [&](const char* layout, const PhaseResult& p, double reads) {
        rows.push_back({{"layout", layout},
                        {"mb_per_s", p.mb_per_s()},
                        {"relative", p.mb_per_s() / r.contiguous.mb_per_s()},
                        {"nand_reads_per_file", reads},
                        {"program_units_per_file", r.file_program_units},
                        {"pad_units", &p == &r.fragmented ? r.stats.pad_units : 0},
                        {"wpt_evictions", &p == &r.fragmented ? r.stats.wpt_evictions : 0},
                        {"waf", &p == &r.fragmented && r.stats.host_write_units
                                    ? static_cast<double>(r.stats.nand_write_units) /
                                          static_cast<double>(r.stats.host_write_units)
                                    : 0.0}});
      };
      row("fragmented", r.fragmented, r.reads_per_file);
      row("contiguous", r.contiguous, r.contiguous_reads_per_file);
      rep["rows"] = rows;
      print_report(out, rep, csv);
      return 0;
    }

    if (*zsweep_cmd) {
      auto list = [](const std::string& s) {
        std::vector<uint32_t> v;
        for (size_t i = 0; i < s.size();) {
          size_t j = s.find(',', i);
          if (j == std::string::npos) j = s.size();
          v.push_back(static_cast<uint32_t>(std::stoul(s.substr(i, j - i))));
          i = j + 1;
        }
        return v;
      };
      zsp.zone_bytes = zone_mib * MiB;
      zsp.widths = list(widths);
      zsp.open_zones = list(opens);
      zsp.write_bytes = zone_wkib * KiB;
      zsp.read_bytes = zone_rkib * KiB;
      Model probe(cfg);
      json rep = base_report("zone-sweep", probe);
      rep["summary"] = {{"zone_bytes", zone_bytes_for(probe, zsp.zone_bytes)},
                        {"queue_depth", zsp.queue_depth}};
      json rows = json::array();
      for (const auto& pt : run_zone_sweep(cfg, zsp))
        rows.push_back({{"width", pt.width},
                        {"open_zones", pt.open_zones},
                        {"write_mb_per_s", pt.write.mb_per_s()},
                        {"read_mb_per_s", pt.read.mb_per_s()},
                        {"write_p99_latency_us", pt.write.p99_latency_ns / 1000.0},
                        {"read_p99_latency_us", pt.read.p99_latency_ns / 1000.0}});
      rep["rows"] = rows;
      print_report(out, rep, csv);
      return 0;
    }
    if (*zlog_cmd) {
      zlp.zone_bytes = zone_mib * MiB;
      zlp.write_bytes = zone_wkib * KiB;
      Model probe(cfg);
      json rep = base_report("zone-log", probe);
      rep["summary"] = {{"zone_bytes", zone_bytes_for(probe, zlp.zone_bytes)},
                        {"open_zones", zlp.open_zones},
                        {"passes", zlp.passes},
                        {"fill_percent", zlp.fill_percent}};
      json rows = json::array();
      for (bool zoned : {true, false}) {
        ZoneLogResult r = run_zone_log(cfg, zlp, zoned);
        rows.push_back({{"drive", zoned ? "zoned" : "conventional"},
                        {"write_amplification", r.write_amplification},
                        {"gc_copies", r.gc_copies},
                        {"zone_resets", r.resets},
                        {"write_mb_per_s", r.writes.mb_per_s()},
                        {"write_mean_latency_us", r.writes.mean_latency_ns / 1000},
                        {"write_p99_latency_us", r.writes.p99_latency_ns / 1000.0},
                        {"write_max_latency_us", r.writes.max_latency_ns / 1000.0}});
      }
      rep["rows"] = rows;
      print_report(out, rep, csv);
      return 0;
    }

    Model model(cfg);
    if (*align_cmd) {
      if (stride_step == 0 || stride_min == 0 || stride_min > stride_max)
        throw std::invalid_argument("alignment: need 0 < stride-min <= stride-max and step > 0");
      for (uint64_t s = stride_min; s <= stride_max; s += stride_step) ap.strides.push_back(s * KiB);
      ap.region_bytes = region_mib * MiB;
      auto points = run_alignment(model, ap);
      json rep = base_report("alignment", model);
      json rows = json::array();
      for (const auto& pt : points)
        rows.push_back({{"stride_kib", pt.stride_bytes / KiB},
                        {"iops", pt.phase.iops()},
                        {"mb_per_s", pt.phase.mb_per_s()},
                        {"relative", pt.relative},
                        {"mean_latency_us", pt.phase.mean_latency_ns / 1000},
                        {"p99_latency_us", pt.phase.p99_latency_ns / 1000.0},
                        {"dies_used", pt.dies.dies_used()},
                        {"collisions", pt.dies.total_collisions()}});
      rep["summary"] = {{"reads_per_stride", ap.reads_per_stride}, {"queue_depth", ap.queue_depth}};
      rep["rows"] = rows;
      print_report(out, rep, csv);
    } else if (*rw_cmd) {
      rp.block_bytes = bs_kib * KiB;
      RandWriteResult r = run_randwrite(model, rp);
      json rep = base_report("randwrite", model);
      rep["summary"] = {{"passes", rp.passes},
                        {"write_amplification", r.write_amplification},
                        {"fill_mb_per_s", r.fill.mb_per_s()},
                        {"random_mb_per_s", r.random.mb_per_s()},
                        {"random_iops", r.random.iops()},
                        {"random_p99_latency_us", r.random.p99_latency_ns / 1000.0},
                        {"gc_cycles", r.stats.gc_cycles},
                        {"placement_fallbacks", r.stats.placement_fallbacks},
                        {"errors", r.stats.errors}};
      rep["rows"] = die_rows(r.dies);
      print_report(out, rep, csv);
    } else if (*trace_cmd) {
      std::ifstream tf;
      std::istream* in = &std::cin;
      if (trace_file != "-") {
        tf.open(trace_file);
        if (!tf) throw TraceError(trace_file + ": cannot open");
        in = &tf;
      }
      auto ops = parse_trace(*in, trace_file);
      TraceResult r = run_trace(model, ops, trace_qd);
      json rep = base_report("trace", model);
      rep["summary"] = to_json(r.total);
      rep["summary"]["write_amplification"] = model.write_amplification();
      json rows = json::array();
      const char* names[FTL_OP_NR] = {"read", "write", "trim", "flush"};
      for (int o = 0; o < FTL_OP_NR; o++) {
        json row{{"op", names[o]}};
        row.update(to_json(r.per_op[o]));
        rows.push_back(row);
      }
      rep["rows"] = rows;
      rep["dies"] = die_rows(model.die_stats());
      rep["stats"] = to_json(model.stats());
      print_report(out, rep, csv);
    }
  } catch (const ConfigError& e) {
    std::cerr << "nvmev-sim: invalid configuration: " << e.what() << "\n";
    return 2;
  } catch (const TraceError& e) {
    std::cerr << "nvmev-sim: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "nvmev-sim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "nvmev-sim: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
