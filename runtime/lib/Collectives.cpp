//===- Collectives.cpp - world_size, allreduce, broadcast -----------------===//
//
// A program started by mpirun is one of several processes; the first
// collective finds out, loads libtdsl_mpi.so (mpi/MpiBridge.h) and
// initializes MPI. Without a launcher the program is the only process and
// never loads MPI. Buffers of one element type are packed into one and sent
// by one MPI call, as DDP and Horovod bucket gradients.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"
#include "mpi/MpiBridge.h"
#include "tdsl/Runtime.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace tdsl::rt;

namespace {

struct World {
  int64_t size = 1, rank = 0;
  bool mpi = false;
#define TDSL_MPI_POINTER(name, ret, params) ret(*name) params = nullptr;
  TDSL_MPI_FUNCTIONS(TDSL_MPI_POINTER)
#undef TDSL_MPI_POINTER
};
World world_;

/// mpirun (OpenMPI) and the PMI launchers of other MPIs set these.
bool startedByLauncher() {
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v))
      return true;
  return false;
}

/// libtdsl_mpi.so: $TDSL_MPI_LIBRARY, else beside this library.
std::string bridgePath() {
  if (const char *env = std::getenv("TDSL_MPI_LIBRARY"); env && *env)
    return env;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&tdsl_world_size), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos)
      return self.substr(0, slash + 1) + "libtdsl_mpi.so";
  }
  return "libtdsl_mpi.so";
}

void annotateRank(std::string &message) {
  message += format(" (rank %lld of %lld)", (long long)world_.rank,
                    (long long)world_.size);
}

void abortWorld() { world_.tdsl_mpi_abort(1); }

Status connect(World &w) {
  std::string path = bridgePath();
  // Global: Open MPI's components, loaded later, look for libmpi's symbols.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char *why = dlerror();
    return Status::error(format(
        "this program was started by mpirun, but TDSL's MPI library cannot "
        "be loaded: %s (build TDSL with libopenmpi-dev installed)",
        why ? why : path.c_str()));
  }
