//===- Profile.cpp - Per-kernel timing and the profile report -------------===//
#include "Internal.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <tuple>
#include <vector>

using namespace tdsl::rt;

namespace {
struct KernelStats {
  std::string name, where;
  int32_t kind = TDSL_KIND_KERNEL;
  int64_t calls = 0;
  int64_t totalNs = 0;
  double flops = 0, bytes = 0;
};

/// A kernel's counters, added to without a lock: a launch of a small kernel
/// in a loop (a stencil sweep) cost as much as the kernel when it took the
/// profile's mutex. A report or reset racing a launch on another thread can
/// see that launch's call without its time or the reverse (never torn
/// values): reports come at exit or between inputs, after the launches.
///
/// Launches usually come from one thread. The first thread to end a launch
/// owns `mine` and adds to it with plain loads and stores; other threads add
/// to `others` with atomic read-modify-writes. Four locked adds cost 24 ns a
/// launch on this project's VMs, a third of a launch's overhead. A thread id
/// is reused only after its thread has exited, so no two live threads own
/// the counters. A reset racing a launch on the owner thread can be undone
/// by that launch's store (not only miss its time): resets come before the
/// launches they clear.
struct LiveKernel {
  std::string name, where;
  int32_t kind = TDSL_KIND_KERNEL;
  struct Counters {
    std::atomic<int64_t> calls{0}, totalNs{0};
    std::atomic<double> flops{0}, bytes{0};
  };
  std::atomic<pthread_t> owner{pthread_t()};
  std::atomic<bool> owned{false};
  Counters mine, others;

  KernelStats snapshot() const {
    KernelStats k;
    k.name = name;
    k.where = where;
    k.kind = kind;
    for (const Counters *c : {&mine, &others}) {
      k.calls += c->calls.load(std::memory_order_relaxed);
      k.totalNs += c->totalNs.load(std::memory_order_relaxed);
      k.flops += c->flops.load(std::memory_order_relaxed);
      k.bytes += c->bytes.load(std::memory_order_relaxed);
    }
    return k;
  }
  void clear() {
    for (Counters *c : {&mine, &others}) {
      c->calls = 0;
      c->totalNs = 0;
      c->flops = 0;
      c->bytes = 0;
    }
  }
  /// Whether the calling thread owns `mine` (claiming it if nobody does).
  bool ownedByCaller() {
    pthread_t self = pthread_self();
    if (owned.load(std::memory_order_acquire))
      return pthread_equal(owner.load(std::memory_order_relaxed), self);
    static std::mutex claim;
    std::lock_guard<std::mutex> lock(claim);
    if (owned.load(std::memory_order_relaxed))
      return pthread_equal(owner.load(std::memory_order_relaxed), self);
    owner.store(self, std::memory_order_relaxed);
    owned.store(true, std::memory_order_release);
    return true;
  }
};

struct Profile {
  // Kernels by id, in chunks that never move once published, so that a
  // launch finds its counters without the mutex while another thread
  // registers a kernel.
  static constexpr int32_t kChunk = 256, kChunks = 4096;
  std::atomic<LiveKernel *> chunks[kChunks] = {};
  std::atomic<int32_t> count{0};

  std::mutex mutex; // registration, the report, reset, settings
  std::map<std::tuple<std::string, std::string, int32_t>, int32_t> ids;
  int64_t runStartNs = nowNs();
  int enabled = -1;     // -1: ask TDSL_PROFILE
  bool jsonSet = false; // false: ask TDSL_PROFILE_JSON
  std::string jsonPath;
  bool reported = false;

