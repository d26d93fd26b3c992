//===- Compare.cpp - tdslc run --compare: the CPU and CUDA side by side -----===//
//
// Each side is `tdslc run` in a child process, with $TDSL_SAVE_DIR naming a
// folder of its own: the runtime saves there (and loads from there first),
// so the two runs' files never overwrite each other and can be compared.
//
//===----------------------------------------------------------------------===//
#include "tools/tdslc/Compare.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

extern char **environ;

using namespace tdsl;

namespace {

struct RunResult {
  int rc = -1;
  std::string out, err;
  /// Kernel time per DSL location (ms), and copies per location.
  std::map<std::string, double> kernelMs, copyMs;
  std::map<std::string, std::string> names;
  /// The folder the run saved into.
  std::string saveDir;
};

std::string readFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  return buf ? (*buf)->getBuffer().str() : "";
}

/// Kernel and copy times per DSL location from a --profile-json file.
void readProfile(llvm::StringRef json, RunResult &r) {
  auto parsed = llvm::json::parse(json);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return;
  }
  auto *obj = parsed->getAsObject();
  auto *kernels = obj ? obj->getArray("kernels") : nullptr;
  if (!kernels)
    return;
  for (auto &k : *kernels) {
    auto *ko = k.getAsObject();
    if (!ko)
      continue;
    std::string where = ko->getString("where").value_or("").str();
    double ms = ko->getNumber("total_ms").value_or(0);
    if (ko->getString("kind").value_or("kernel") == "kernel") {
      r.kernelMs[where] += ms;
      r.names[where] = ko->getString("name").value_or("").str();
    } else {
      r.copyMs[where] += ms;
    }
  }
}

/// Runs this tdslc on the input for one target in a child process that
/// saves into `saveDir`.
RunResult runTarget(const char *argv0, const CompareOptions &o,
                    llvm::StringRef tgt, const std::string &saveDir) {
  RunResult r;
  r.saveDir = saveDir;
  std::string self = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&readFile));
  llvm::SmallString<128> outPath, errPath, jsonPath;
  llvm::sys::fs::createTemporaryFile("tdslc-cmp", "out", outPath);
  llvm::sys::fs::createTemporaryFile("tdslc-cmp", "err", errPath);
  llvm::sys::fs::createTemporaryFile("tdslc-cmp", "json", jsonPath);
  std::vector<std::string> args = {self, "run", "--target=" + tgt.str(),
                                   "-O" + std::to_string(o.optLevel),
                                   "--profile-json=" + std::string(jsonPath),
                                   o.inputFile};
  if (o.threads > 0)
    args.push_back("--threads=" + std::to_string(o.threads));
  if (tgt == "cuda")
    args.push_back("--gpu-arch=" + o.gpuArch);
  if (tgt == "cuda" && o.gpuBitcode)
    args.push_back("--gpu-bitcode");
  for (const std::string &a : tgt == "cuda" ? o.gpuArgs : o.cpuArgs)
    args.push_back(a);
  for (const std::string &dir : o.includeDirs)
    args.push_back("-I" + dir);
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (!llvm::StringRef(*e).starts_with("TDSL_SAVE_DIR="))
      env.push_back(*e);
  env.push_back("TDSL_SAVE_DIR=" + saveDir);
  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  llvm::SmallVector<llvm::StringRef> envRefs(env.begin(), env.end());
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(outPath), llvm::StringRef(errPath)};
  r.rc = llvm::sys::ExecuteAndWait(self, argRefs, envRefs, redirects);
  r.out = readFile(outPath);
  r.err = readFile(errPath);
  readProfile(readFile(jsonPath), r);
  for (auto *p : {&outPath, &errPath, &jsonPath})
    llvm::sys::fs::remove(*p);
  return r;
}