#define TDSL_MPI_RESOLVE(name, ret, params)                                    \
  w.name = reinterpret_cast<ret(*) params>(dlsym(handle, #name));              \
  if (!w.name)                                                                 \
    return Status::error(path + " has no function " #name);
  TDSL_MPI_FUNCTIONS(TDSL_MPI_RESOLVE)
#undef TDSL_MPI_RESOLVE
  char err[512] = "";
  if (w.tdsl_mpi_init(&w.size, &w.rank, err, sizeof(err)))
    return Status::error(err);
  w.mpi = true;
  // From now on an error in any process stops them all, naming its rank.
  setFatalHooks(annotateRank, abortWorld);
  if (w.size > 1)
    setProfileRank(w.rank, w.size);
  // An MPI that does not match the launcher starts each process alone.
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char *n = std::getenv(v); n && std::atoll(n) != w.size)
      return Status::error(format(
          "the launcher started %s processes, but MPI sees %lld: "
          "libtdsl_mpi.so was built for another MPI than the one of mpirun",
          n, (long long)w.size));
  return Status();
}

bool onMainThread() { return syscall(SYS_gettid) == getpid(); }

/// The world, connected to MPI on first use when started by a launcher.
/// Without one, any thread may ask (nothing to talk to); with one, the
/// compiler keeps collectives out of parallel code and this is a backstop.
World &world(const char *where, const char *what) {
  static const bool launched = startedByLauncher();
  if (!launched)
    return world_;
  if (!onMainThread())
    fatal(where, format("'%s' runs on the main thread only: not inside a "
                        "'parallel for' or a function called from one",
                        what));
  static std::once_flag once;
  std::call_once(once, [&] { exitOnError(connect(world_), where); });
  return world_;
}

/// "file:line:col" of a `where` that may go on with the source line.
std::string placeOf(const char *where) {
  std::string place = where ? where : "tdsl";
  return place.substr(0, place.find('\n'));
}

struct Row {
  const char *in;
  char *out;
  int64_t count;
  int32_t dtype;
};

/// Runs `send(buffer, count, dtype)` once per element type of the rows,
/// in the order the types first appear (the same in every process): on the
/// output itself for a lone buffer, else on the buffers packed into one.
template <typename Send>
Status collective(const World &w, int64_t n, const int64_t *table, Send send,
                  double &bytes) {
  std::vector<Row> rows;
  for (int64_t i = 0; i < n; ++i)
    rows.push_back({reinterpret_cast<const char *>(table[4 * i]),
                    reinterpret_cast<char *>(table[4 * i + 1]), table[4 * i + 2],
                    int32_t(table[4 * i + 3])});
  for (Row &r : rows) {
    int64_t size = tdsl_dtype_size(r.dtype) * r.count;
    bytes += double(size);
    if (size > 0 && r.out != r.in)
      std::memcpy(r.out, r.in, size_t(size));
  }
  if (w.size == 1 && !w.mpi)
    return Status();
  std::vector<bool> done(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (done[i])
      continue;
    int32_t dtype = rows[i].dtype;
    int64_t elem = tdsl_dtype_size(dtype), total = 0;
    std::vector<Row *> group;
    for (size_t j = i; j < rows.size(); ++j)
      if (!done[j] && rows[j].dtype == dtype) {
        done[j] = true;
        group.push_back(&rows[j]);
        total += rows[j].count;
      }
    if (total == 0)
      continue;
    if (group.size() == 1) {
      TDSL_TRY(send(group[0]->out, total, dtype));
      continue;
    }
    StatusOr<void *> staging = allocate(total * elem);
    TDSL_TRY(staging.status());
    char *p = static_cast<char *>(*staging);
    for (Row *r : group)
      if (r->count > 0) {
        std::memcpy(p, r->out, size_t(r->count * elem));
        p += r->count * elem;
      }
    Status sent = send(*staging, total, dtype);
    p = static_cast<char *>(*staging);
    for (Row *r : group)
      if (r->count > 0) {
        std::memcpy(r->out, p, size_t(r->count * elem));
        p += r->count * elem;
      }
    tdsl_free(*staging);
    TDSL_TRY(sent);
  }
  return Status();
}

/// Times a collective in the profile as `name` (kind "collective").
template <typename Run> void timed(const char *name, const char *where, Run run) {
  std::string place = placeOf(where);
  int32_t id = tdsl_kernel_register_kind(name, place.c_str(), TDSL_KIND_COLLECTIVE);
  int64_t start = tdsl_kernel_begin(id);
  double bytes = 0;
  exitOnError(run(bytes), where);
  tdsl_kernel_end(id, start, 0, bytes);
}

} // namespace

int64_t tdsl_world_size(const char *where) {
  return world(where, "world_size").size;
}

int64_t tdsl_world_rank(const char *where) {
  return world(where, "world_rank").rank;
}

/// A collective over the table: `name` in the profile, `send` one MPI call
/// through the bridge (buffer, count, dtype, error text).
template <typename Send>
static void runCollective(const char *name, const char *where, const World &w,
                          int64_t n, const int64_t *table, Send send) {
  timed(name, where, [&](double &bytes) {
    return collective(
        w, n, table,
        [&](void *buf, int64_t count, int32_t dtype) {
          char err[512] = "";
          return send(buf, count, dtype, err) ? Status::error(err) : Status();
        },
        bytes);
  });
}

void tdsl_allreduce(int64_t n, const int64_t *table, int32_t op,
                    const char *where) {
  const World &w = world(where, "allreduce");
  runCollective("allreduce", where, w, n, table,
                [&](void *buf, int64_t count, int32_t dtype, char *err) {
                  return w.tdsl_mpi_allreduce(buf, count, dtype, op, err, 512);
                });
}

void tdsl_broadcast(int64_t n, const int64_t *table, int64_t root,
                    const char *where) {
  const World &w = world(where, "broadcast");
  if (root < 0 || root >= w.size)
    fatal(where, format("broadcast from rank %lld, but the ranks are 0..%lld",
                        (long long)root, (long long)w.size - 1));
  runCollective("broadcast", where, w, n, table,
                [&](void *buf, int64_t count, int32_t dtype, char *err) {
                  return w.tdsl_mpi_broadcast(buf, count, dtype, root, err, 512);
                });
}
