//===- CPUTargetModel.cpp - The sizes the CPU back end derives from the host -===//
#include "compiler/Target/CPU/CPUTargetModel.h"
#include "compiler/Target/TargetBackend.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <unistd.h>

using namespace tdsl;

/// A cache size from sysconf, or `fallback` where the C library does not
/// know it (0 or -1).
static int64_t cacheBytes(int name, int64_t fallback) {
#ifdef _SC_LEVEL1_DCACHE_SIZE
  long v = sysconf(name);
  return v > 0 ? v : fallback;
#else
  (void)name;
  return fallback;
#endif
}

CPUTargetModel CPUTargetModel::forHost() {
  CPUTargetModel m;
  m.cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  auto has = [&](llvm::StringRef f) { return features.lookup(f); };
  if (has("avx512f")) {
    m.vectorBits = 512;
    m.vectorRegisters = 32;
  } else if (has("avx")) {
    m.vectorBits = 256;
  }
#ifdef _SC_LEVEL1_DCACHE_SIZE
  m.l1Bytes = cacheBytes(_SC_LEVEL1_DCACHE_SIZE, m.l1Bytes);
  m.l2Bytes = cacheBytes(_SC_LEVEL2_CACHE_SIZE, m.l2Bytes);
#endif
  m.cores = std::max(1u, std::thread::hardware_concurrency());
  if (const char *spec = std::getenv("TDSL_CPU_MODEL"))
    m.override(spec);
  return m;
}

void CPUTargetModel::override(llvm::StringRef spec) {
  llvm::SmallVector<llvm::StringRef> entries;
  spec.split(entries, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef entry : entries) {
    auto [key, text] = entry.trim().split('=');
    int64_t scale = text.consume_back_insensitive("k") ? 1024 : 1;
    int64_t value = 0;
    bool ok = !text.getAsInteger(10, value) && value > 0;
    if (ok && key == "vector-bits" && llvm::isPowerOf2_64(value) && value >= 128 &&
        value <= 2048)
      vectorBits = value;
    else if (ok && key == "vector-registers")
      vectorRegisters = value;
    else if (ok && key == "l1")
      l1Bytes = value * scale;
    else if (ok && key == "l2")
      l2Bytes = value * scale;
    else if (ok && key == "cores")
      cores = unsigned(value);
    else
      llvm::errs() << "tdslc: warning: ignoring '" << entry
                   << "' in TDSL_CPU_MODEL (vector-bits=N, vector-registers=N, "
                      "l1=NK, l2=NK, cores=N)\n";
  }
}

/// The power of two nearest below `v`, clamped to [lo, hi].
static int64_t pow2In(int64_t v, int64_t lo, int64_t hi) {
  int64_t p = int64_t(1) << llvm::Log2_64(uint64_t(std::max<int64_t>(v, 1)));
  return std::clamp(p, lo, hi);
}

CPUPipelineOptions CPUTargetModel::pipelineOptions(const TargetOptions &o) const {
  CPUPipelineOptions p;
  p.optLevel = o.optLevel;
  p.vectorWidth = o.cpuVectorWidth ? o.cpuVectorWidth : vectorBits / 32;
  p.contractionRows = o.cpuContractionRows ? o.cpuContractionRows
                                           : (vectorRegisters >= 32 ? 8 : 4);
  // A block's 2-vector columns of B fit in two thirds of L1 (48 KiB: 384
  // steps, 256 as a power of two).
  p.contractionKBlock =
      o.cpuContractionKBlock ? o.cpuContractionKBlock
                             : pow2In(l1Bytes * 2 / 3 / (2 * p.vectorWidth * 4), 64, 1024);
  // A tile's block of A (side x k block) and of B (k block x side) fill
  // half of L2 (1 MiB, k block 256: 256); each is read from memory once
  // per block and reused by every register tile of the tile. Halved for
  // small products until every core has four tiles (min tasks: with two
  // per core, SGEMM 512 on 2 threads ran 0.83-1.2 ms against 0.65-0.75).
  p.contractionTile =
      o.cpuContractionTile ? o.cpuContractionTile
                           : pow2In(l2Bytes / 2 / (2 * p.contractionKBlock * 4), 32, 256);
  p.minTasks = o.cpuContractionTile ? 0 : 4 * int64_t(cores);
  p.elementwiseTile = o.cpuElementwiseTile ? o.cpuElementwiseTile
                                           : pow2In(l2Bytes / 64, 4096, 65536);
  // Sizes given on the command line win over the tuner's choices.
  if (o.optLevel > 0 && !o.cpuVectorWidth && !o.cpuContractionRows && !o.cpuContractionTile &&
      !o.cpuContractionKBlock) {
    p.tuneCache = tuneCachePath();
    p.tuneMachine = machineKey();
  }
  return p;
}

