//===- DeviceKeeper.cpp - tdsl-repl's values in GPU memory ----------------===//
//
// The keeper's loop and requests, and the child's side: reading and writing
// device values through CUDA IPC (see DeviceKeeper.h and
// tdsl/DeviceKeeper.h). The keeper is a socket server with one request per
// connection, served in order: requests come from the session between
// inputs and from the input's child while the session waits for it.
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceKeeper.h"
#include "cuda/CudaDriver.h"
#include "tdsl/DeviceKeeper.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace tdsl::rt;
using namespace tdsl::rt::cuda;

namespace {

constexpr char kMagic[] = "TDSLGPU1";
constexpr size_t kMagicSize = 8;
/// Bytes a descriptor ends with: the magic string and the handle.
constexpr long kTrailer = long(kMagicSize + sizeof(CUipcMemHandle));

/// The keeper's socket: in the abstract namespace (no file to clean up),
/// named after the user and the prefix.
socklen_t keeperAddress(const char *prefix, sockaddr_un &addr) {
  std::string name =
      format("tdsl-keeper-%u-%016zx", unsigned(getuid()),
             std::hash<std::string>{}(prefix ? prefix : ""));
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  return socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

bool sendAll(int fd, const std::string &text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

/// What `fd` sends up to a newline or its end.
std::string receiveLine(int fd) {
  std::string line;
  char c;
  for (;;) {
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0 || c == '\n')
      return line;
    line += c;
  }
}

std::vector<std::string> splitFields(const std::string &line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string::npos;
       start = tab + 1)
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

int64_t byteCount(int32_t dtype, const std::vector<int64_t> &shape) {
  int64_t n = tdsl_dtype_size(dtype);
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Writes a descriptor (DeviceKeeper.h) beside `path`, then renames it there.
Status writeDescriptor(const std::string &path, int32_t dtype,
                       const std::vector<int64_t> &shape,
                       const CUipcMemHandle &handle) {
  std::string bytes = npyHeader(dtype, int64_t(shape.size()), shape.data()) +
                      std::string(kMagic, kMagicSize) +
                      std::string(handle.reserved, sizeof handle.reserved);
  std::string temp = path + ".tmp";
  FILE *f = std::fopen(temp.c_str(), "wb");
  bool ok = f && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (f && std::fclose(f) != 0)
    ok = false;
  if (ok && std::rename(temp.c_str(), path.c_str()) == 0)
    return Status();
  std::string why = std::strerror(errno);
  std::remove(temp.c_str());
  return Status::error("cannot write '" + path + "': " + why);
}

Status readHandle(const char *path, CUipcMemHandle &handle) {
  FILE *f = std::fopen(path, "rb");
  char trailer[kTrailer];
  bool ok = f && std::fseek(f, -kTrailer, SEEK_END) == 0 &&
            std::fread(trailer, 1, sizeof trailer, f) == sizeof trailer &&
            std::memcmp(trailer, kMagic, kMagicSize) == 0;
  if (f)
    std::fclose(f);
  if (!ok)
    return Status::error(format("cannot read '%s': not a value kept on the GPU",
                                path));
  std::memcpy(handle.reserved, trailer + kMagicSize, sizeof handle.reserved);
  return Status();
}

/// Whether the client on `fd` runs as this user: the socket's name is
/// public (abstract sockets have no permissions).
bool sameUser(int fd) {
  ucred cred;
  socklen_t len = sizeof cred;
  return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
         cred.uid == getuid();
}

/// The keeper's state: the memory of each value, by descriptor path.
class Keeper {
public:
  /// `prefix`: what descriptors start with; every path of a request must
  /// be in its directory (the session's store).
  explicit Keeper(std::string prefix) : prefix(std::move(prefix)) {
    storeDir = this->prefix.substr(0, this->prefix.rfind('/') + 1);
  }
  /// The reply to one request line.
  std::string answer(const std::string &line);
  void setDriverError(std::string why) { driverError = std::move(why); }

private:
  struct Kept {
    CUdeviceptr ptr;
    size_t bytes;
  };
  Status allocate(const std::string &desc, int32_t dtype,
                  const std::vector<int64_t> &shape, CUdeviceptr &ptr);
  Status upload(const std::string &npy, const std::string &desc);
  Status download(const std::string &desc, const std::string &npy);
  void release(const std::string &prefix);
  /// Whether the driver is up and exports memory (not every platform has
  /// CUDA IPC).
  Status ping();

  /// Whether `path` is a file of the store (a descriptor when `descriptor`).
  bool inStore(const std::string &path, bool descriptor) const {
    return path.compare(0, (descriptor ? prefix : storeDir).size(),
                        descriptor ? prefix : storeDir) == 0 &&
           path.find("/..") == std::string::npos &&
           path.find('/', storeDir.size()) == std::string::npos;
  }

  std::map<std::string, Kept> kept;
  std::string driverError;
  std::string prefix, storeDir;
};

Status Keeper::allocate(const std::string &desc, int32_t dtype,
                        const std::vector<int64_t> &shape, CUdeviceptr &ptr) {
  TDSL_TRY(checkDtypeAndRank(dtype, int64_t(shape.size()), "alloc"));
  if (npyHeader(dtype, int64_t(shape.size()), shape.data()).empty())
    return Status::error(dtypeName(dtype) + " values have no .npy type to "
                                            "keep them with (convert to f32)");
  int64_t bytes = byteCount(dtype, shape);
  StatusOr<const CudaDriver *> api = driver();
  TDSL_TRY(api.status());
  // Empty values get a little memory too: an IPC handle needs an allocation.
  size_t size = size_t(std::max<int64_t>(bytes, 256));
  CUresult r = (*api)->cuMemAlloc(&ptr, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    return Status::error(format("out of GPU memory keeping a value of %lld "
                                "bytes (:forget values, or :target cpu)",
                                (long long)bytes));
  if (r != CUDA_SUCCESS)
    return callError("cuMemAlloc", r, format("keeping %zu bytes", size));
  CUipcMemHandle handle;
  Status status;
  r = (*api)->cuIpcGetMemHandle(&handle, ptr);
  if (r != CUDA_SUCCESS)
    status = callError("cuIpcGetMemHandle", r, "sharing a kept value");
  if (status.ok())
    status = writeDescriptor(desc, dtype, shape, handle);
  if (!status.ok()) {
    (*api)->cuMemFree(ptr);
    return status;
  }
  release(desc); // a value written again (a retried input) replaces its own
  kept[desc] = {ptr, size_t(bytes)};
  return Status();
}

Status Keeper::upload(const std::string &npy, const std::string &desc) {
  int32_t dtype;
  std::vector<int64_t> shape;
  TDSL_TRY(readNpyInfo(npy.c_str(), dtype, shape));
  std::vector<int64_t> sizes(shape.size() + 1);
  void *host = nullptr;
  TDSL_TRY(loadNpy(npy.c_str(), dtype, int64_t(shape.size()), sizes.data(),
                   &host));
  CUdeviceptr ptr = 0;
  Status status = allocate(desc, dtype, shape, ptr);
  int64_t bytes = byteCount(dtype, shape);
  if (status.ok() && bytes > 0)
    status = copyAndWait(reinterpret_cast<void *>(ptr), host, size_t(bytes));
  tdsl_free(host);
  if (!status.ok())
    release(desc);
  return status;
}

Status Keeper::download(const std::string &desc, const std::string &npy) {
  auto it = kept.find(desc);
  if (it == kept.end())
    return Status::error("no value kept for '" + desc + "'");
  int32_t dtype;
  std::vector<int64_t> shape;
  TDSL_TRY(readNpyInfo(desc.c_str(), dtype, shape));
  StatusOr<void *> host = tdsl::rt::allocate(std::max<int64_t>(it->second.bytes, 1));
  TDSL_TRY(host.status());
  Status status;
  if (it->second.bytes)
    status = copyAndWait(*host, reinterpret_cast<void *>(it->second.ptr),
                         it->second.bytes);
  if (status.ok())
    status = saveDenseNpy(npy.c_str(), dtype, int64_t(shape.size()),
                          shape.data(), *host);
  tdsl_free(*host);
  return status;
}

void Keeper::release(const std::string &prefix) {
  StatusOr<const CudaDriver *> api = driver();
  for (auto it = kept.lower_bound(prefix);
       it != kept.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
    if (api.ok())
      (*api)->cuMemFree(it->second.ptr);
    it = kept.erase(it);
  }
}

Status Keeper::ping() {
  // With the GPU in exclusive-process mode, the keeper's context would keep
  // every input from making its own.
  StatusOr<const CudaDriver *> d = driver();
  TDSL_TRY(d.status());
  CUdevice device = 0;
  int mode = 0;
  TDSL_CU_TRY("", cuDeviceGet, &device, deviceOrdinal());
  TDSL_CU_TRY("", cuDeviceGetAttribute, &mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE,
              device);
  if (mode == CU_COMPUTEMODE_EXCLUSIVE_PROCESS)
    return Status::error("the GPU is in exclusive-process compute mode: one "
                         "process at a time may use it");
  TDSL_TRY(enterContext());
  CUdeviceptr ptr = 0;
  CUipcMemHandle handle;
  TDSL_CU_TRY("", cuMemAlloc, &ptr, 256);
  StatusOr<const CudaDriver *> api = driver();
  CUresult r = (*api)->cuIpcGetMemHandle(&handle, ptr);
  (*api)->cuMemFree(ptr);
  if (r != CUDA_SUCCESS)
    return callError("cuIpcGetMemHandle", r, "(no CUDA IPC here)");
  return Status();
}

std::string Keeper::answer(const std::string &line) {
  std::vector<std::string> f = splitFields(line);
  if (!driverError.empty())
    return driverError;
  Status status;
  if (f[0] == "ping" && f.size() == 1) {
    status = ping();
  } else if ((f[0] == "alloc" && f.size() >= 4 && !inStore(f[1], true)) ||
             (f[0] == "upload" && f.size() == 3 &&
              !(inStore(f[1], false) && inStore(f[2], true))) ||
             (f[0] == "download" && f.size() == 3 &&
              !(inStore(f[1], true) && inStore(f[2], false))) ||
             (f[0] == "free" && f.size() == 2 && !inStore(f[1], true))) {
    status = Status::error("a path outside the session's store: " + line);
  } else if (f[0] == "alloc" && f.size() >= 4) {
    std::vector<int64_t> shape;
    for (size_t i = 4; i < f.size(); ++i)
      shape.push_back(std::atoll(f[i].c_str()));
    CUdeviceptr ptr;
    if (size_t(std::atoll(f[3].c_str())) != shape.size())
      status = Status::error("malformed request: " + line);
    else
      status = allocate(f[1], std::atoi(f[2].c_str()), shape, ptr);
  } else if (f[0] == "upload" && f.size() == 3) {
    status = upload(f[1], f[2]);
  } else if (f[0] == "download" && f.size() == 3) {
    status = download(f[1], f[2]);
  } else if (f[0] == "free" && f.size() == 2 && !f[1].empty()) {
    release(f[1]);
  } else {
    status = Status::error("unknown request: " + line);
  }
  return status.ok() ? "ok" : status.message();
}

} // namespace

bool cuda::isDeviceValue(const char *path) {
  const char *prefix = std::getenv("TDSL_REPL_DEVICE_STORE");
  return prefix && *prefix && path &&
         std::strncmp(path, prefix, std::strlen(prefix)) == 0;
}

/// Sends `request` to the keeper of $TDSL_REPL_DEVICE_STORE.
static Status ask(const std::string &request) {
  char reply[1024];
  if (tdsl_keeper_request(std::getenv("TDSL_REPL_DEVICE_STORE"),
                          request.c_str(), reply, sizeof reply) != 0)
    return Status::error(reply);
  return Status();
}

Status cuda::deviceValueShape(const char *path, int32_t dtype, int64_t rank,
                              int64_t *sizes) {
  int32_t found;
  std::vector<int64_t> shape;
  TDSL_TRY(readNpyInfo(path, found, shape));
  if (found != dtype || int64_t(shape.size()) != rank)
    return Status::error(format("cannot load '%s': it holds a rank-%zu %s "
                                "value, not a rank-%lld %s one",
                                path, shape.size(), dtypeName(found).c_str(),
                                (long long)rank, dtypeName(dtype).c_str()));
  for (int64_t d = 0; d < rank; ++d)
    sizes[d] = shape[d];
  return Status();
}

/// Copies `bytes` between the kept value of descriptor `path` and `buffer`
/// (to the value when `toValue`), on the device.
static Status copyKept(const char *path, void *buffer, size_t bytes,
                       bool toValue) {
  CUipcMemHandle handle;
  TDSL_TRY(readHandle(path, handle));
  TDSL_TRY(enterContext());
  CUdeviceptr ptr = 0;
  TDSL_CU_TRY(format("opening the value kept in '%s'", path),
              cuIpcOpenMemHandle, &ptr, handle,
              CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  void *value = reinterpret_cast<void *>(ptr);
  Status status = toValue ? copyAndWait(value, buffer, bytes)
                          : copyAndWait(buffer, value, bytes);
  TDSL_CU_TRY("", cuIpcCloseMemHandle, ptr);
  return status;
}

Status cuda::readDeviceValue(const char *path, int32_t dtype, int64_t rank,
                             const int64_t *sizes, void *out) {
  int64_t bytes = byteCount(dtype, std::vector<int64_t>(sizes, sizes + rank));
  if (bytes == 0)
    return Status();
  TDSL_TRY(copyKept(path, out, size_t(bytes), /*toValue=*/false));
  setOnDevice(out);
  return Status();
}

Status cuda::writeDeviceValue(const char *path, int32_t dtype, int64_t rank,
                              const int64_t *sizes, void *data) {
  int64_t bytes = byteCount(dtype, std::vector<int64_t>(sizes, sizes + rank));
  std::string request = format("alloc\t%s\t%d\t%lld", path, int(dtype),
                               (long long)rank);
  for (int64_t d = 0; d < rank; ++d)
    request += format("\t%lld", (long long)sizes[d]);
  TDSL_TRY(ask(request));
  if (bytes == 0)
    return Status();
  TDSL_TRY(toDevice(data));
  return copyKept(path, data, size_t(bytes), /*toValue=*/true);
}

extern "C" {

TDSL_RUNTIME_EXPORT int tdsl_keeper_listen(const char *prefix) {
  sockaddr_un addr;
  socklen_t len = keeperAddress(prefix, addr);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (bind(fd, reinterpret_cast<sockaddr *>(&addr), len) != 0 ||
      listen(fd, 16) != 0) {
    int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

TDSL_RUNTIME_EXPORT void tdsl_keeper_serve(const char *prefix, int listenFd,
                                           int lifelineFd) {
  std::signal(SIGPIPE, SIG_IGN);
  // A write past the file-size limit fails (EFBIG) rather than killing the
  // keeper and every value.
  std::signal(SIGXFSZ, SIG_IGN);
  Keeper keeper(prefix ? prefix : "");
  if (Status up = enterContext(); !up.ok())
    keeper.setDriverError(up.message());
  pollfd fds[2] = {{listenFd, POLLIN, 0}, {lifelineFd, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      _exit(1);
    }
    // The session is gone (even killed): so are its values.
    if (fds[1].revents)
      _exit(0);
    if (!(fds[0].revents & POLLIN))
      continue;
    int client = accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0)
      continue;
    // A client that stops mid-request does not hold the keeper up.
    timeval timeout{10, 0};
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    std::string line = receiveLine(client);
    (void)sendAll(client, (sameUser(client) ? keeper.answer(line)
                                            : "not the session's user") +
                              "\n");
    close(client);
  }
}

TDSL_RUNTIME_EXPORT int tdsl_keeper_request(const char *prefix,
                                            const char *request, char *reply,
                                            size_t replySize) {
  auto fail = [&](const std::string &why) {
    std::snprintf(reply, replySize, "%s", why.c_str());
    return -1;
  };
  sockaddr_un addr;
  socklen_t len = keeperAddress(prefix, addr);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 ||
      connect(fd, reinterpret_cast<sockaddr *>(&addr), len) != 0) {
    std::string why = std::strerror(errno);
    if (fd >= 0)
      close(fd);
    return fail("the keeper of the session's GPU values is not running (" +
                why + ")");
  }
  // Copies of large values take seconds; a keeper stuck for minutes is
  // reported rather than waited for.
  timeval timeout{300, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string answer;
  if (sendAll(fd, std::string(request) + "\n"))
    answer = receiveLine(fd);
  close(fd);
  if (answer == "ok")
    return 0;
  return fail(answer.empty() ? "the keeper of the session's GPU values "
                               "stopped answering"
                             : answer);
}

} // extern "C"
