//===- Tuner.cpp - tdslc --tune: tile sizes of contractions by measurement -===//
//
// Each contraction is timed alone: a function that fills its operands with
// constants and runs it in a loop, lowered by the CPU pipeline with the
// candidate's sizes on the op (tdsl.tile) and JIT-compiled as a program
// would be. The fastest candidate goes to the cache under the contraction's
// key, so programs that contain the same contraction reuse it.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/CPU/Tuner.h"
#include "compiler/Codegen/CPU/TileConfig.h"
#include "compiler/Pipelines/Pipelines.h"
#include "compiler/Target/CPU/CPUTargetModel.h"
#include "compiler/Target/Host.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/RegionUtils.h"

#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace tdsl;

namespace {

using Clock = std::chrono::steady_clock;

/// `linalg.matmul [1024, 1024, 1024]`: how the log names a contraction.
std::string describe(linalg::LinalgOp op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName() << " [";
  llvm::interleaveComma(op.getStaticLoopRanges(), os);
  os << "]";
  return s;
}

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// A function `tdsl_tune_bench(reps: index) -> T` that runs `op` `reps`
/// times on constant operands with `config` and returns the sum of the
/// first element of each result (so no run is dead code). Null when the op
/// reads values of its function other than constants.
OwningOpRef<ModuleOp> buildBench(linalg::LinalgOp op, TileConfig config) {
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  if (llvm::any_of(captured, [](Value v) { return !matchPattern(v, m_Constant()); }))
    return nullptr;
  Location loc = op.getLoc();
  OpBuilder b(op.getContext());
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type elem = resultType.getElementType();
  auto fn = func::FuncOp::create(b, loc, "tdsl_tune_bench",
                                 b.getFunctionType({b.getIndexType()}, {elem}));
  b.setInsertionPointToStart(fn.addEntryBlock());
  IRMapping map;
  for (Value v : captured)
    map.map(v, b.clone(*v.getDefiningOp())->getResult(0));
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = cast<RankedTensorType>(operand.get().getType());
    bool init = op.isDpsInit(&operand);
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
    Value fill = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(type.getElementType(), init ? 0.0 : 0.5));
    map.map(operand.get(), linalg::FillOp::create(b, loc, fill, empty).getResult(0));
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value acc = arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, 0.0));
  auto loop = scf::ForOp::create(
      b, loc, zero, fn.getArgument(0), one, ValueRange{acc},
      [&](OpBuilder &lb, Location l, Value, ValueRange args) {
        Operation *copy = lb.clone(*op, map);
        copy->removeAttr("tdsl.kernel_id");
        setTileConfig(copy, config);
        SmallVector<Value> at(resultType.getRank(), zero);
        Value first = tensor::ExtractOp::create(lb, l, copy->getResult(0), at);
        scf::YieldOp::create(lb, l, ValueRange{arith::AddFOp::create(lb, l, args[0], first)});
      });
  func::ReturnOp::create(b, loc, loop.getResults());
  return module;
}

/// Seconds per run of the bench with `config`, or a message why not.
llvm::Expected<double> timeConfig(linalg::LinalgOp op, TileConfig config,
                                  const CPUPipelineOptions &base, unsigned optLevel,
                                  const std::string &runtimeDir) {
  OwningOpRef<ModuleOp> bench = buildBench(op, config);
  if (!bench)
    return llvm::createStringError("it reads values of its function");
  PassManager pm(op.getContext());
  CPUPipelineOptions cpu = base;
  cpu.tuneCache.clear();
  buildCPUTilingPipeline(pm, cpu);
  buildCPUBufferizePipeline(pm);
  buildCPUToLLVMPipeline(pm, cpu);
  if (failed(pm.run(*bench)))
    return llvm::createStringError("its code did not lower");
  auto engine = createJIT(*bench, optLevel, runtimeDir);
  if (!engine)
    return engine.takeError();
  auto sym = (*engine)->lookup("tdsl_tune_bench");
  if (!sym)
    return sym.takeError();
  auto time = [&](int64_t reps) {
    Clock::time_point t0 = Clock::now();
    if (isa<Float32Type>(getElementTypeOrSelf(op->getResult(0).getType())))
      (void)reinterpret_cast<float (*)(int64_t)>(*sym)(reps);
    else
      (void)reinterpret_cast<double (*)(int64_t)>(*sym)(reps);
    return secondsSince(t0);
  };
  time(1); // first touch of the buffers, and the code
  double once = time(1);
  // Runs of about 20 ms, best of three.
  int64_t reps = std::clamp<int64_t>(int64_t(std::ceil(0.02 / std::max(once, 1e-7))), 1, 1000);
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i)
    best = std::min(best, time(reps) / double(reps));
  return best;
}

} // namespace

