//===- RuntimeCalls.cpp - Declarations of TDSL runtime entry points --------===//
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Path.h"

#include "tdsl/Runtime.h"

#include <mutex>
#include <type_traits>

using namespace mlir;

/// MLIR's stream handle, an opaque pointer (CUstream in the runtime).
using tdsl_cu_stream = struct tdsl_cu_stream_st *;

namespace {

template <typename Fn> struct ABISignature;

template <typename T> Type abiType(MLIRContext *ctx) {
  // A function pointer is a func.constant of the function's type (an
  // !llvm.ptr once lowered).
  if constexpr (std::is_pointer_v<T> &&
                std::is_function_v<std::remove_pointer_t<T>>)
    return ABISignature<std::remove_pointer_t<T>>::get(ctx);
  else if constexpr (std::is_pointer_v<T>)
    return LLVM::LLVMPointerType::get(ctx);
  else if constexpr (std::is_same_v<T, float>)
    return Float32Type::get(ctx);
  else if constexpr (std::is_same_v<T, double>)
    return Float64Type::get(ctx);
  else {
    static_assert(std::is_integral_v<T>, "no MLIR type for this C type");
    return IntegerType::get(ctx, 8 * sizeof(T));
  }
}

template <typename R, typename... A> struct ABISignature<R(A...)> {
  static FunctionType get(MLIRContext *ctx) {
    SmallVector<Type, 1> results;
    if constexpr (!std::is_void_v<R>)
      results.push_back(abiType<R>(ctx));
    return FunctionType::get(ctx, {abiType<A>(ctx)...}, results);
  }
};

} // namespace

namespace tdsl {

std::optional<DType> getDType(Type type) {
  if (type.isF16()) return DType::F16;
  if (type.isBF16()) return DType::BF16;
  if (type.isF32()) return DType::F32;
  if (type.isF64()) return DType::F64;
  if (type.isInteger(1)) return DType::I1;
  if (type.isSignlessInteger(32) || type.isSignedInteger(32)) return DType::I32;
  if (type.isSignlessInteger(64) || type.isSignedInteger(64)) return DType::I64;
  if (type.isUnsignedInteger(64)) return DType::U64;
  return std::nullopt;
}

llvm::StringRef getDTypeSuffix(DType d) {
  switch (d) {
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::I1: return "i1";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::U64: return "u64";
  }
  return "";
}

llvm::StringRef getRuntimeFnName(RuntimeFn fn) {
  switch (fn) {
#define TDSL_RUNTIME_FUNCTION(Name, Ret, Params)                               \
  case RuntimeFn::Name:                                                        \
    return #Name;
#define TDSL_MGPU_FUNCTION(Name, Ret, Params) TDSL_RUNTIME_FUNCTION(Name, Ret, Params)
#include "tdsl/RuntimeABI.def"
  }
  llvm_unreachable("unknown RuntimeFn");
}

FunctionType getRuntimeFnType(MLIRContext *ctx, RuntimeFn fn) {
  switch (fn) {
#define TDSL_RUNTIME_FUNCTION(Name, Ret, Params)                               \
  case RuntimeFn::Name:                                                        \
    return ABISignature<Ret Params>::get(ctx);
#define TDSL_MGPU_FUNCTION(Name, Ret, Params) TDSL_RUNTIME_FUNCTION(Name, Ret, Params)
#include "tdsl/RuntimeABI.def"
  }
  llvm_unreachable("unknown RuntimeFn");
}

RuntimeFn getPrintFn(DType d) {
  switch (d) {
  case DType::F16: return RuntimeFn::tdsl_print_f16;
  case DType::BF16: return RuntimeFn::tdsl_print_bf16;
  case DType::F32: return RuntimeFn::tdsl_print_f32;
  case DType::F64: return RuntimeFn::tdsl_print_f64;
  case DType::I1: return RuntimeFn::tdsl_print_i1;
  case DType::I32: return RuntimeFn::tdsl_print_i32;
  case DType::I64: return RuntimeFn::tdsl_print_i64;
  case DType::U64: return RuntimeFn::tdsl_print_u64;
  }
  llvm_unreachable("unknown DType");
}

func::FuncOp RuntimeCalls::getOrDeclare(OpBuilder &b, RuntimeFn fn) {
  StringRef name = getRuntimeFnName(fn);
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(b, module.getLoc(), name,
                                getRuntimeFnType(b.getContext(), fn));
  f.setPrivate();
  return f;
}

ValueRange RuntimeCalls::call(OpBuilder &b, Location loc, RuntimeFn fn,
                              ValueRange args) {
  func::FuncOp f = getOrDeclare(b, fn);
  if (!llvm::equal(f.getFunctionType().getInputs(), args.getTypes())) {
    std::string got;
    llvm::raw_string_ostream os(got);
    llvm::interleaveComma(args.getTypes(), os, [&](Type t) { t.print(os); });
    llvm::report_fatal_error(llvm::Twine("internal error: call of ") +
                             getRuntimeFnName(fn) + " with (" + got +
                             "), not its signature in tdsl/RuntimeABI.def");
  }
  return func::CallOp::create(b, loc, f, args).getResults();
}

Value RuntimeCalls::getString(OpBuilder &b, Location loc, StringRef s) {
  if (!indexed) { // reuse the strings earlier passes made
    indexed = true;
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (global.getSymName().starts_with("__tdsl_str_") && global.getValue())
        if (auto value = dyn_cast<StringAttr>(*global.getValue()))
          if (value.getValue().ends_with(StringRef("\0", 1)))
            strings.try_emplace(value.getValue().drop_back(), global.getSymName());
  }
  auto it = strings.find(s);
  std::string name;
  if (it != strings.end()) {
    name = it->second;
  } else {
    // Unique across passes that each intern their own strings.
    unsigned n = strings.size();
    do
      name = "__tdsl_str_" + std::to_string(n++);
    while (module.lookupSymbol(name));
    strings[s] = name;
    std::string withNul = s.str();
    withNul.push_back('\0');
    // Made at the module's start with a builder of its own: `b` may point
    // into a body that has no parent yet (a linalg.generic being built).
    OpBuilder mb(module.getContext());
    mb.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(mb.getI8Type(), withNul.size());
    LLVM::GlobalOp::create(mb, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Private, name,
                           mb.getStringAttr(withNul));
  }
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  return LLVM::AddressOfOp::create(b, loc, ptrType, name);
}

Value RuntimeCalls::getNull(OpBuilder &b, Location loc) {
  return LLVM::ZeroOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()));
}

