//===- ValueStore.cpp - Where a tdsl-repl session keeps its values --------===//
#include "compiler/Repl/ValueStore.h"
#include "runtime/include/tdsl/DeviceKeeper.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tdsl;

namespace {

/// numpy descr -> TDSL element type (bf16 has no descr).
const std::pair<const char *, const char *> kDescrs[] = {
    {"<f2", "f16"}, {"<f4", "f32"}, {"<f8", "f64"}, {"|b1", "i1"},
    {"<i4", "i32"}, {"<i8", "i64"}, {"<u8", "u64"}};

int64_t elemBytes(llvm::StringRef descr) {
  int64_t n = 0;
  llvm::to_integer(descr.drop_front(2), n);
  return n;
}

/// The text after `key` and its colon in the header dictionary.
llvm::StringRef valueOf(llvm::StringRef header, llvm::StringRef key) {
  size_t p = header.find(key);
  if (p == llvm::StringRef::npos)
    return "";
  llvm::StringRef rest = header.drop_front(p + key.size()).ltrim();
  rest.consume_front(":");
  return rest.ltrim();
}

/// The stores of this process, for removeValueStores: an open descriptor
/// and the path of each, in fixed storage a signal handler may read.
struct StoreSlot {
  int fd = -1;
  char path[4096] = "";
};
StoreSlot storeSlots[8];
volatile sig_atomic_t storeCount = 0;

void registerStore(const std::string &dir) {
  for (int i = 0; i < storeCount; ++i)
    if (dir == storeSlots[i].path) {
      close(storeSlots[i].fd);
      storeSlots[i].fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      return;
    }
  if (storeCount == int(std::size(storeSlots)) || dir.size() >= 4096)
    return;
  StoreSlot &slot = storeSlots[storeCount];
  std::memcpy(slot.path, dir.c_str(), dir.size() + 1);
  slot.fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  storeCount = storeCount + 1;
}

void unregisterStore(const std::string &dir) {
  for (int i = 0; i < storeCount; ++i)
    if (dir == storeSlots[i].path) {
      close(storeSlots[i].fd);
      storeSlots[i].fd = -1;
      storeSlots[i].path[0] = 0;
    }
}

void removeOnCrash(void *) { removeValueStores(); }

} // namespace

void tdsl::removeValueStores() {
  // Only async-signal-safe calls: getdents64, unlinkat, rmdir.
  static char buf[8192];
  for (int i = 0; i < storeCount; ++i) {
    StoreSlot &slot = storeSlots[i];
    if (slot.fd < 0)
      continue;
    for (bool again = true; again;) {
      again = false;
      lseek(slot.fd, 0, SEEK_SET);
      long n;
      while ((n = syscall(SYS_getdents64, slot.fd, buf, sizeof(buf))) > 0)
        for (long off = 0; off < n;) {
          auto *d = reinterpret_cast<struct dirent64 *>(buf + off);
          off += d->d_reclen;
          if (d->d_name[0] == '.')
            continue;
          again |= unlinkat(slot.fd, d->d_name, 0) == 0;
        }
    }
    rmdir(slot.path);
  }
}

void tdsl::restoreDefaultSignals() {
  for (int sig : {SIGINT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP,
                  SIGSYS, SIGXFSZ, SIGXCPU, SIGQUIT, SIGTERM, SIGHUP})
    signal(sig, SIG_DFL);
}