/// How far apart two sides are: the count of numbers compared and the
/// largest relative difference, or the first disagreement.
struct Agreement {
  unsigned numbers = 0, words = 0;
  /// The largest relative difference of pairs that differ by more than
  /// atol (below it, values near 0 would show any ratio), and the largest
  /// absolute difference of all pairs.
  double worst = 0, worstAbs = 0;
  std::string disagreement;
  /// Compares one pair of numbers (rtol 1e-4, atol 1e-6; NaN equals NaN).
  bool number(double x, double y, const llvm::Twine &what) {
    ++numbers;
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) && std::isnan(y))
        return true;
    } else if (x == y) {
      return true;
    } else {
      double diff = std::fabs(x - y);
      if (diff <= 1e-6 + 1e-4 * std::max(std::fabs(x), std::fabs(y))) {
        worstAbs = std::max(worstAbs, diff);
        if (diff > 1e-6)
          worst = std::max(worst, diff / std::max(std::fabs(x), std::fabs(y)));
        return true;
      }
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << what << " differs: " << llvm::format("%.9g", x) << " (cpu) vs "
       << llvm::format("%.9g", y) << " (cuda)";
    disagreement = text;
    return false;
  }
};

/// Compares two outputs number by number and word by word otherwise.
bool compareOutputs(llvm::StringRef a, llvm::StringRef b, Agreement &agree) {
  // Items are the words and numbers, with tensor brackets and commas gone.
  auto split = [](std::string s) {
    for (char &c : s)
      if (c == '\n' || c == '[' || c == ']' || c == ',' || c == '\t')
        c = ' ';
    llvm::SmallVector<llvm::StringRef> parts;
    std::vector<std::string> out;
    llvm::StringRef(s).split(parts, ' ', -1, false);
    for (llvm::StringRef p : parts)
      out.push_back(p.str());
    return out;
  };
  auto wa = split(a.str()), wb = split(b.str());
  if (wa.size() != wb.size()) {
    agree.disagreement = llvm::formatv("the printed outputs have {0} and {1} items",
                                       wa.size(), wb.size());
    return false;
  }
  for (size_t i = 0; i < wa.size(); ++i) {
    double x, y;
    if (!llvm::StringRef(wa[i]).getAsDouble(x) &&
        !llvm::StringRef(wb[i]).getAsDouble(y)) {
      if (!agree.number(x, y, "printed item " + llvm::Twine(i + 1)))
        return false;
    } else if (wa[i] != wb[i]) {
      agree.disagreement = llvm::formatv(
          "printed item {0} differs: '{1}' (cpu) vs '{2}' (cuda)", i + 1, wa[i], wb[i]);
      return false;
    } else {
      ++agree.words;
    }
  }
  return true;
}

/// A .npy file as the runtime writes it: its descr, shape and data.
struct Npy {
  std::string descr;
  std::string shape;
  llvm::StringRef data;
};

std::optional<Npy> parseNpy(llvm::StringRef bytes) {
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return std::nullopt;
  bool v1 = bytes[6] == 1;
  size_t lenBytes = v1 ? 2 : 4, start = 8 + lenBytes;
  if (bytes.size() < start)
    return std::nullopt;
  size_t len = 0;
  for (size_t i = 0; i < lenBytes; ++i)
    len |= size_t((unsigned char)bytes[8 + i]) << (8 * i);
  if (bytes.size() < start + len)
    return std::nullopt;
  llvm::StringRef header = bytes.substr(start, len);
  auto field = [&](llvm::StringRef key, char open, char close) -> std::string {
    size_t at = header.find(key);
    if (at == llvm::StringRef::npos)
      return "";
    size_t from = header.find(open, at + key.size());
    size_t to = header.find(close, from + 1);
    return from == llvm::StringRef::npos || to == llvm::StringRef::npos
               ? ""
               : header.slice(from + 1, to).str();
  };
  Npy n;
  n.descr = field("'descr'", '\'', '\'');
  n.shape = field("'shape'", '(', ')');
  n.data = bytes.drop_front(start + len);
  return n;
}