Value RuntimeCalls::getWhere(OpBuilder &b, Location loc) {
  return getString(b, loc, whereOf(loc));
}

/// Depth-first over `loc` and the locations inside it: callees of call sites
/// come before callers, so an inlined op reports its own line.
static void walkLocations(Location loc, function_ref<bool(Location)> fn) {
  if (fn(loc))
    return;
  if (auto cs = dyn_cast<CallSiteLoc>(loc)) {
    walkLocations(cs.getCallee(), fn);
    return;
  }
  if (auto n = dyn_cast<NameLoc>(loc)) {
    walkLocations(n.getChildLoc(), fn);
    return;
  }
  if (auto f = dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      walkLocations(l, fn);
}

/// The first file position in `loc`, in the order of walkLocations.
static FileLineColLoc firstFileLoc(Location loc) {
  FileLineColLoc found;
  walkLocations(loc, [&](Location l) {
    if (!found)
      found = dyn_cast<FileLineColLoc>(l);
    return static_cast<bool>(found);
  });
  return found;
}

std::string RuntimeCalls::whereOf(Location loc) {
  FileLineColLoc fl = firstFileLoc(loc);
  if (!fl)
    return "<unknown>";
  return (llvm::sys::path::filename(fl.getFilename().getValue()) + ":" +
          llvm::Twine(fl.getLine()) + ":" + llvm::Twine(fl.getColumn()))
      .str();
}

/// The places of `loc`'s call stack after its own, innermost first: the
/// call sites it was inlined through, without the entry point's call of
/// main (MLIRGen names it "tdsl.entry_call").
static void callersOf(Location loc, SmallVectorImpl<FileLineColLoc> &out,
                      bool own = true) {
  if (auto cs = dyn_cast<CallSiteLoc>(loc)) {
    callersOf(cs.getCallee(), out, own);
    callersOf(cs.getCaller(), out, false);
    return;
  }
  if (auto n = dyn_cast<NameLoc>(loc)) {
    if (n.getName() != "tdsl.entry_call")
      callersOf(n.getChildLoc(), out, own);
    return;
  }
  if (auto f = dyn_cast<FusedLoc>(loc)) {
    if (!f.getLocations().empty())
      callersOf(f.getLocations().front(), out, own);
    return;
  }
  if (auto fl = dyn_cast<FileLineColLoc>(loc); fl && !own)
    out.push_back(fl);
}

bool RuntimeCalls::hasCallers(Location loc) {
  SmallVector<FileLineColLoc> callers;
  callersOf(loc, callers);
  return !callers.empty();
}

namespace {
/// Sources that are not files, by buffer name (registerSourceText).
struct RegisteredSources {
  std::mutex mutex;
  llvm::StringMap<std::string> texts;
};
RegisteredSources &registeredSources() {
  static RegisteredSources sources;
  return sources;
}
} // namespace

void tdsl::registerSourceText(StringRef name, StringRef text) {
  RegisteredSources &r = registeredSources();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.texts[name] = text.str();
}

/// The text of `file`: registered, or read from the file system; null when
/// neither has it.
static std::unique_ptr<llvm::MemoryBuffer> sourceOf(StringRef file) {
  {
    RegisteredSources &r = registeredSources();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.texts.find(file);
    if (it != r.texts.end())
      return llvm::MemoryBuffer::getMemBufferCopy(it->second, file);
  }
  auto buffer = llvm::MemoryBuffer::getFile(file);
  return buffer ? std::move(*buffer) : nullptr;
}

/// The line of `fl` and a caret under its column, each after a newline, or
/// "" when the file cannot be read now.
std::string RuntimeCalls::sourceLine(FileLineColLoc fl) {
  if (fl.getLine() == 0 || fl.getColumn() == 0)
    return "";
  StringRef file = fl.getFilename().getValue();
  auto it = sources.find(file);
  if (it == sources.end())
    it = sources.try_emplace(file, sourceOf(file)).first;
  if (!it->second)
    return "";
  // The line's text, then a caret under the column (tabs kept so it lines up).
  StringRef text = it->second->getBuffer();
  for (unsigned line = 1; line < fl.getLine() && !text.empty(); ++line)
    text = text.split('\n').second;
  StringRef lineText = text.split('\n').first.rtrim("\r");
  if (text.empty() || fl.getColumn() > lineText.size() + 1)
    return "";
  std::string caret;
  for (char c : lineText.take_front(fl.getColumn() - 1))
    caret.push_back(c == '\t' ? '\t' : ' ');
  caret.push_back('^');
  return "\n" + lineText.str() + "\n" + caret;
}

/// `fl` as an error names it: a relative path as the compiler was given it
/// (`sub/prog.tdsl`, as compile-time errors name it; it said `prog.tdsl`),
/// the file's name alone for an absolute one (the standard library's), then
/// line and column. The profile shows the same place for a kernel's copies.
static std::string errorPlaceOf(FileLineColLoc fl) {
  StringRef file = fl.getFilename().getValue();
  if (llvm::sys::path::is_absolute(file))
    file = llvm::sys::path::filename(file);
  return (file + ":" + llvm::Twine(fl.getLine()) + ":" + llvm::Twine(fl.getColumn())).str();
}

Value RuntimeCalls::getErrorWhere(OpBuilder &b, Location loc) {
  FileLineColLoc own = firstFileLoc(loc);
  std::string where = own ? errorPlaceOf(own) + sourceLine(own) : "<unknown>";
  // Then the calls it was inlined through, as the compiler's diagnostics
  // show them: an error inside nn.dense names the call that failed.
  SmallVector<FileLineColLoc> callers;
  callersOf(loc, callers);
  for (FileLineColLoc caller : callers)
    where += "\n" + errorPlaceOf(caller) + ": note: called from" + sourceLine(caller);
  return getString(b, loc, where);
}

std::string RuntimeCalls::kernelNameOf(Location loc) {
  std::string name;
  walkLocations(loc, [&](Location l) {
    auto n = dyn_cast<NameLoc>(l);
    if (!n || !name.empty())
      return !name.empty();
    name = n.getName().str();
    return true;
  });
  return name;
}

} // namespace tdsl
