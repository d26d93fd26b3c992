//===- CudaEmulator.cpp - Runs the kernels of a GPU module on the CPU -----===//
//
// See CudaEmulator.h. One launch runs at a time; a block's threads are
// ucontext fibers on the calling thread, run in turn until each exits or
// waits at a synchronization point. A barrier releases when every thread
// of the block waits at one, a shuffle when every thread of its warp waits
// at one (which then exchanges the values); anything else is a divergence
// error, as is a thread that exits while others wait.
//
//===----------------------------------------------------------------------===//
#include "CudaEmulator.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <ucontext.h>

#include <cfenv>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

using namespace llvm;

namespace {

constexpr size_t kStackBytes = 128 * 1024;
constexpr int kBlockGroup = -1;

struct Fiber {
  ucontext_t context;
  std::unique_ptr<char[]> stack; // untouched until used
  unsigned tid[3] = {0, 0, 0};
  unsigned linear = 0;
  enum { Ready, Waiting, Done } state = Ready;
  int group = kBlockGroup; // what it waits for: the block, or warp n
  const void *site = nullptr; // the call in the kernel it waits at
  uint32_t value = 0, result = 0, shflB = 0, shflC = 0, shflMask = 0;
};

struct Launch {
  unsigned grid[3], block[3], ctaid[3];
  std::vector<Fiber> fibers;
  ucontext_t scheduler;
  Fiber *current = nullptr;
  bool trapped = false;
  void (*entry)(void **) = nullptr;
  void **params = nullptr;
};

std::mutex launchMutex;
Launch *active = nullptr;

void wait(int group, const void *site) {
  Fiber *f = active->current;
  f->state = Fiber::Waiting;
  f->group = group;
  f->site = site;
  swapcontext(&f->context, &active->scheduler);
}

void fiberMain() {
  active->entry(active->params);
  active->current->state = Fiber::Done; // uc_link returns to the scheduler
}

//===--- The NVVM intrinsics, by the name after "llvm.nvvm." -------------===//

int32_t tidX() { return int32_t(active->current->tid[0]); }
int32_t tidY() { return int32_t(active->current->tid[1]); }
int32_t tidZ() { return int32_t(active->current->tid[2]); }
int32_t ntidX() { return int32_t(active->block[0]); }
int32_t ntidY() { return int32_t(active->block[1]); }
int32_t ntidZ() { return int32_t(active->block[2]); }
int32_t ctaidX() { return int32_t(active->ctaid[0]); }
int32_t ctaidY() { return int32_t(active->ctaid[1]); }
int32_t ctaidZ() { return int32_t(active->ctaid[2]); }
int32_t nctaidX() { return int32_t(active->grid[0]); }
int32_t nctaidY() { return int32_t(active->grid[1]); }
int32_t nctaidZ() { return int32_t(active->grid[2]); }
int32_t laneId() { return int32_t(active->current->linear % 32); }
int32_t warpSize() { return 32; }
// Also takes the barrier number. The caller's address tells barriers apart:
// threads of a block must all wait at the same one (bar.sync.aligned).
__attribute__((noinline)) void barrier() {
  wait(kBlockGroup, __builtin_return_address(0));
}

/// PTX shfl.bfly: the source lane and whether it is in range (c packs the
/// segment mask in bits 8-12 and the clamp in bits 0-4).
bool bflySource(unsigned lane, uint32_t b, uint32_t c, unsigned &src) {
  unsigned segmask = (c >> 8) & 31, maxLane = (lane & segmask) | (c & 31 & ~segmask);
  src = lane ^ (b & 31);
  return src <= maxLane;
}
int32_t shflI32(int32_t mask, int32_t v, int32_t b, int32_t c) {
  Fiber *f = active->current;
  f->shflMask = uint32_t(mask);
  f->value = uint32_t(v);
  f->shflB = uint32_t(b);
  f->shflC = uint32_t(c);
  wait(int(f->linear / 32), nullptr);
  return int32_t(f->result);
}
float shflF32(int32_t mask, float v, int32_t b, int32_t c) {
  int32_t bits;
  std::memcpy(&bits, &v, 4);
  bits = shflI32(mask, bits, b, c);
  std::memcpy(&v, &bits, 4);
  return v;
}
bool shflValid(int32_t b, int32_t c) {
  unsigned src;
  unsigned lane = active->current->linear % 32;
  unsigned count = active->block[0] * active->block[1] * active->block[2];
  return bflySource(lane, uint32_t(b), uint32_t(c), src) &&
         active->current->linear - lane + src < count;
}

void trap() {
  active->trapped = true;
  active->current->state = Fiber::Done;
  setcontext(&active->scheduler);
}

float sqrtF(float x) { return std::sqrt(x); }
double sqrtD(double x) { return std::sqrt(x); }
float fabsF(float x) { return std::fabs(x); }
double fabsD(double x) { return std::fabs(x); }
float mulF(float a, float b) { return a * b; }
float addF(float a, float b) { return a + b; }
float divF(float a, float b) { return a / b; }
double mulD(double a, double b) { return a * b; }
double addD(double a, double b) { return a + b; }
double divD(double a, double b) { return a / b; }
/// The high and low 32-bit halves of a double, and the reverse.
int32_t d2iHi(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  return int32_t(bits >> 32);
}
int32_t d2iLo(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  return int32_t(uint32_t(bits));
}
double lohiI2d(int32_t lo, int32_t hi) {
  uint64_t bits = (uint64_t(uint32_t(hi)) << 32) | uint32_t(lo);
  double x;
  std::memcpy(&x, &bits, 8);
  return x;
}
float rcpF(float a) { return 1.0f / a; }
double rcpD(double a) { return 1.0 / a; }
float fmaF(float a, float b, float c) { return std::fma(a, b, c); }
double fmaD(double a, double b, double c) { return std::fma(a, b, c); }
/// fma.rz, .rm and .rp round toward zero, down and up: libdevice's fmodf
/// uses fma.rz, and rounded to nearest it gave wrong f32 `%` for quotients
/// above 2^23 (1e9 % 3.7 was 0.787, not 2.913).
template <typename F, int Mode> F fmaDirected(F a, F b, F c) {
#pragma STDC FENV_ACCESS ON
  int old = std::fegetround();
  std::fesetround(Mode);
  F r = std::fma(a, b, c);
  std::fesetround(old);
  return r;
}
float saturateF(float x) { return x < 0 ? 0.0f : x > 1 ? 1.0f : x; }
double saturateD(double x) { return x < 0 ? 0.0 : x > 1 ? 1.0 : x; }
/// cvt.rni.s32: round to nearest even, saturating, NaN to 0 (as the GPU;
/// a plain C conversion of an out-of-range value is undefined).
template <typename F> int32_t toI32Rn(F x) {
  if (std::isnan(x))
    return 0;
  F r = std::nearbyint(x);
  if (r <= F(INT32_MIN))
    return INT32_MIN;
  if (r >= F(INT32_MAX))
    return INT32_MAX;
  return int32_t(r);
}
int32_t f2iRn(float x) { return toI32Rn(x); }
int32_t d2iRn(double x) { return toI32Rn(x); }
float ex2F(float x) { return std::exp2(x); }
double ex2D(double x) { return std::exp2(x); }
float lg2F(float x) { return std::log2(x); }
double lg2D(double x) { return std::log2(x); }
float sinF(float x) { return std::sin(x); }
float cosF(float x) { return std::cos(x); }
float roundF(float x) { return std::round(x); }
double roundD(double x) { return std::round(x); }
float truncF(float x) { return std::trunc(x); }
double truncD(double x) { return std::trunc(x); }
float floorF(float x) { return std::floor(x); }
double floorD(double x) { return std::floor(x); }
float ceilF(float x) { return std::ceil(x); }
double ceilD(double x) { return std::ceil(x); }
/// cvt.rn.bf16.f32, which LLVM compiles for the host as a call of
/// compiler-rt's __truncsfbf2 (not in this process): round to nearest even,
/// NaN made quiet. `__bf16` so that the value comes back in xmm0, as the
/// caller expects.
__bf16 truncSfBf2(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = std::isnan(x) ? bits | 0x400000u : bits + 0x7fffu + ((bits >> 16) & 1u);
  uint16_t high = uint16_t(bits >> 16);
  __bf16 r;
  std::memcpy(&r, &high, 2);
  return r;
}
float fminF(float a, float b) { return std::fmin(a, b); }
double fminD(double a, double b) { return std::fmin(a, b); }
float fmaxF(float a, float b) { return std::fmax(a, b); }
double fmaxD(double a, double b) { return std::fmax(a, b); }
int32_t reflect(const void *) { return 0; }

/// Host functions for the intrinsics, by name without "llvm.nvvm.".
const std::map<std::string, void *> &intrinsics() {
  static const std::map<std::string, void *> table = [] {
    std::map<std::string, void *> t;
    auto add = [&](std::initializer_list<const char *> names, void *fn) {
      for (const char *n : names)
        t[n] = fn;
    };
    add({"read.ptx.sreg.tid.x"}, (void *)tidX);
    add({"read.ptx.sreg.tid.y"}, (void *)tidY);
    add({"read.ptx.sreg.tid.z"}, (void *)tidZ);
    add({"read.ptx.sreg.ntid.x"}, (void *)ntidX);
    add({"read.ptx.sreg.ntid.y"}, (void *)ntidY);
    add({"read.ptx.sreg.ntid.z"}, (void *)ntidZ);
    add({"read.ptx.sreg.ctaid.x"}, (void *)ctaidX);
    add({"read.ptx.sreg.ctaid.y"}, (void *)ctaidY);
    add({"read.ptx.sreg.ctaid.z"}, (void *)ctaidZ);
    add({"read.ptx.sreg.nctaid.x"}, (void *)nctaidX);
    add({"read.ptx.sreg.nctaid.y"}, (void *)nctaidY);
    add({"read.ptx.sreg.nctaid.z"}, (void *)nctaidZ);
    add({"read.ptx.sreg.laneid"}, (void *)laneId);
    add({"read.ptx.sreg.warpsize"}, (void *)warpSize);
    add({"barrier0", "barrier.cta.sync.aligned.all", "barrier.cta.sync.all",
         "barrier.sync", "bar.sync"},
        (void *)barrier);
    add({"shfl.sync.bfly.i32"}, (void *)shflI32);
    add({"shfl.sync.bfly.f32"}, (void *)shflF32);
    add({"sqrt.approx.f", "sqrt.approx.ftz.f", "sqrt.rn.f", "sqrt.f"}, (void *)sqrtF);
    add({"sqrt.rn.d"}, (void *)sqrtD);
    add({"fabs.f32", "fabs.f", "fabs.ftz.f"}, (void *)fabsF);
    add({"fabs.f64", "fabs.d"}, (void *)fabsD);
    add({"mul.rn.f", "mul.rn.ftz.f"}, (void *)mulF);
    add({"add.rn.f", "add.rn.ftz.f"}, (void *)addF);
    add({"div.rn.f", "div.approx.f", "div.full", "div.approx.ftz.f"}, (void *)divF);
    add({"mul.rn.d"}, (void *)mulD);
    add({"add.rn.d"}, (void *)addD);
    add({"div.rn.d"}, (void *)divD);
    add({"d2i.hi"}, (void *)d2iHi);
    add({"d2i.lo"}, (void *)d2iLo);
    add({"lohi.i2d"}, (void *)lohiI2d);
    add({"rcp.rn.f", "rcp.approx.ftz.f"}, (void *)rcpF);
    add({"rcp.rn.d", "rcp.approx.ftz.d"}, (void *)rcpD);
    add({"fma.rn.f", "fma.rn.ftz.f"}, (void *)fmaF);
    add({"fma.rn.d"}, (void *)fmaD);
    add({"fma.rz.f", "fma.rz.ftz.f"}, (void *)fmaDirected<float, FE_TOWARDZERO>);
    add({"fma.rm.f", "fma.rm.ftz.f"}, (void *)fmaDirected<float, FE_DOWNWARD>);
    add({"fma.rp.f", "fma.rp.ftz.f"}, (void *)fmaDirected<float, FE_UPWARD>);
    add({"fma.rz.d"}, (void *)fmaDirected<double, FE_TOWARDZERO>);
    add({"fma.rm.d"}, (void *)fmaDirected<double, FE_DOWNWARD>);
    add({"fma.rp.d"}, (void *)fmaDirected<double, FE_UPWARD>);
    add({"saturate.f", "saturate.ftz.f"}, (void *)saturateF);
    add({"saturate.d"}, (void *)saturateD);
    add({"f2i.rn"}, (void *)f2iRn);
    add({"d2i.rn"}, (void *)d2iRn);
    add({"ex2.approx.ftz.f32", "ex2.approx.f32", "ex2.approx.f", "ex2.approx.ftz.f"},
        (void *)ex2F);
    add({"ex2.approx.d"}, (void *)ex2D);
    add({"lg2.approx.f", "lg2.approx.ftz.f"}, (void *)lg2F);
    add({"lg2.approx.d"}, (void *)lg2D);
    add({"sin.approx.f", "sin.approx.ftz.f"}, (void *)sinF);
    add({"cos.approx.f", "cos.approx.ftz.f"}, (void *)cosF);
    add({"round.f", "round.ftz.f"}, (void *)roundF);
    add({"round.d"}, (void *)roundD);
    add({"trunc.f", "trunc.ftz.f"}, (void *)truncF);
    add({"trunc.d"}, (void *)truncD);
    add({"floor.f", "floor.ftz.f"}, (void *)floorF);
    add({"floor.d"}, (void *)floorD);
    add({"ceil.f", "ceil.ftz.f"}, (void *)ceilF);
    add({"ceil.d"}, (void *)ceilD);
    add({"fmin.f", "fmin.ftz.f"}, (void *)fminF);
    add({"fmin.d"}, (void *)fminD);
    add({"fmax.f", "fmax.ftz.f"}, (void *)fmaxF);
    add({"fmax.d"}, (void *)fmaxD);
    return t;
  }();
  return table;
}

//===--- Loading ---------------------------------------------------------===//

struct EmuModule;
struct Kernel {
  void (*entry)(void **);
  EmuModule *module;
};

struct EmuModule {
  std::unique_ptr<orc::LLJIT> jit;
  std::map<std::string, Kernel> kernels;
  /// Shared memory (addrspace 3 globals): poisoned before each block, so a
  /// read before the block's own write shows.
  std::vector<std::pair<char *, size_t>> shared;
};

/// libdevice's inline PTX for wide integer arithmetic in its trigonometric
/// argument reduction, on W-bit words (32 or 64), with 2W-bit results
/// returned as {low, high}: a * b (2 operands), a * b + c (3), and the
/// 2W-bit sum or difference of (low, high) pairs (4). Replaces the call and
/// returns true when `text` is one of these.
bool emulateWideArithmetic(CallInst *call, StringRef text) {
  unsigned n = call->arg_size();
  bool mul = n == 2 && text.contains("mul.lo.u32") && text.contains("mul.hi.u32");
  bool mad = n == 3 && text.contains("mad.lo.cc.u32") && text.contains("madc.hi");
  bool add = n == 4 && text.contains("add.cc.u32") && text.contains("addc");
  bool sub = n == 4 && text.contains("sub.cc.u32") && text.contains("subc");
  if (!(mul || mad || add || sub))
    return false;
  IRBuilder<> b(call);
  auto *word = cast<IntegerType>(call->getArgOperand(0)->getType());
  unsigned w = word->getBitWidth();
  Type *wide = b.getIntNTy(2 * w);
  auto arg = [&](unsigned i) { return b.CreateZExt(call->getArgOperand(i), wide); };
  auto pair = [&](unsigned lo) { return b.CreateOr(arg(lo), b.CreateShl(arg(lo + 1), w)); };
  Value *full = mul   ? b.CreateMul(arg(0), arg(1))
                : mad ? b.CreateAdd(b.CreateMul(arg(0), arg(1)), arg(2))
                : add ? b.CreateAdd(pair(0), pair(2))
                      : b.CreateSub(pair(0), pair(2));
  Value *r = PoisonValue::get(call->getType());
  r = b.CreateInsertValue(r, b.CreateTrunc(full, word), 0);
  r = b.CreateInsertValue(r, b.CreateTrunc(b.CreateLShr(full, w), word), 1);
  call->replaceAllUsesWith(r);
  call->eraseFromParent();
  return true;
}

/// Rewrites `m` for the host: intrinsics become calls to emulator
/// functions, kernels get a trampoline `tdsl_emu.launch.<name>(void **)`
/// that unpacks cuLaunchKernel's parameters. Returns the symbols to define.
Expected<orc::SymbolMap> prepare(Module &m, orc::LLJIT &jit,
                                 std::vector<std::string> &kernels,
                                 std::vector<std::pair<std::string, size_t>> &shared) {
  LLVMContext &ctx = m.getContext();
  orc::SymbolMap symbols;
  auto define = [&](StringRef name, void *fn) {
    symbols[jit.mangleAndIntern(name)] = {orc::ExecutorAddr::fromPtr(fn),
                                          JITSymbolFlags::Exported};
  };
  // Called by the host code that LLVM generates for f32 -> bf16.
  define("__truncsfbf2", (void *)truncSfBf2);
  for (Function &f : llvm::make_early_inc_range(m)) {
    if (f.getCallingConv() == CallingConv::PTX_Kernel) {
      kernels.push_back(f.getName().str());
      f.setCallingConv(CallingConv::C);
    }
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    if (!f.isDeclaration())
      continue;
    StringRef name = f.getName();
    if (name == "__nvvm_reflect") {
      define(name, (void *)reflect);
      continue;
    }
    if (name == "llvm.trap") {
      Function *host = Function::Create(f.getFunctionType(), GlobalValue::ExternalLinkage,
                                        "tdsl_emu.trap", m);
      f.replaceAllUsesWith(host);
      f.eraseFromParent();
      define("tdsl_emu.trap", (void *)trap);
      continue;
    }
    // CUDA's device-side heap.
    if (name == "malloc" || name == "free") {
      define(name, name == "malloc" ? (void *)std::malloc : (void *)std::free);
      continue;
    }
    if (!name.starts_with("llvm.nvvm.")) {
      // LLVM's own intrinsics compile for the host. Anything else is a host
      // function that would link here (from the process) but that a GPU
      // could never load: the module is rejected as the driver would.
      if (f.isIntrinsic() || name.starts_with("tdsl_emu."))
        continue;
      return make_error<StringError>("unresolved extern function '" + name.str() +
                                         "' (a GPU provides no such function)",
                                     inconvertibleErrorCode());
    }
    std::string key = name.drop_front(strlen("llvm.nvvm.")).str();
    // shfl.*p returns {value, in range}: a value call and a predicate call.
    if (StringRef(key).starts_with("shfl.sync.bfly.") && StringRef(key).ends_with("p")) {
      std::string valueKey = key.substr(0, key.size() - 1);
      auto *sty = cast<StructType>(f.getReturnType());
      Type *vt = sty->getElementType(0);
      FunctionType *valueType = FunctionType::get(vt, {Type::getInt32Ty(ctx), vt,
                                                       Type::getInt32Ty(ctx),
                                                       Type::getInt32Ty(ctx)}, false);
      FunctionCallee value = m.getOrInsertFunction("tdsl_emu." + valueKey, valueType);
      FunctionCallee valid = m.getOrInsertFunction(
          "tdsl_emu.shfl.valid",
          FunctionType::get(Type::getInt1Ty(ctx),
                            {Type::getInt32Ty(ctx), Type::getInt32Ty(ctx)}, false));
      auto it = intrinsics().find(valueKey);
      if (it == intrinsics().end())
        return make_error<StringError>("no emulation of llvm.nvvm." + key,
                                       inconvertibleErrorCode());
      define("tdsl_emu." + valueKey, it->second);
      define("tdsl_emu.shfl.valid", (void *)shflValid);
      for (User *u : llvm::make_early_inc_range(f.users())) {
        auto *call = cast<CallInst>(u);
        IRBuilder<> b(call);
        Value *v = b.CreateCall(value, {call->getArgOperand(0), call->getArgOperand(1),
                                        call->getArgOperand(2), call->getArgOperand(3)});
        Value *p = b.CreateCall(valid, {call->getArgOperand(2), call->getArgOperand(3)});
        Value *s = b.CreateInsertValue(PoisonValue::get(sty), v, 0);
        s = b.CreateInsertValue(s, p, 1);
        call->replaceAllUsesWith(s);
        call->eraseFromParent();
      }
      f.eraseFromParent();
      continue;
    }
    auto it = intrinsics().find(key);
    if (it == intrinsics().end())
      return make_error<StringError>("no emulation of " + name.str(),
                                     inconvertibleErrorCode());
    Function *host = Function::Create(f.getFunctionType(), GlobalValue::ExternalLinkage,
                                      "tdsl_emu." + key, m);
    f.replaceAllUsesWith(host);
    f.eraseFromParent();
    define("tdsl_emu." + key, it->second);
  }
  // libdevice's inline PTX: reciprocals, and the wide integer arithmetic of
  // its trigonometric argument reduction.
  for (Function &f : m)
    for (Instruction &inst : llvm::make_early_inc_range(instructions(f))) {
      auto *call = dyn_cast<CallInst>(&inst);
      auto *asmCode = call ? dyn_cast<InlineAsm>(call->getCalledOperand()) : nullptr;
      if (!asmCode)
        continue;
      StringRef text = asmCode->getAsmString();
      IRBuilder<> b(call);
      // A reciprocal: 1 / x (the approximation's result, exactly).
      if (text.trim().starts_with("rcp.approx") && call->arg_size() == 1) {
        Value *x = call->getArgOperand(0);
        call->replaceAllUsesWith(b.CreateFDiv(ConstantFP::get(x->getType(), 1.0), x));
        call->eraseFromParent();
        continue;
      }
      if (!emulateWideArithmetic(call, text))
        return make_error<StringError>("no emulation of inline PTX: " + text.str(),
                                       inconvertibleErrorCode());
    }
  // Shared memory: the static limit of a block is 48 KiB.
  size_t sharedBytes = 0;
  for (GlobalVariable &g : m.globals())
    if (g.getAddressSpace() == 3) {
      size_t bytes = m.getDataLayout().getTypeAllocSize(g.getValueType());
      sharedBytes += bytes;
      g.setLinkage(GlobalValue::ExternalLinkage); // to find it after linking
      if (!g.hasInitializer() || isa<UndefValue>(g.getInitializer()))
        g.setInitializer(Constant::getNullValue(g.getValueType()));
      shared.push_back({g.getName().str(), bytes});
    }
  if (sharedBytes > 48 * 1024)
    return make_error<StringError>(
        "the kernels use " + std::to_string(sharedBytes) +
            " bytes of static shared memory, over the 48 KiB limit",
        inconvertibleErrorCode());
  // Trampolines: cuLaunchKernel passes a pointer to each argument.
  for (const std::string &name : kernels) {
    Function *k = m.getFunction(name);
    auto *ptr = PointerType::get(ctx, 0);
    Function *t = Function::Create(FunctionType::get(Type::getVoidTy(ctx), {ptr}, false),
                                   GlobalValue::ExternalLinkage,
                                   "tdsl_emu.launch." + name, m);
    IRBuilder<> b(BasicBlock::Create(ctx, "entry", t));
    SmallVector<Value *> args;
    for (auto [i, arg] : llvm::enumerate(k->args())) {
      Value *slot = b.CreateConstGEP1_64(ptr, t->getArg(0), i);
      args.push_back(b.CreateLoad(arg.getType(), b.CreateLoad(ptr, slot)));
    }
    b.CreateCall(k, args);
    b.CreateRetVoid();
  }
  m.setTargetTriple(jit.getTargetTriple());
  m.setDataLayout(jit.getDataLayout());
  return symbols;
}

} // namespace

