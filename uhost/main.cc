// nvmev-uhost: a user-level polled NVMe driver for the nvmev device.
// The controller is handed to uio_pci_generic; BAR0 is mapped from sysfs,
// queues and data live in hugepages, and completions are found by polling
// their phase tags -- no interrupt, no kernel driver in the I/O path.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "bench.h"
#include "cases.h"
#include "controller.h"
#include "dma.h"
#include "pci.h"
#include "output.h"
#include "units.h"

using namespace uhost;
using json = nlohmann::ordered_json;

namespace {

struct Device {
  PciFunction pci;
  DmaPool pool;
  Controller ctrl;
  Device(const std::string& bdf, size_t dma_mib)
      : pci(bdf), pool((pci.bind_uio(), dma_mib * nvmev::MiB)), ctrl(pci.bar0(), pool, [this] {
          return access(pci.sysfs().c_str(), F_OK) == 0;
        }) {
    pci.set_bus_master(true);  // the device does no DMA without it
  }
};

json info_json(Device& d) {
  const ControllerInfo& i = d.ctrl.info();
  return {{"bdf", d.pci.bdf()},
          {"driver", d.pci.driver()},
          {"bar0", d.pci.bar0_phys()},
          {"serial", i.serial},
          {"model", i.model},
          {"firmware", i.firmware},
          {"version", std::to_string(i.version >> 16) + "." + std::to_string((i.version >> 8) & 0xff)},
          {"max_queue_entries", d.ctrl.max_queue_entries()},
          {"timeout_ms", d.ctrl.timeout_ms()},
          {"doorbell_stride", 4u << cap_dstrd(i.cap)},
          {"max_transfer_bytes", i.max_transfer},
          {"oncs", i.oncs},
          {"io_queues", i.io_queues},
          {"nsze", i.nsze},
          {"lba_bytes", i.lba_bytes},
          {"capacity_bytes", i.nsze * i.lba_bytes},
          {"flr_capable", d.pci.flr_capable()}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nvmev-uhost: user-level polled NVMe driver for nvmev"};
  app.require_subcommand(1);
  std::string bdf = kDefaultBdf, format = "json";
  size_t dma_mib = 32;
  app.add_option("--bdf", bdf, "PCI address of the controller")->capture_default_str();
  app.add_option("--dma-mib", dma_mib, "DMA memory (2 MiB hugepages) in MiB")->capture_default_str();

  auto* info = app.add_subcommand("info", "bring the controller up, print its identity (JSON)");
  uint16_t info_queues = 64;
  info->add_option("--queues", info_queues, "I/O queues to ask for")->capture_default_str();

  auto* bench = app.add_subcommand("bench", "polled I/O load; JSON or CSV report");
  BenchOptions b;
  bench->add_option("--rw", b.rw, "randread, randwrite, read, write or randrw")->capture_default_str();
  bench->add_option("--bs", b.bs, "block size, or MIN:MAX for random sizes (multiples of 4k)")->capture_default_str();
  bench->add_option("--qd", b.qd, "queue depth per queue")->capture_default_str();
  bench->add_option("--queues", b.queues, "threads, one I/O queue pair each")->capture_default_str();
  bench->add_option("--duration", b.duration_s, "seconds");
  bench->add_option("--ios", b.ios, "I/Os in total");
  bench->add_option("--io-bytes", b.io_bytes, "bytes moved in total (e.g. 128m)");
  bench->add_option("--size", b.size, "region of the namespace from LBA 0 (default: all)");
  bench->add_option("--rwmix-read", b.rwmix_read, "randrw: percent reads")->capture_default_str()->check(CLI::Range(0, 100));
  bench->add_flag("--verify", b.verify, "check every block read (header with block, seed, generation, CRC-32C) and read everything written back at the end");
  bench->add_option("--seed", b.seed, "seed of offsets, sizes and data")->capture_default_str();
  bench->add_option("--timeout-ms", b.timeout_ms, "per command; a timeout resets the controller")->capture_default_str();
  bench->add_option("--format", format, "json or csv")->check(CLI::IsMember({"json", "csv"}))->capture_default_str();

  auto* cs = app.add_subcommand("case", "one torture case; prints 'case NAME: ok' or 'case NAME: FAIL: why'");
  std::string case_name, addr_text, phase = "all";
  int64_t lba = -1;
  std::vector<std::string> names;
  for (const auto& [n, fn] : all_cases()) names.push_back(n);
  cs->add_option("name", case_name, "the case")->required()->check(CLI::IsMember(names));
  cs->add_option("--addr", addr_text, "bad-prp: physical address (0x... or decimal)");
  cs->add_option("--phase", phase, "flr: before (set up), after (check), all (reset in between)")
      ->check(CLI::IsMember({"before", "after", "all"}))->capture_default_str();
  cs->add_option("--lba", lba, "zero-read: an LBA written before a reload, must read zeroes");

  auto* release = app.add_subcommand("release", "shut the controller down, clear Bus Master Enable");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    uint64_t addr = 0;
    if (!addr_text.empty()) {
      size_t end = 0;
      try {
        addr = std::stoull(addr_text, &end, 0);
      } catch (const std::exception&) {
      }
      if (!end || end != addr_text.size()) throw UsageError("--addr " + addr_text + ": not an address");
    }
    if (*bench) check_options(b);
    Device d(bdf, dma_mib);
    if (*info) {
      d.ctrl.bring_up(info_queues);
      std::cout << info_json(d).dump(2) << "\n";
    } else if (*bench) {
      d.ctrl.bring_up(uint16_t(std::max<uint32_t>(b.queues, 1)));
      json report = run_bench(d.ctrl, b);
      nvmev::print_report(std::cout, report, format == "csv");
      const json& s = report["summary"];
      if (s["errors"] != 0 || s["verify_errors"] != 0 || !s["first_error"].get<std::string>().empty()) {
        std::cerr << "nvmev-uhost: bench: " << s["first_error"].get<std::string>() << "\n";
        return 1;
      }
    } else if (*cs) {
      CaseContext ctx{d.pci, d.pool, d.ctrl, case_name, addr, phase, lba};
      try {
        all_cases().at(case_name)(ctx);
      } catch (const UsageError&) {
        throw;
      } catch (const std::exception& e) {
        std::cout << "case " << case_name << ": FAIL: " << e.what() << std::endl;
        return 1;
      }
      std::cout << "case " << case_name << ": ok" << std::endl;
    } else if (*release) {
      if (d.ctrl.bar().read32(reg::CC) & cc::EN) d.ctrl.shutdown();
      d.pci.set_bus_master(false);
    }
  } catch (const UsageError& e) {
    std::cerr << "nvmev-uhost: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    std::cerr << "nvmev-uhost: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "nvmev-uhost: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
