//===- Support.cpp - Errors, formatting, dtypes, memref walking ----------===//
#include "Internal.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

using namespace tdsl::rt;

static std::atomic<void (*)(std::string &)> fatalAnnotate{nullptr};
static std::atomic<void (*)()> fatalAbortAll{nullptr};

void tdsl::rt::setFatalHooks(void (*annotate)(std::string &),
                             void (*abortAll)()) {
  fatalAnnotate = annotate;
  fatalAbortAll = abortAll;
}

void tdsl::rt::fatal(const char *where, const std::string &text) {
  std::string message = text;
  if (auto annotate = fatalAnnotate.load())
    annotate(message);
  // The first error wins: a parallel loop may fail on several threads at
  // once, and exit() from a worker thread would race the others and run
  // exit handlers that wait for those very threads. So: one message, then
  // _exit.
  static std::mutex once;
  once.lock();
  // Flush the program's own output first so the error lands after it.
  std::fflush(stdout);
  // `where` may go on with the source line and a caret (getErrorWhere):
  // those come after the message, as in the compiler's diagnostics.
  std::string place = where ? where : "tdsl";
  size_t eol = place.find('\n');
  std::fprintf(stderr, "%s: error: %s\n", place.substr(0, eol).c_str(),
               message.c_str());
  if (eol != std::string::npos)
    std::fprintf(stderr, "%s\n", place.substr(eol + 1).c_str());
  std::fflush(stderr);
  if (auto abortAll = fatalAbortAll.load())
    abortAll();
  _exit(1);
}

void tdsl::rt::exitOnError(const Status &status, const char *where) {
  if (!status.ok())
    fatal(status.hasWhere() ? status.where() : where, status.message());
}

std::string tdsl::rt::format(const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(n > 0 ? n : 0, '\0');
  if (n > 0)
    std::vsnprintf(out.data(), n + 1, fmt, args);
  va_end(args);
  return out;
}

std::string tdsl::rt::dtypeName(int32_t dtype) {
  static const char *const names[] = {"f16", "bf16", "f32", "f64",
                                      "i1",  "i32",  "i64", "u64"};
  if (dtype >= 0 && dtype < 8)
    return names[dtype];
  return format("dtype %d", dtype);
}

Status tdsl::rt::checkDtypeAndRank(int32_t dtype, int64_t rank,
                                   const char *what) {
  if (tdsl_dtype_size(dtype) == 0)
    return Status::errorAt(nullptr,
                           format("%s: invalid dtype code %d", what, dtype));
  if (rank < 0)
    return Status::errorAt(
        nullptr, format("%s: invalid rank %lld", what, (long long)rank));
  return Status();
}

MemRefView::MemRefView(void *desc, int64_t rank, int64_t elemSize)
    : rank(rank), elemSize(elemSize) {
  // Layout: T *allocated; T *aligned; int64_t offset, sizes[], strides[].
  auto *ptrs = static_cast<char **>(desc);
  data = ptrs[1];
  auto *ints = reinterpret_cast<const int64_t *>(ptrs + 2);
  offset = ints[0];
  sizes = ints + 1;
  strides = ints + 1 + rank;
}

int64_t MemRefView::numElements() const {
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}

char *MemRefView::at(const int64_t *index) const {
  int64_t e = offset;
  for (int64_t d = 0; d < rank; ++d)
    e += index[d] * strides[d];
  return data + e * elemSize;
}

RowMajorWalker::RowMajorWalker(const MemRefView &view, int64_t linear)
    : view(view), index(view.rank) {
  for (int64_t d = view.rank - 1; d >= 0; --d) {
    int64_t size = view.sizes[d];
    index[d] = size ? linear % size : 0;
    linear = size ? linear / size : 0;
  }
  ptr = view.at(index.data());
}

void RowMajorWalker::next() {
  for (int64_t d = view.rank - 1; d >= 0; --d) {
    ptr += view.strides[d] * view.elemSize;
    if (++index[d] < view.sizes[d])
      return;
    ptr -= index[d] * view.strides[d] * view.elemSize;
    index[d] = 0;
  }
}