bool tdsl::emu::isBitcode(const void *image) {
  static const unsigned char wrapper[4] = {0xDE, 0xC0, 0x17, 0x0B};
  return std::memcmp(image, wrapper, 4) == 0;
}

void *tdsl::emu::loadModule(const void *image, std::string &error) {
  static std::once_flag init;
  std::call_once(init, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
  // Wrapper header: magic, version, offset, size, cputype (32-bit words).
  uint32_t header[5];
  std::memcpy(header, image, sizeof header);
  StringRef bytes(static_cast<const char *>(image), header[2] + header[3]);
  auto ctx = std::make_unique<LLVMContext>();
  Expected<std::unique_ptr<Module>> m =
      parseBitcodeFile(MemoryBufferRef(bytes, "kernels"), *ctx);
  if (!m) {
    error = "reading the kernels' bitcode: " + toString(m.takeError());
    return nullptr;
  }
  auto jit = orc::LLJITBuilder().create();
  if (!jit) {
    error = toString(jit.takeError());
    return nullptr;
  }
  std::vector<std::string> kernels;
  std::vector<std::pair<std::string, size_t>> shared;
  Expected<orc::SymbolMap> symbols = prepare(**m, **jit, kernels, shared);
  if (!symbols) {
    error = toString(symbols.takeError());
    return nullptr;
  }
  if (Error e = (*jit)->getMainJITDylib().define(orc::absoluteSymbols(*symbols))) {
    error = toString(std::move(e));
    return nullptr;
  }
  if (Error e = (*jit)->addIRModule(
          orc::ThreadSafeModule(std::move(*m), std::move(ctx)))) {
    error = toString(std::move(e));
    return nullptr;
  }
  // The symbol names belong to the JIT's string pool: drop them before a
  // failure below deletes the JIT with its pool.
  symbols->clear();
  auto *module = new EmuModule{std::move(*jit), {}};
  for (const std::string &name : kernels) {
    auto addr = module->jit->lookup("tdsl_emu.launch." + name);
    if (!addr) {
      error = toString(addr.takeError());
      delete module;
      return nullptr;
    }
    module->kernels[name] = {addr->toPtr<void (*)(void **)>(), module};
  }
  for (auto &[name, bytes] : shared) {
    auto addr = module->jit->lookup(name);
    if (!addr) {
      error = toString(addr.takeError());
      delete module;
      return nullptr;
    }
    module->shared.push_back({addr->toPtr<char *>(), bytes});
  }
  return module;
}

void tdsl::emu::unloadModule(void *module) {
  delete static_cast<EmuModule *>(module);
}

void *tdsl::emu::getKernel(void *module, const char *name) {
  auto &kernels = static_cast<EmuModule *>(module)->kernels;
  auto it = kernels.find(name);
  return it == kernels.end() ? nullptr : &it->second;
}

bool tdsl::emu::launch(void *kernel, const unsigned grid[3], const unsigned block[3],
                       void **params, std::string &error) {
  std::lock_guard<std::mutex> lock(launchMutex);
  // CUDA's limits, which the driver enforces.
  uint64_t count64 = uint64_t(block[0]) * block[1] * block[2];
  if (!grid[0] || !grid[1] || !grid[2] || grid[0] > 0x7fffffffu ||
      grid[1] > 65535 || grid[2] > 65535 || !count64 || count64 > 1024 ||
      block[2] > 64) {
    error = "invalid launch: grid " + std::to_string(grid[0]) + "x" +
            std::to_string(grid[1]) + "x" + std::to_string(grid[2]) + ", block " +
            std::to_string(block[0]) + "x" + std::to_string(block[1]) + "x" +
            std::to_string(block[2]);
    return false;
  }
  auto *k = static_cast<Kernel *>(kernel);
  Launch l;
  std::memcpy(l.grid, grid, sizeof l.grid);
  std::memcpy(l.block, block, sizeof l.block);
  l.entry = k->entry;
  l.params = params;
  unsigned count = unsigned(count64);
  l.fibers.resize(count);
  for (Fiber &f : l.fibers)
    f.stack.reset(new char[kStackBytes]);
  active = &l;
  auto fail = [&](const std::string &what) {
    error = what + " in block (" + std::to_string(l.ctaid[0]) + ", " +
            std::to_string(l.ctaid[1]) + ", " + std::to_string(l.ctaid[2]) + ")";
    active = nullptr;
    return false;
  };
  for (l.ctaid[2] = 0; l.ctaid[2] < grid[2]; ++l.ctaid[2])
    for (l.ctaid[1] = 0; l.ctaid[1] < grid[1]; ++l.ctaid[1])
      for (l.ctaid[0] = 0; l.ctaid[0] < grid[0]; ++l.ctaid[0]) {
        for (auto [bytes, size] : k->module->shared)
          std::memset(bytes, 0xff, size); // NaN, -1: stale data shows
        // Threads run in turn, in ascending order in even blocks and
        // descending in odd ones: a race within a block shows either way.
        bool descending = (l.ctaid[0] + l.ctaid[1] + l.ctaid[2]) % 2;
        for (unsigned i = 0; i < count; ++i) {
          Fiber &f = l.fibers[i];
          f.linear = i;
          f.tid[0] = i % block[0];
          f.tid[1] = i / block[0] % block[1];
          f.tid[2] = i / (block[0] * block[1]);
          f.state = Fiber::Ready;
          getcontext(&f.context);
          f.context.uc_stack.ss_sp = f.stack.get();
          f.context.uc_stack.ss_size = kStackBytes;
          f.context.uc_link = &l.scheduler;
          makecontext(&f.context, fiberMain, 0);
        }
        while (true) {
          for (unsigned n = 0; n < count; ++n) {
            Fiber &f = l.fibers[descending ? count - 1 - n : n];
            if (f.state != Fiber::Ready)
              continue;
            l.current = &f;
            swapcontext(&l.scheduler, &f.context);
          }
          if (l.trapped)
            return fail("a thread trapped (a run-time check failed)");
          unsigned done = 0, atBarrier = 0;
          for (Fiber &f : l.fibers) {
            done += f.state == Fiber::Done;
            atBarrier += f.state == Fiber::Waiting && f.group == kBlockGroup &&
                         f.site == l.fibers[0].site;
          }
          if (done == count)
            break;
          bool released = false;
          // A shuffle releases when the lanes of its member mask all wait
          // at one; they exchange values.
          for (unsigned base = 0; base < count; base += 32) {
            unsigned end = std::min(count, base + 32);
            auto waiting = [&](unsigned i) {
              return l.fibers[i].state == Fiber::Waiting &&
                     l.fibers[i].group == int(base / 32);
            };
            uint32_t mask = 0;
            for (unsigned i = base; i < end && !mask; ++i)
              if (waiting(i))
                mask = l.fibers[i].shflMask;
            bool all = mask != 0;
            for (unsigned i = base; i < end; ++i)
              if (mask >> (i - base) & 1)
                all &= waiting(i) && l.fibers[i].shflMask == mask;
            if (!all)
              continue;
            for (unsigned i = base; i < end; ++i) {
              if (!(mask >> (i - base) & 1))
                continue;
              Fiber &f = l.fibers[i];
              unsigned src;
              bool ok = bflySource(i - base, f.shflB, f.shflC, src) &&
                        base + src < end && (mask >> src & 1);
              f.result = ok ? l.fibers[base + src].value : f.value;
            }
            for (unsigned i = base; i < end; ++i)
              if (mask >> (i - base) & 1)
                l.fibers[i].state = Fiber::Ready;
            released = true;
          }
          if (!released && atBarrier == count) {
            for (Fiber &f : l.fibers)
              f.state = Fiber::Ready;
            released = true;
          }
          if (!released)
            return fail(done ? "threads exited while others wait at a barrier"
                             : "threads wait at different barriers or shuffles "
                               "(a barrier in divergent code)");
        }
      }
  active = nullptr;
  return true;
}