std::string CPUTargetModel::machineKey() const {
  // No spaces or commas: it goes into pass options as it is.
  return cpu + "/vec" + std::to_string(vectorBits) + "x" + std::to_string(vectorRegisters) +
         "/l2-" + std::to_string(l2Bytes >> 10) + "k/cores" + std::to_string(cores);
}

std::string tdsl::tuneCachePath() {
  if (const char *path = std::getenv("TDSL_TUNE_CACHE"))
    return path; // "" turns the cache off
  llvm::SmallString<256> dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(dir, home, ".cache");
  else
    return "";
  llvm::sys::path::append(dir, "tdsl", "tune.json");
  return std::string(dir);
}

std::string CPUTargetModel::describe(const TargetOptions &o) const {
  CPUPipelineOptions p = pipelineOptions(o);
  auto mark = [](int64_t overridden) { return overridden ? " (set)" : ""; };
  std::string s;
  s += "cpu: " + cpu + "\n";
  s += "vector registers: " + std::to_string(vectorRegisters) + " x " +
       std::to_string(vectorBits) + " bits\n";
  s += "L1d: " + std::to_string(l1Bytes >> 10) + " KiB\n";
  s += "L2: " + std::to_string(l2Bytes >> 10) + " KiB\n";
  s += "cores: " + std::to_string(cores) + "\n";
  s += "vector width: " + std::to_string(p.vectorWidth) + mark(o.cpuVectorWidth) + "\n";
  s += "contraction rows: " + std::to_string(p.contractionRows) +
       mark(o.cpuContractionRows) + "\n";
  s += "contraction tile: " + std::to_string(p.contractionTile) +
       mark(o.cpuContractionTile) + "\n";
  s += "parallel tasks per contraction: at least " + std::to_string(p.minTasks) + "\n";
  s += "contraction k block: " + std::to_string(p.contractionKBlock) +
       mark(o.cpuContractionKBlock) + "\n";
  s += "elementwise tile: " + std::to_string(p.elementwiseTile) +
       mark(o.cpuElementwiseTile) + "\n";
  s += "machine key: " + machineKey() + "\n";
  s += "tuning cache: " + (p.tuneCache.empty() ? std::string("none") : p.tuneCache) + "\n";
  return s;
}

std::string tdsl::checkCPUSizeOverrides(const TargetOptions &o) {
  auto bad = [](int64_t v, int64_t lo, int64_t hi) { return v && (v < lo || v > hi); };
  if (bad(o.cpuVectorWidth, 1, 64) ||
      (o.cpuVectorWidth && !llvm::isPowerOf2_64(uint64_t(o.cpuVectorWidth))))
    return "--vector-width must be a power of two from 1 to 64";
  if (bad(o.cpuContractionRows, 1, 32))
    return "--contraction-rows must be from 1 to 32";
  if (bad(o.cpuContractionKBlock, 1, 1 << 20))
    return "--contraction-k-block must be from 1 to 1048576";
  if (bad(o.cpuContractionTile, 1, 4096))
    return "--contraction-tile must be from 1 to 4096";
  if (bad(o.cpuElementwiseTile, 1, int64_t(1) << 30))
    return "--elementwise-tile must be from 1 to 2^30";
  return "";
}