/// The element at `i` as a double (every dtype the runtime saves).
std::optional<double> element(const Npy &n, size_t i) {
  auto at = [&](size_t size) { return n.data.data() + i * size; };
  auto read = [&](auto value) {
    std::memcpy(&value, at(sizeof value), sizeof value);
    return double(value);
  };
  if (n.descr == "<f4")
    return read(float());
  if (n.descr == "<f8")
    return read(double());
  if (n.descr == "<i4")
    return read(int32_t());
  if (n.descr == "<i8")
    return read(int64_t());
  if (n.descr == "<u8")
    return read(uint64_t());
  if (n.descr == "|b1")
    return read(uint8_t());
  if (n.descr == "<f2") {
    uint16_t bits;
    std::memcpy(&bits, at(2), 2);
    llvm::APFloat half(llvm::APFloat::IEEEhalf(), llvm::APInt(16, bits));
    return half.convertToFloat();
  }
  return std::nullopt;
}

size_t elementSize(llvm::StringRef descr) {
  return descr.empty() ? 0 : std::max(1, std::atoi(descr.drop_front(2).str().c_str()));
}

/// Every file under `dir`, by its path relative to `dir`.
std::vector<std::string> listFiles(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator it(dir, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()))
      files.push_back(it->path().substr(dir.size() + 1));
  std::sort(files.begin(), files.end());
  return files;
}

/// Compares the files the two runs saved: the same names, dtypes, shapes
/// and values.
bool compareSaved(const RunResult &cpu, const RunResult &gpu, Agreement &agree,
                  unsigned &files) {
  std::vector<std::string> a = listFiles(cpu.saveDir), b = listFiles(gpu.saveDir);
  if (a != b) {
    agree.disagreement = llvm::formatv("the runs saved different files: {0} "
                                       "(cpu) and {1} (cuda)",
                                       a.size(), b.size());
    return false;
  }
  files = a.size();
  for (const std::string &rel : a) {
    std::string name = rel.substr(rel.find('/') + 1); // drop "rel/", "abs"
    std::string ca = readFile(cpu.saveDir + "/" + rel);
    std::string cb = readFile(gpu.saveDir + "/" + rel);
    auto na = parseNpy(ca), nb = parseNpy(cb);
    if (!na || !nb) {
      if (ca != cb) {
        agree.disagreement = "'" + name + "' differs";
        return false;
      }
      continue;
    }
    if (na->descr != nb->descr || na->shape != nb->shape) {
      agree.disagreement = llvm::formatv(
          "'{0}' has dtype {1}, shape ({2}) (cpu) but {3}, ({4}) (cuda)", name,
          na->descr, na->shape, nb->descr, nb->shape);
      return false;
    }
    size_t size = elementSize(na->descr), count = size ? na->data.size() / size : 0;
    // Integers and booleans compare exactly (as doubles, large ones could
    // not), floats within the tolerance.
    bool exact = na->descr[1] == 'i' || na->descr[1] == 'u' || na->descr[1] == 'b';
    for (size_t i = 0; i < count; ++i) {
      auto x = element(*na, i), y = element(*nb, i);
      if (!x || !y) {
        agree.disagreement = "'" + name + "' has an unknown dtype " + na->descr;
        return false;
      }
      std::string what = "'" + name + "' element " + std::to_string(i);
      if (exact && na->data.substr(i * size, size) != nb->data.substr(i * size, size)) {
        agree.disagreement = what + " differs";
        return false;
      }
      if (!agree.number(*x, *y, what))
        return false;
    }
  }
  return true;
}

/// Moves the CPU run's saved files to where the program saved them.
void restoreSaved(const RunResult &run) {
  for (const std::string &rel : listFiles(run.saveDir)) {
    llvm::StringRef kind = llvm::StringRef(rel).take_while([](char c) { return c != '/'; });
    std::string dest = kind == "abs" ? rel.substr(3) : rel.substr(4);
    std::string from = run.saveDir + "/" + rel;
    if (auto parent = llvm::sys::path::parent_path(dest); !parent.empty())
      llvm::sys::fs::create_directories(parent);
    if (llvm::sys::fs::rename(from, dest) && llvm::sys::fs::copy_file(from, dest))
      llvm::WithColor::warning(llvm::errs(), "tdslc")
          << "cannot write '" << dest << "' (saved by the CPU run)\n";
  }
}

