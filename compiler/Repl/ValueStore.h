//===- ValueStore.h - Where a tdsl-repl session keeps its values ----------===//
//
// The values of a session's bindings live in a private directory in shared
// memory (in $TDSL_REPL_STORE if set, else /dev/shm when there is one, else
// the temporary directory): one .npy file per tensor, one per
// field of a model. The session process never runs user code, so a crash of
// the child that ran an input cannot touch them; a child writes the values
// its input binds under names of its own (`<serial>-<name>`), and the session
// makes them current only when the child succeeded.
//
// With --target=cuda the values that inputs bind stay in GPU memory, held
// by the keeper process (runtime/lib/cuda/DeviceKeeper.h), each with a
// descriptor file `gpu-<serial>-<name>.npy` here; a value moves to the
// other side (upload, download) only when an input there reads it.
//
//===----------------------------------------------------------------------===//
#ifndef TDSL_REPL_VALUESTORE_H
#define TDSL_REPL_VALUESTORE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tdsl {

/// What a .npy header says.
struct NpyInfo {
  std::string descr;
  /// The TDSL element type of `descr` ("f32"), or "" when there is none.
  std::string elem;
  std::vector<int64_t> shape;
  bool fortranOrder = false;
  int64_t dataBytes = 0;
};

/// Deletes every store of the process; safe in a signal handler (it calls
/// getdents64, unlinkat and rmdir on descriptors opened beforehand).
void removeValueStores();

/// In a process the session forks (an input's child, the keeper): the
/// default action for every signal the session handles, so that a crash
/// is the process's own and not the session's cleanup (which would delete
/// the store).
void restoreDefaultSignals();

/// Reads the header of a .npy file; with `headerOnly` its data may be
/// missing (a device value's descriptor).
llvm::Expected<NpyInfo> readNpyHeader(llvm::StringRef path,
                                      bool headerOnly = false);

class ValueStore {
public:
  /// One live binding.
  struct Value {
    /// Its type as written in a `load`: `f32[?, 3]`, `Mlp`, `i64`.
    std::string type;
    /// The .npy file, or for a model the prefix of its field files.
    std::string path;
    enum Kind { Tensor, Scalar, Model } kind = Tensor;
    /// bf16 has no .npy dtype: such values are stored as f32 (exactly).
    bool viaF32 = false;
    /// For a model: `name:type;` per field, to notice a changed definition.
    std::string fields;
    /// Where the value was computed (in an earlier input's buffer).
    llvm::SMLoc origin;
    /// Where its data is: host files (`path`), GPU memory (devicePath), or
    /// both once it moved.
    bool onHost = true;
    bool onDevice = false;
  };

  ValueStore() = default;
  ValueStore(const ValueStore &) = delete;
  ValueStore &operator=(const ValueStore &) = delete;
  ~ValueStore();

  /// A new serial for the files of one input (creates the directory first).
  llvm::Expected<unsigned> begin();
  /// Where input `serial` writes the value of `name`.
  std::string pathFor(unsigned serial, llvm::StringRef name,
                      Value::Kind kind) const;
  /// Makes `value` (written by input `serial`) the value of `name`.
  void commit(llvm::StringRef name, Value value);
  /// Deletes what input `serial` wrote (it failed).
  void discard(unsigned serial);
  /// Deletes the value of `name`; false when there is none.
  bool forget(llvm::StringRef name);
  void clear();

  const std::map<std::string, Value> &values() const { return live; }
  const Value *lookup(llvm::StringRef name) const;
  /// The files of a value: its .npy file, or one per field of a model
  /// (field name -> path); with `device`, its descriptors instead.
  std::vector<std::pair<std::string, std::string>>
  files(const Value &v, bool device = false) const;
  /// Bytes of a value's elements (headers left out).
  int64_t bytes(const Value &v) const;

  /// Where the libtdsl_runtime that holds the keeper is.
  void setRuntimeDir(llvm::StringRef d) { runtimeDir = d.str(); }
  /// Whether values can be kept on the GPU: starts the keeper the first
  /// time, and says false for good when it cannot start (no GPU).
  bool deviceAvailable();
  /// The path (prefix for a model) of the GPU copy of a value at `path`.
  std::string devicePath(llvm::StringRef path) const;
  /// $TDSL_REPL_DEVICE_STORE for the children: what devicePath starts with.
  std::string devicePrefix() const;
  /// Copies the value `name` to the device or the host, where it is then
  /// as well.
  llvm::Error moveValue(llvm::StringRef name, bool toDevice);
  /// In a child forked by the session: drops its copy of the keeper's
  /// lifeline, which only the session may hold (the keeper ends with it).
  void leaveKeeperToSession();

private:
  void removeFiles(llvm::StringRef prefix);
  /// Removes the files of a value and frees its GPU memory.
  void removeValue(const Value &v);
  /// Frees the GPU memory of descriptors starting with devicePrefix() +
  /// `prefix`.
  void freeDevice(llvm::StringRef prefix);
  llvm::Error askKeeper(const std::string &request);
  void stopKeeper();
  /// Notices a keeper that died, and drops the values only it held.
  void checkKeeper();

  std::string dir;
  unsigned serial = 0;
  std::map<std::string, Value> live;

  std::string runtimeDir;
  int (*keeperRequest)(const char *, const char *, char *, size_t) = nullptr;
  int keeperPid = 0;
  int lifeline = -1; // the write end of the keeper's lifeline pipe
  bool keeperFailed = false;
};

} // namespace tdsl

#endif // TDSL_REPL_VALUESTORE_H