LogicalResult tdsl::tuneContractions(ModuleOp module, const TargetOptions &options,
                                     double seconds, const std::string &runtimeDir,
                                     llvm::raw_ostream &log, std::string &error) {
  Clock::time_point start = Clock::now();
  CPUTargetModel host = CPUTargetModel::forHost();
  CPUPipelineOptions base = host.pipelineOptions(options);
  if (options.optLevel == 0) {
    error = "--tune needs -O1 or higher (-O0 does not tile)";
    return failure();
  }
  if (options.cpuVectorWidth || options.cpuContractionRows || options.cpuContractionTile ||
      options.cpuContractionKBlock) {
    error = "--tune chooses the contraction sizes: give it without --vector-width, "
            "--contraction-rows, --contraction-tile and --contraction-k-block";
    return failure();
  }
  if (base.tuneCache.empty()) {
    error = "--tune has no cache to write: TDSL_TUNE_CACHE is empty and there is no HOME";
    return failure();
  }
  // The contractions as the pipeline gives them to tiling.
  OwningOpRef<ModuleOp> linalgModule = module.clone();
  PassManager pm(module.getContext());
  buildTDSLTransformPipeline(pm);
  buildTDSLToLinalgPipeline(pm, /*shareRandomBlocks=*/true, /*runtimeModelInit=*/false,
                            /*splitDividedLoops=*/true);
  if (failed(pm.run(*linalgModule))) {
    error = "--tune could not lower the program";
    return failure();
  }

  llvm::json::Object root;
  if (auto buffer = llvm::MemoryBuffer::getFile(base.tuneCache)) {
    llvm::Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
    if (json && json->getAsObject())
      root = std::move(*json->getAsObject());
    else
      log << "tdslc: --tune: starting a new cache (" << base.tuneCache
          << " is not a tuning cache)\n";
    if (!json)
      llvm::consumeError(json.takeError());
  }
  if (!root.getObject("machines"))
    root["machines"] = llvm::json::Object();
  llvm::json::Object &machines = *root.getObject("machines");
  if (!machines.getObject(base.tuneMachine))
    machines[base.tuneMachine] = llvm::json::Object();
  llvm::json::Object &known = *machines.getObject(base.tuneMachine);

  SmallVector<linalg::LinalgOp> untimed;
  llvm::StringSet<> seen;
  linalgModule->walk([&](linalg::LinalgOp op) {
    if (!isTunableContraction(op))
      return;
    std::string key = contractionKey(op);
    if (!seen.insert(key).second)
      return;
    if (known.getObject(key))
      log << "tdslc: --tune: " << describe(op) << ": in the cache already\n";
    else
      untimed.push_back(op);
  });

  // The model's sizes first: every other candidate is measured against them.
  SmallVector<TileConfig> candidates = {{base.contractionTile, base.contractionRows}};
  for (int64_t tile : {32, 64, 128, 256})
    for (int64_t rows : {4, 8})
      if (tile != base.contractionTile || rows != base.contractionRows)
        candidates.push_back({tile, rows});
  bool changed = false;
  for (linalg::LinalgOp op : untimed) {
    std::string key = contractionKey(op);
    llvm::json::Array tried;
    TileConfig best;
    double bestTime = std::numeric_limits<double>::infinity(), modelTime = 0;
    size_t ran = 0;
    bool untimable = false;
    for (TileConfig c : candidates) {
      if (secondsSince(start) > seconds)
        break;
      llvm::Expected<double> t = timeConfig(op, c, base, options.optLevel, runtimeDir);
      if (!t) {
        log << "tdslc: --tune: " << describe(op) << ": not timed: "
            << llvm::toString(t.takeError()) << "\n";
        untimable = true;
        break;
      }
      ++ran;
      if (ran == 1)
        modelTime = *t;
      if (*t < bestTime)
        bestTime = *t, best = c;
      tried.push_back(llvm::json::Object{
          {"tile", c.tile}, {"rows", c.rows}, {"ns", int64_t(std::round(*t * 1e9))}});
    }
    std::string what = describe(op);
    if (untimable)
      continue;
    if (ran < candidates.size()) {
      log << "tdslc: --tune: " << what << ": out of time after " << ran << " of "
          << candidates.size() << " candidates; not cached\n";
      continue;
    }
    known[key] = llvm::json::Object{{"tile", best.tile},
                                    {"rows", best.rows},
                                    {"ns", int64_t(std::round(bestTime * 1e9))},
                                    {"model_ns", int64_t(std::round(modelTime * 1e9))},
                                    {"tried", std::move(tried)}};
    changed = true;
    log << llvm::format("tdslc: --tune: %s: tile %lld, rows %lld: %.1f us (the model's "
                        "%lld, %lld: %.1f us)\n",
                        what.c_str(), (long long)best.tile, (long long)best.rows,
                        bestTime * 1e6, (long long)base.contractionTile,
                        (long long)base.contractionRows, modelTime * 1e6);
  }
  if (!changed)
    return success();
  llvm::SmallString<256> dir(base.tuneCache);
  llvm::sys::path::remove_filename(dir);
  if (!dir.empty())
    (void)llvm::sys::fs::create_directories(dir);
  // A new file of its own renamed over the old one: a reader never sees half
  // a file. (Two --tune runs at once each keep their own kernels: the last
  // rename wins.)
  int fd;
  llvm::SmallString<256> tmp;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(base.tuneCache + ".%%%%%%.tmp", fd, tmp)) {
    error = "cannot write the tuning cache " + base.tuneCache + ": " + ec.message();
    return failure();
  }
  bool written;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
    os.flush();
    written = !os.has_error();
    os.clear_error();
  }
  std::error_code ec = written ? llvm::sys::fs::rename(tmp, base.tuneCache)
                               : std::make_error_code(std::errc::io_error);
  if (ec) {
    llvm::sys::fs::remove(tmp);
    error = "cannot write the tuning cache " + base.tuneCache + ": " + ec.message();
    return failure();
  }
  log << "tdslc: --tune: wrote " << base.tuneCache << " in "
      << llvm::format("%.1f", secondsSince(start)) << " s\n";
  return success();
}