llvm::Expected<NpyInfo> tdsl::readNpyHeader(llvm::StringRef path,
                                            bool headerOnly) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("cannot read '" + path + "': " + why);
  };
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return fail(file.getError().message());
  llvm::StringRef data = (*file)->getBuffer();
  if (data.size() < 10 || !data.starts_with("\x93NUMPY"))
    return fail("not a .npy file");
  uint8_t major = data[6];
  if (major < 1 || major > 3)
    return fail("unknown .npy version " + llvm::Twine(int(major)));
  size_t lenBytes = major == 1 ? 2 : 4;
  if (data.size() < 8 + lenBytes)
    return fail("truncated header");
  size_t headerLen = 0;
  for (size_t i = 0; i < lenBytes; ++i)
    headerLen |= size_t(uint8_t(data[8 + i])) << (8 * i);
  size_t start = 8 + lenBytes;
  if (data.size() < start + headerLen)
    return fail("truncated header");
  llvm::StringRef header = data.substr(start, headerLen);
  NpyInfo info;
  llvm::StringRef descr = valueOf(header, "'descr'");
  if (!descr.consume_front("'") || descr.find('\'') == llvm::StringRef::npos)
    return fail("the header has no 'descr'");
  info.descr = descr.take_until([](char c) { return c == '\''; }).str();
  for (auto &[d, elem] : kDescrs)
    if (info.descr == d)
      info.elem = elem;
  info.fortranOrder = valueOf(header, "'fortran_order'").starts_with("True");
  llvm::StringRef shape = valueOf(header, "'shape'");
  if (!shape.consume_front("("))
    return fail("the header has no 'shape'");
  shape = shape.take_until([](char c) { return c == ')'; });
  int64_t count = 1;
  for (llvm::StringRef part : llvm::split(shape, ',')) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t n = 0;
    if (part.getAsInteger(10, n) || n < 0)
      return fail("bad shape '(" + shape + ")'");
    info.shape.push_back(n);
    if (n != 0 && count > (int64_t(1) << 60) / n)
      return fail("shape (" + shape + ") is too large");
    count *= n;
  }
  info.dataBytes = count * elemBytes(info.descr);
  if (!headerOnly && int64_t(data.size() - start - headerLen) < info.dataBytes)
    return fail("the file is shorter than its shape says");
  return info;
}

ValueStore::~ValueStore() {
  clear();
  stopKeeper();
  if (!dir.empty()) {
    llvm::sys::fs::remove(dir);
    unregisterStore(dir);
  }
}

llvm::Expected<unsigned> ValueStore::begin() {
  if (dir.empty()) {
    // Shared memory when the system has it: values are memory, not disk.
    llvm::SmallString<128> base;
    if (const char *env = getenv("TDSL_REPL_STORE"); env && *env)
      base = env;
    else if (llvm::sys::fs::is_directory("/dev/shm") && access("/dev/shm", W_OK) == 0)
      base = "/dev/shm";
    else
      llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, base);
    std::string where(base);
    llvm::sys::path::append(base, "tdsl-repl-%%%%%%");
    llvm::SmallString<128> made;
    if (auto ec = llvm::sys::fs::createUniqueDirectory(base, made))
      return llvm::createStringError("cannot create the session's value "
                                     "store in '" + where + "': " + ec.message());
    dir = std::string(made);
    static bool onCrash = (llvm::sys::AddSignalHandler(removeOnCrash, nullptr), true);
    (void)onCrash;
  } else if (!llvm::sys::fs::is_directory(dir)) {
    // Removed under us (a logout's RemoveIPC, a cleaner): values already
    // kept are gone (their reads will say so), new ones go to a new one.
    if (auto ec = llvm::sys::fs::create_directory(dir))
      return llvm::createStringError("cannot create the session's value "
                                     "store '" + dir + "': " + ec.message());
  }
  // Values are private to the user.
  chmod(dir.c_str(), 0700);
  registerStore(dir);
  return ++serial;
}

std::string ValueStore::pathFor(unsigned s, llvm::StringRef name,
                                Value::Kind kind) const {
  llvm::SmallString<128> p(dir);
  llvm::sys::path::append(p, std::to_string(s) + "-" + name.str() +
                                 (kind == Value::Model ? "." : ".npy"));
  return std::string(p);
}

const ValueStore::Value *ValueStore::lookup(llvm::StringRef name) const {
  auto it = live.find(name.str());
  return it == live.end() ? nullptr : &it->second;
}