  /// Kernel `id` (< count).
  LiveKernel &at(int32_t id) {
    return chunks[id / kChunk].load(std::memory_order_acquire)[id % kChunk];
  }
};

/// Leaked on purpose so the exit-time report never sees a destroyed object.
Profile &profile() {
  static Profile *p = new Profile;
  return *p;
}

void reportAtExit() { tdsl_profile_report(); }

std::atomic<void (*)()> flushHook{nullptr};
/// This process's rank and the number of processes, when there are several
/// (setProfileRank); -1: one process.
int64_t profileRank = -1, profileWorld = 1;

/// Starts the run clock when the library loads and arms the exit report.
[[maybe_unused]] const bool armed = [] {
  profile();
  std::atexit(reportAtExit);
  return true;
}();

const char *kindName(int32_t kind) {
  switch (kind) {
  case TDSL_KIND_H2D:
    return "h2d";
  case TDSL_KIND_D2H:
    return "d2h";
  case TDSL_KIND_D2D:
    return "d2d";
  case TDSL_KIND_COLLECTIVE:
    return "collective";
  default:
    return "kernel";
  }
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += {'\\', char(c)};
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20)
      out += format("\\u%04x", c);
    else
      out += char(c);
  }
  return out + "\"";
}

/// One report row, with derived rates (negative when unknown).
struct Row {
  const KernelStats *k;
  double totalMs, meanUs, gflops, gbps, percent;
};

std::vector<Row> makeRows(const std::vector<KernelStats> &kernels,
                          int64_t runNs) {
  std::vector<Row> rows;
  for (const KernelStats &k : kernels) {
    if (!k.calls)
      continue;
    double seconds = k.totalNs * 1e-9;
    Row r{&k,
          k.totalNs * 1e-6,
          k.totalNs * 1e-3 / double(k.calls),
          k.flops > 0 && seconds > 0 ? k.flops / seconds * 1e-9 : -1,
          k.bytes > 0 && seconds > 0 ? k.bytes / seconds * 1e-9 : -1,
          runNs > 0 ? 100.0 * double(k.totalNs) / double(runNs) : 0};
    rows.push_back(r);
  }
  // Ties keep registration order (rows point into an id-ordered vector).
  std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
    return a.k->totalNs != b.k->totalNs ? a.k->totalNs > b.k->totalNs
                                        : a.k < b.k;
  });
  return rows;
}

void printTable(const std::vector<Row> &rows, int64_t runNs) {
  std::vector<std::vector<std::string>> cells = {
      {"kernel", "where", "calls", "total ms", "mean us", "GFLOP/s", "GB/s",
       "% run"}};
  for (const Row &r : rows) {
    std::string name = r.k->name;
    if (r.k->kind != TDSL_KIND_KERNEL)
      name += std::string(" [") + kindName(r.k->kind) + "]";
    cells.push_back({name, r.k->where, format("%lld", (long long)r.k->calls),
                     format("%.3f", r.totalMs), format("%.3f", r.meanUs),
                     r.gflops >= 0 ? format("%.2f", r.gflops) : "",
                     r.gbps >= 0 ? format("%.2f", r.gbps) : "",
                     format("%.1f", r.percent)});
  }
  std::vector<size_t> width(cells[0].size(), 0);
  for (const auto &line : cells)
    for (size_t c = 0; c < line.size(); ++c)
      width[c] = std::max(width[c], line[c].size());
  size_t copies = 0, collectives = 0;
  for (const Row &r : rows) {
    copies += r.k->kind != TDSL_KIND_KERNEL && r.k->kind != TDSL_KIND_COLLECTIVE;
    collectives += r.k->kind == TDSL_KIND_COLLECTIVE;
  }
  size_t kernels = rows.size() - copies - collectives;
  std::string out = format("tdsl profile: %zu kernel%s", kernels, kernels == 1 ? "" : "s");
  if (copies)
    out += format(", %zu cop%s", copies, copies == 1 ? "y" : "ies");
  if (collectives)
    out += format(", %zu collective%s", collectives, collectives == 1 ? "" : "s");
  if (profileRank >= 0)
    out += format(", rank %lld of %lld", (long long)profileRank,
                  (long long)profileWorld);
  out += format(", run %.3f ms\n", runNs * 1e-6);
  for (const auto &line : cells) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      bool leftAligned = c < 2; // names left, numbers right
      std::string pad(width[c] - line[c].size(), ' ');
      text += c ? "  " : "";
      text += leftAligned ? line[c] + pad : pad + line[c];
    }
    text.erase(text.find_last_not_of(' ') + 1);
    out += text + "\n";
  }
  std::fflush(stdout);
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
}