/// The kernels' times of the two runs, side by side.
void printTimes(const RunResult &cpu, const RunResult &gpu) {
  llvm::outs() << llvm::formatv("{0,-24} {1,-20} {2,10} {3,14} {4,18} {5,9}\n",
                                "kernel", "where", "cpu ms", "gpu kernel ms",
                                "gpu + copies ms", "speedup");
  for (auto &[where, cpuMs] : cpu.kernelMs) {
    std::string g = "", gc = "", sp = "";
    auto it = gpu.kernelMs.find(where);
    if (gpu.rc == 0 && it != gpu.kernelMs.end()) {
      auto copies = gpu.copyMs.find(where);
      double total = it->second + (copies == gpu.copyMs.end() ? 0 : copies->second);
      g = llvm::formatv("{0:F3}", it->second).str();
      gc = llvm::formatv("{0:F3}", total).str();
      sp = llvm::formatv("{0:F2}x", cpuMs / std::max(total, 1e-9)).str();
    } else if (gpu.rc == 0) {
      g = "(host)";
    }
    llvm::outs() << llvm::formatv("{0,-24} {1,-20} {2,10:F3} {3,14} {4,18} {5,9}\n",
                                  cpu.names.at(where), where, cpuMs, g, gc, sp);
  }
  llvm::outs() << "(gpu + copies: the kernel and the moves of its buffers to "
                  "the device before it and back to the host after it)\n";
}

} // namespace

int tdsl::runComparison(const char *argv0, const CompareOptions &o) {
  llvm::SmallString<128> root;
  if (llvm::sys::fs::createUniqueDirectory("tdslc-compare", root)) {
    llvm::WithColor::error(llvm::errs(), "tdslc")
        << "cannot create a temporary folder for --compare\n";
    return 1;
  }
  std::string rootDir(root);
  RunResult cpu = runTarget(argv0, o, "cpu", rootDir + "/cpu");
  // A run that exits with a status and says nothing on stderr returned it
  // from main (fn main() -> i32): both runs must return the same.
  bool mainStatus = cpu.rc > 0 && cpu.err.empty();
  if (cpu.rc != 0 && !mainStatus) {
    llvm::outs() << cpu.out;
    llvm::outs().flush();
    llvm::errs() << cpu.err;
    llvm::WithColor::error(llvm::errs(), "tdslc")
        << "the CPU run failed (exit status " << cpu.rc << ")\n";
    llvm::sys::fs::remove_directories(rootDir);
    return 1;
  }
  RunResult gpu = runTarget(argv0, o, "cuda", rootDir + "/cuda");
  llvm::outs() << cpu.out;
  llvm::outs() << "\n== compare " << o.inputFile << " (cpu vs cuda " << o.gpuArch
               << ")\n";
  bool ok = gpu.rc == cpu.rc;
  if (!ok) {
    llvm::outs() << "cuda: the run failed (exit status " << gpu.rc
                 << "); only the CPU side is shown:\n"
                 << gpu.err;
  } else {
    if (mainStatus)
      llvm::outs() << "both runs exited with status " << cpu.rc
                   << " (main's result)\n";
    Agreement agree;
    unsigned files = 0;
    unsigned printed = 0;
    ok = compareOutputs(cpu.out, gpu.out, agree) &&
         ((printed = agree.numbers), compareSaved(cpu, gpu, agree, files));
    if (!ok)
      llvm::outs() << "outputs DISAGREE: " << agree.disagreement << "\n";
    else if (agree.numbers == 0)
      llvm::outs() << "nothing to compare: the program prints no numbers and "
                      "saves no files"
                   << (agree.words ? " (its printed words agree)" : "") << "\n";
    else
      llvm::outs() << "outputs agree: " << printed << " printed numbers"
                   << (files ? llvm::formatv(" and {0} values in {1} saved files",
                                             agree.numbers - printed, files)
                                   .str()
                             : std::string())
                   << llvm::formatv(", largest relative difference {0:e2} "
                                    "(above atol), absolute {1:e2} (tolerance "
                                    "rtol 1e-4, atol 1e-6)\n",
                                    agree.worst, agree.worstAbs);
  }
  printTimes(cpu, gpu);
  llvm::outs().flush();
  restoreSaved(cpu);
  llvm::sys::fs::remove_directories(rootDir);
  return ok ? 0 : 1;
}