std::vector<std::pair<std::string, std::string>>
ValueStore::files(const Value &v, bool device) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::string base = device ? devicePath(v.path) : v.path;
  if (v.kind != Value::Model) {
    out.push_back({"", base});
    return out;
  }
  // Field files are `<prefix><field>.npy`, in the order of `fields`.
  for (llvm::StringRef f : llvm::split(v.fields, ';')) {
    llvm::StringRef field = f.split(':').first;
    if (!field.empty())
      out.push_back({field.str(), base + field.str() + ".npy"});
  }
  return out;
}

int64_t ValueStore::bytes(const Value &v) const {
  int64_t total = 0;
  for (auto &[field, path] : files(v, !v.onHost))
    if (auto info = readNpyHeader(path, /*headerOnly=*/!v.onHost))
      total += info->dataBytes;
    else
      llvm::consumeError(info.takeError());
  return total;
}

void ValueStore::removeFiles(llvm::StringRef prefix) {
  if (dir.empty())
    return;
  std::error_code ec;
  std::vector<std::string> doomed;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with(prefix))
      doomed.push_back(it->path());
  for (const std::string &p : doomed)
    llvm::sys::fs::remove(p);
}

void ValueStore::removeValue(const Value &v) {
  for (bool device : {false, true})
    for (auto &[field, path] : files(v, device))
      llvm::sys::fs::remove(path);
  if (v.onDevice)
    freeDevice(llvm::sys::path::filename(v.path));
}

void ValueStore::commit(llvm::StringRef name, Value value) {
  auto it = live.find(name.str());
  if (it != live.end() && it->second.path != value.path)
    removeValue(it->second);
  live[name.str()] = std::move(value);
}

void ValueStore::discard(unsigned s) {
  removeFiles(std::to_string(s) + "-");
  removeFiles("gpu-" + std::to_string(s) + "-");
  freeDevice(std::to_string(s) + "-");
}

bool ValueStore::forget(llvm::StringRef name) {
  auto it = live.find(name.str());
  if (it == live.end())
    return false;
  removeValue(it->second);
  live.erase(it);
  return true;
}

void ValueStore::clear() {
  live.clear();
  removeFiles("");
  freeDevice("");
}

std::string ValueStore::devicePrefix() const {
  if (dir.empty())
    return "";
  llvm::SmallString<128> p(dir);
  llvm::sys::path::append(p, "gpu-");
  return std::string(p);
}

std::string ValueStore::devicePath(llvm::StringRef path) const {
  return devicePrefix() + llvm::sys::path::filename(path).str();
}

llvm::Error ValueStore::askKeeper(const std::string &request) {
  char reply[1024] = "";
  if (!keeperRequest)
    return llvm::createStringError("no GPU values: the keeper is not running");
  if (keeperRequest(devicePrefix().c_str(), request.c_str(), reply,
                    sizeof reply) != 0)
    return llvm::createStringError(llvm::StringRef(reply));
  return llvm::Error::success();
}

void ValueStore::freeDevice(llvm::StringRef prefix) {
  if (keeperPid)
    llvm::consumeError(askKeeper("free\t" + devicePrefix() + prefix.str()));
}

void ValueStore::checkKeeper() {
  int status;
  if (!keeperPid || waitpid(keeperPid, &status, WNOHANG) != keeperPid)
    return;
  // The keeper died (killed, or a driver failure): the values only it
  // held are gone; say which, and start a new one when next needed.
  keeperPid = 0;
  close(lifeline);
  lifeline = -1;
  for (auto it = live.begin(); it != live.end();) {
    it->second.onDevice = false;
    if (it->second.onHost) {
      ++it;
      continue;
    }
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "the process that kept the GPU values stopped: '" << it->first
        << "' is lost\n";
    for (auto &[field, path] : files(it->second, /*device=*/true))
      llvm::sys::fs::remove(path);
    it = live.erase(it);
  }
}