void writeJson(const std::string &path, const std::vector<Row> &rows,
               int64_t runNs) {
  auto number = [](double v) { return v >= 0 ? format("%.6f", v) : "null"; };
  std::string out = "{\n  \"run_ms\": " + number(runNs * 1e-6) +
                    ",\n  \"kernels\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    out += i ? ",\n    {" : "\n    {";
    out += "\"name\": " + jsonString(r.k->name);
    out += ", \"where\": " + jsonString(r.k->where);
    out += std::string(", \"kind\": \"") + kindName(r.k->kind) + "\"";
    out += format(", \"calls\": %lld", (long long)r.k->calls);
    out += ", \"total_ms\": " + number(r.totalMs);
    out += ", \"mean_us\": " + number(r.meanUs);
    out += ", \"flops\": " + format("%.17g", r.k->flops);
    out += ", \"bytes\": " + format("%.17g", r.k->bytes);
    out += ", \"gflops\": " + number(r.gflops);
    out += ", \"gbps\": " + number(r.gbps);
    out += ", \"percent\": " + number(r.percent) + "}";
  }
  out += rows.empty() ? "]\n}\n" : "\n  ]\n}\n";
  FILE *f = std::fopen(path.c_str(), "w");
  bool ok = f && std::fwrite(out.data(), 1, out.size(), f) == out.size();
  if (f && std::fclose(f) != 0)
    ok = false;
  // Not fatal: this usually runs at exit, where exiting again is undefined.
  if (!ok)
    std::fprintf(stderr, "tdsl: warning: cannot write profile JSON '%s': %s\n",
                 path.c_str(), std::strerror(errno));
}
} // namespace

int32_t tdsl_kernel_register(const char *name, const char *where) {
  return tdsl_kernel_register_kind(name, where, TDSL_KIND_KERNEL);
}

int32_t tdsl_kernel_register_kind(const char *name, const char *where,
                                  int32_t kind) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  auto key = std::make_tuple(std::string(name ? name : "<unnamed>"),
                             std::string(where ? where : ""), kind);
  int32_t next = p.count.load(std::memory_order_relaxed);
  auto [it, inserted] = p.ids.try_emplace(key, next);
  if (!inserted)
    return it->second;
  if (next >= Profile::kChunk * Profile::kChunks) {
    p.ids.erase(it);
    exitOnError(Status::errorAt(nullptr, format("more than %d kernels to profile",
                                               Profile::kChunk * Profile::kChunks)),
                nullptr);
  }
  if (next % Profile::kChunk == 0)
    p.chunks[next / Profile::kChunk].store(new LiveKernel[Profile::kChunk],
                                           std::memory_order_release);
  LiveKernel &k = p.at(next);
  std::tie(k.name, k.where, k.kind) = key;
  p.count.store(next + 1, std::memory_order_release);
  return next;
}

int32_t tdsl_kernel_id(int32_t *slot, const char *name, const char *where) {
  int32_t id = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (id >= 0)
    return id;
  id = tdsl_kernel_register(name, where);
  __atomic_store_n(slot, id, __ATOMIC_RELEASE);
  return id;
}

int64_t tdsl_kernel_begin(int32_t) { return nowNs(); }

/// Adds a call of `ns` nanoseconds to kernel `id`; an unknown id is a misuse
/// of the ABI by `caller`'s generated code, reported at "tdsl".
/// `sum += v` (atomic<double> has no fetch_add before C++20).
static void addTo(std::atomic<double> &sum, double v) {
  double old = sum.load(std::memory_order_relaxed);
  while (!sum.compare_exchange_weak(old, old + v, std::memory_order_relaxed))
    ;
}