bool ValueStore::deviceAvailable() {
  checkKeeper();
  if (keeperPid)
    return true;
  if (keeperFailed || runtimeDir.empty())
    return false;
  keeperFailed = true; // unless everything below works
  auto made = begin(); // the store's directory
  if (!made) {
    llvm::consumeError(made.takeError());
    return false;
  }
  llvm::SmallString<256> path(runtimeDir);
  llvm::sys::path::append(path, "libtdsl_runtime.so");
  auto lib = llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str());
  auto listen = reinterpret_cast<decltype(&tdsl_keeper_listen)>(
      lib.getAddressOfSymbol("tdsl_keeper_listen"));
  auto serve = reinterpret_cast<decltype(&tdsl_keeper_serve)>(
      lib.getAddressOfSymbol("tdsl_keeper_serve"));
  keeperRequest = reinterpret_cast<decltype(&tdsl_keeper_request)>(
      lib.getAddressOfSymbol("tdsl_keeper_request"));
  if (!listen || !serve || !keeperRequest)
    return false;
  // The socket listens before the fork: no request can come too early.
  int listenFd = listen(devicePrefix().c_str());
  int pipeFds[2];
  if (listenFd < 0 || pipe2(pipeFds, O_CLOEXEC) != 0) {
    if (listenFd >= 0)
      close(listenFd);
    return false;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    // Out of the terminal's process group (Ctrl-C stops inputs, not the
    // values), with default signal handling, and no user code ever.
    setpgid(0, 0);
    restoreDefaultSignals();
    // Its files are the store's, not redirected by --compare's.
    unsetenv("TDSL_SAVE_DIR");
    close(pipeFds[1]);
    serve(devicePrefix().c_str(), listenFd, pipeFds[0]);
    _exit(0);
  }
  close(listenFd);
  close(pipeFds[0]);
  if (pid < 0) {
    close(pipeFds[1]);
    return false;
  }
  keeperPid = pid;
  lifeline = pipeFds[1];
  if (llvm::Error e = askKeeper("ping")) {
    // No GPU here: values stay on the host, and the input says why.
    llvm::consumeError(std::move(e));
    stopKeeper();
    return false;
  }
  keeperFailed = false;
  return true;
}

void ValueStore::stopKeeper() {
  if (!keeperPid)
    return;
  close(lifeline); // the keeper exits at its end
  lifeline = -1;
  // A keeper stuck in the driver is not waited for long.
  for (int tries = 0;; ++tries) {
    pid_t done = waitpid(keeperPid, nullptr, WNOHANG);
    if (done == keeperPid || (done < 0 && errno != EINTR))
      break;
    if (tries == 200) { // 2 s
      kill(keeperPid, SIGKILL);
      while (waitpid(keeperPid, nullptr, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    usleep(10000);
  }
  keeperPid = 0;
}

void ValueStore::leaveKeeperToSession() {
  if (lifeline >= 0)
    close(lifeline);
  lifeline = -1;
  keeperPid = 0;
}

llvm::Error ValueStore::moveValue(llvm::StringRef name, bool toDevice) {
  const Value *found = lookup(name);
  if (found && (toDevice ? found->onDevice : found->onHost))
    return llvm::Error::success(); // no keeper needed (a CPU session)
  // A keeper found dead drops the values only it held.
  bool keeper = deviceAvailable();
  auto it = live.find(name.str());
  if (it == live.end())
    return llvm::createStringError("no value named '" + name + "'");
  Value &v = it->second;
  if (!keeper)
    return llvm::createStringError("no GPU to keep '" + name + "' on");
  auto host = files(v), device = files(v, true);
  for (size_t i = 0; i < host.size(); ++i)
    if (llvm::Error e = askKeeper(toDevice ? "upload\t" + host[i].second +
                                                 "\t" + device[i].second
                                           : "download\t" + device[i].second +
                                                 "\t" + host[i].second)) {
      // Nothing half-moved stays: the fields moved so far go.
      for (size_t j = 0; j < i; ++j)
        llvm::sys::fs::remove(toDevice ? device[j].second : host[j].second);
      if (toDevice)
        freeDevice(llvm::sys::path::filename(v.path));
      return e;
    }
  (toDevice ? v.onDevice : v.onHost) = true;
  return llvm::Error::success();
}