/// `sum += v` by the only thread that writes `sum`.
template <typename T> static void addOwned(std::atomic<T> &sum, T v) {
  sum.store(sum.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}

static Status addCall(const char *caller, int32_t id, int64_t ns, double flops,
                      double bytes) {
  Profile &p = profile();
  if (id < 0 || id >= p.count.load(std::memory_order_acquire))
    return Status::errorAt(nullptr,
                           format("%s: unknown kernel id %d", caller, id));
  LiveKernel &k = p.at(id);
  if (k.ownedByCaller()) {
    LiveKernel::Counters &c = k.mine;
    addOwned<int64_t>(c.calls, 1);
    addOwned(c.totalNs, ns);
    if (flops > 0)
      addOwned(c.flops, flops);
    if (bytes > 0)
      addOwned(c.bytes, bytes);
    return Status();
  }
  LiveKernel::Counters &c = k.others;
  c.calls.fetch_add(1, std::memory_order_relaxed);
  c.totalNs.fetch_add(ns, std::memory_order_relaxed);
  if (flops > 0)
    addTo(c.flops, flops);
  if (bytes > 0)
    addTo(c.bytes, bytes);
  return Status();
}

int64_t tdsl_kernel_end(int32_t id, int64_t start, double flops, double bytes) {
  int64_t end = nowNs();
  exitOnError(addCall("tdsl_kernel_end", id, end - start, flops, bytes), nullptr);
  return end;
}

void tdsl_kernel_record(int32_t id, double ms, double flops, double bytes) {
  int64_t ns = ms > 0 ? int64_t(ms * 1e6 + 0.5) : 0;
  exitOnError(addCall("tdsl_kernel_record", id, ns, flops, bytes), nullptr);
}

void tdsl::rt::setProfileFlushHook(void (*hook)()) { flushHook = hook; }

void tdsl::rt::setProfileRank(int64_t rank, int64_t size) {
  profileRank = rank;
  profileWorld = size;
}

void tdsl_profile_enable(int32_t on) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.enabled = on != 0;
}

void tdsl_profile_set_json(const char *path) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.jsonSet = true;
  p.jsonPath = path ? path : "";
}

void tdsl_profile_report(void) {
  if (void (*hook)() = flushHook.load())
    hook();
  Profile &p = profile();
  std::vector<KernelStats> snapshot;
  int64_t runNs;
  bool enabled;
  std::string jsonPath;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.reported)
      return;
    p.reported = true;
    runNs = nowNs() - p.runStartNs;
    for (int32_t id = 0, n = p.count.load(); id < n; ++id)
      snapshot.push_back(p.at(id).snapshot());
    enabled = p.enabled >= 0 ? p.enabled != 0 : [] {
      const char *env = std::getenv("TDSL_PROFILE");
      return env && *env && std::strcmp(env, "0") != 0;
    }();
    if (p.jsonSet) {
      jsonPath = p.jsonPath;
    } else if (const char *env = std::getenv("TDSL_PROFILE_JSON")) {
      jsonPath = env;
    }
  }
  std::vector<Row> rows = makeRows(snapshot, runNs);
  if (enabled)
    printTable(rows, runNs);
  if (!jsonPath.empty()) {
    // One file per process: `p.json` is `p.rank1.json` for rank 1.
    if (profileRank >= 0) {
      std::string tag = format(".rank%lld", (long long)profileRank);
      size_t dot = jsonPath.rfind('.'), slash = jsonPath.rfind('/');
      if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        jsonPath += tag;
      else
        jsonPath.insert(dot, tag);
    }
    writeJson(jsonPath, rows, runNs);
  }
}

void tdsl_profile_reset(void) {
  Profile &p = profile();
  std::lock_guard<std::mutex> lock(p.mutex);
  for (int32_t id = 0, n = p.count.load(); id < n; ++id)
    p.at(id).clear();
  p.runStartNs = nowNs();
  p.reported = false;
}
