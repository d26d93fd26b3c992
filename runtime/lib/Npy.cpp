//===- Npy.cpp - Reading and writing numpy .npy files ---------------------===//
// Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include "Internal.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tdsl::rt;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              ".npy data is read and written as little-endian");

namespace {
/// Where a save to `path` goes, and where a load looks first: with
/// $TDSL_SAVE_DIR set (tdslc --compare gives each run its own), under it
/// ("rel/<path>" or "abs<path>"), so that two runs of one program keep
/// their files apart; otherwise `path` itself.
std::string redirected(const char *path) {
  const char *dir = std::getenv("TDSL_SAVE_DIR");
  if (!dir || !*dir || !path)
    return path ? path : "";
  return std::string(dir) + (path[0] == '/' ? "/abs" : "/rel/") + path;
}

bool isDirectory(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

/// Creates the folders above `path` (for a redirected save).
void makeParents(const std::string &path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1))
    mkdir(path.substr(0, slash).c_str(), 0777);
}

/// numpy's descr for each dtype code; bf16 has none.
const char *npyDescr(int32_t dtype) {
  switch (dtype) {
  case TDSL_F16:
    return "<f2";
  case TDSL_F32:
    return "<f4";
  case TDSL_F64:
    return "<f8";
  case TDSL_I1:
    return "|b1";
  case TDSL_I32:
    return "<i4";
  case TDSL_I64:
    return "<i8";
  case TDSL_U64:
    return "<u8";
  default:
    return nullptr;
  }
}

/// " (f64)" when a descr maps to a TDSL dtype, for error messages.
std::string describeDescr(const std::string &descr) {
  for (int32_t d = 0; d < 8; ++d)
    if (const char *s = npyDescr(d); s && descr == s)
      return "'" + descr + "' (" + dtypeName(d) + ")";
  return "'" + descr + "'";
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += format(i ? ", %lld" : "%lld", (long long)shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

struct FileCloser {
  FILE *f;
  ~FileCloser() {
    if (f)
      std::fclose(f);
  }
};

/// The parts of the header dict we use:
///   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// Reads the header dict into `h`, or says what is wrong with it.
Status parseHeader(const std::string &text, NpyHeader &h) {
  auto valueOf = [&](const char *key) -> size_t {
    size_t pos = text.find(key);
    if (pos == std::string::npos)
      return pos;
    pos = text.find(':', pos + std::strlen(key));
    if (pos == std::string::npos)
      return pos;
    return text.find_first_not_of(" \t", pos + 1);
  };
  size_t p = valueOf("'descr'");
  if (p != std::string::npos && text[p] == '[')
    return Status::error("its 'descr' is a structured dtype (a record per "
                         "element); TDSL reads arrays of one numeric type");
  if (p == std::string::npos || (text[p] != '\'' && text[p] != '"'))
    return Status::error("header has no 'descr' string");
  size_t close = text.find(text[p], p + 1);
  if (close == std::string::npos)
    return Status::error("header has an unterminated 'descr'");
  h.descr = text.substr(p + 1, close - p - 1);

  p = valueOf("'fortran_order'");
  if (p == std::string::npos)
    return Status::error("header has no 'fortran_order'");
  h.fortranOrder = text.compare(p, 4, "True") == 0;

  p = valueOf("'shape'");
  if (p == std::string::npos || text[p] != '(')
    return Status::error("header has no 'shape' tuple");
  for (++p;;) {
    p = text.find_first_not_of(" \t,", p);
    if (p == std::string::npos)
      return Status::error("header has an unterminated 'shape'");
    if (text[p] == ')')
      break;
    char *end = nullptr;
    errno = 0;
    long long dim = std::strtoll(text.c_str() + p, &end, 10);
    if (end == text.c_str() + p || dim < 0)
      return Status::error("header has a malformed 'shape'");
    if (errno == ERANGE)
      return Status::error("its shape has a dimension of " +
                           text.substr(p, end - (text.c_str() + p)) +
                           ", too large for any array");
    h.shape.push_back(dim);
    p = end - text.c_str();
  }
  return Status();
}

uint32_t readLE(const unsigned char *p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

/// Reads the magic string, the version and the header dict of a .npy file,
/// leaving `f` at the start of the data.
Status readHeader(FILE *f, NpyHeader &h) {
  unsigned char preamble[12];
  if (std::fread(preamble, 1, 8, f) != 8 ||
      std::memcmp(preamble, "\x93NUMPY", 6) != 0)
    return Status::error("not a .npy file (no \\x93NUMPY magic string)");
  int major = preamble[6], minor = preamble[7];
  if (major < 1 || major > 3)
    return Status::error(format("unsupported .npy format version %d.%d "
                                "(expected 1.0, 2.0 or 3.0)",
                                major, minor));
  int lenBytes = major == 1 ? 2 : 4;
  if (std::fread(preamble + 8, 1, lenBytes, f) != size_t(lenBytes))
    return Status::error("truncated .npy header");
  uint32_t headerLen = readLE(preamble + 8, lenBytes);
  std::string header(headerLen, '\0');
  if (std::fread(header.data(), 1, headerLen, f) != headerLen)
    return Status::error("truncated .npy header");
  if (Status parsed = parseHeader(header, h); !parsed.ok())
    return Status::error("malformed .npy file: " + parsed.message());
  return Status();
}

/// Checks a header against what the program expects; returns the number of
/// bytes of data in `bytes`.
Status checkHeader(const NpyHeader &h, int32_t dtype, int64_t rank,
                   int64_t &bytes) {
  const char *expectedDescr = npyDescr(dtype);
  if (h.descr != expectedDescr)
    return Status::error(format("expected %s data ('%s'), found ",
                                dtypeName(dtype).c_str(), expectedDescr) +
                         describeDescr(h.descr));
  if (h.fortranOrder)
    return Status::error("expected C-order data, found fortran_order: True "
                         "(save it with numpy.ascontiguousarray)");
  if (int64_t(h.shape.size()) != rank)
    return Status::error(
        format("expected a rank-%lld array, found rank %zu with shape ",
               (long long)rank, h.shape.size()) +
        shapeString(h.shape));
  int64_t count = 1;
  for (int64_t dim : h.shape) {
    if (dim && count > INT64_MAX / dim)
      return Status::error("shape " + shapeString(h.shape) + " is too large");
    count *= dim;
  }
  int64_t elemSize = tdsl_dtype_size(dtype);
  if (count > INT64_MAX / elemSize)
    return Status::error("shape " + shapeString(h.shape) + " is too large");
  bytes = count * elemSize;
  return Status();
}

/// Opens the file tdsl_npy_load reads: one saved earlier by this run (under
/// $TDSL_SAVE_DIR) first, else `path` itself.
Status openForLoad(const char *path, FileCloser &file) {
  std::string filePath = path ? path : "";
  if (std::string saved = redirected(path); saved != filePath && exists(saved))
    filePath = saved; // saved earlier by this run
  if (isDirectory(filePath))
    return Status::error("it is a directory, not a .npy file");
  file.f = path ? std::fopen(filePath.c_str(), "rb") : nullptr;
  if (!file.f)
    return Status::error(std::strerror(path ? errno : EINVAL));
  return Status();
}

/// The data of a large array whose file offset is on a page, mapped
/// copy-on-write (writes to the tensor never reach the file): a tensor kept
/// by tdsl-repl costs nothing to read until it is touched. Null when the
/// array is small, unaligned or the map fails (the caller copies then).
void *loadMapped(FILE *f, int64_t bytes) {
  long offset = std::ftell(f);
  struct stat st;
  int fd = fileno(f);
  if (bytes < int64_t(kMapThreshold) || offset < 0 || offset % 4096 != 0 ||
      fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_size < offset + bytes)
    return nullptr;
  return mapFile(fd, offset, size_t(bytes));
}

/// tdsl_npy_load's work, with errors not yet prefixed by the path.
Status load(const char *path, int32_t dtype, int64_t rank, int64_t *sizesOut,
            void **dataOut) {
  if (!npyDescr(dtype))
    return Status::error(dtypeName(dtype) + " tensors have no .npy dtype "
                                            "(numpy has no bfloat16)");
  FileCloser file{nullptr};
  TDSL_TRY(openForLoad(path, file));
  NpyHeader h;
  TDSL_TRY(readHeader(file.f, h));
  int64_t bytes = 0;
  TDSL_TRY(checkHeader(h, dtype, rank, bytes));
  if (void *mapped = loadMapped(file.f, bytes)) {
    for (int64_t d = 0; d < rank; ++d)
      sizesOut[d] = h.shape[d];
    *dataOut = mapped;
    return Status();
  }
  StatusOr<void *> data = allocate(bytes);
  TDSL_TRY(data.status());
  size_t got = std::fread(*data, 1, size_t(bytes), file.f);
  if (int64_t(got) != bytes) {
    tdsl_free(*data);
    return Status::error(
        "file is truncated: shape " + shapeString(h.shape) +
        format(" needs %lld bytes of data, found %zu", (long long)bytes, got));
  }
  for (int64_t d = 0; d < rank; ++d)
    sizesOut[d] = h.shape[d];
  *dataOut = *data;
  return Status();
}

/// Writes the .npy header and the elements of `view` (any strides, copied
/// in row-major order through a bounded buffer); false if a write failed.
/// The magic string, version and padded header dict of a .npy file of
/// `descr` elements, `dataBytes` in all.
std::string headerBytes(const char *descr, const std::vector<int64_t> &shape,
                        int64_t dataBytes) {
  std::string header =
      format("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr,
             shapeString(shape).c_str());
  // numpy pads the header with spaces and a newline so the data starts on a
  // 64-byte boundary; version 2.0 only when the length overflows 16 bits.
  int major = header.size() + 11 + 63 > 65535 ? 2 : 1;
  size_t preamble = major == 1 ? 10 : 12;
  // Large arrays start on a page (a multiple of 64 too), so that a load can
  // map them instead of copying (loadMapped).
  size_t align = dataBytes >= int64_t(kMapThreshold) ? 4096 : 64;
  size_t total = (preamble + header.size() + 1 + align - 1) / align * align;
  header.append(total - preamble - header.size() - 1, ' ');
  header += '\n';
  std::string head("\x93NUMPY", 6);
  head += char(major);
  head += char(0);
  uint32_t len = uint32_t(header.size());
  for (size_t i = 0; i < preamble - 8; ++i)
    head += char((len >> (8 * i)) & 0xff);
  return head + header;
}

bool writeNpy(FILE *f, const MemRefView &view, const char *descr) {
  std::string head = headerBytes(
      descr, std::vector<int64_t>(view.sizes, view.sizes + view.rank),
      view.numElements() * view.elemSize);
  bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();

  int64_t count = view.numElements();
  // Row-major and dense: one write, no copy.
  bool dense = true;
  for (int64_t d = view.rank - 1, expect = 1; d >= 0; expect *= view.sizes[d--])
    dense &= view.sizes[d] == 1 || view.strides[d] == expect;
  if (dense)
    return ok && std::fwrite(view.data + view.offset * view.elemSize,
                             view.elemSize, count, f) == size_t(count);
  std::vector<char> buffer(size_t(std::min<int64_t>(count, 1 << 16)) *
                           view.elemSize);
  RowMajorWalker walker(view, 0);
  for (int64_t done = 0; ok && done < count;) {
    int64_t n = std::min<int64_t>(count - done, 1 << 16);
    for (int64_t i = 0; i < n; ++i, walker.next())
      std::memcpy(buffer.data() + i * view.elemSize, walker.get(),
                  view.elemSize);
    ok = std::fwrite(buffer.data(), view.elemSize, n, f) == size_t(n);
    done += n;
  }
  return ok;
}

/// tdsl_npy_save's work, with errors not yet prefixed by the path.
Status save(const char *path, int32_t dtype, int64_t rank, void *memref) {
  const char *descr = npyDescr(dtype);
  if (!descr)
    return Status::error(dtypeName(dtype) + " tensors have no .npy dtype "
                                            "(numpy has no bfloat16)");
  // Written to a new file beside the target, then renamed over it: a save
  // that fails halfway (a full disk, an error) leaves no partial file and
  // the old one intact.
  if (!path || !*path)
    return Status::error(std::strerror(EINVAL));
  std::string target = redirected(path);
  if (target != path)
    makeParents(target);
  if (isDirectory(target))
    return Status::error("it is a directory");
  static std::atomic<unsigned> serial{0};
  std::string temp = target + format(".tmp%d.%u", int(getpid()), serial++);
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0666);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : nullptr;
  if (!f) {
    int err = errno;
    if (fd >= 0)
      close(fd);
    return Status::error(std::strerror(err));
  }
  bool ok =
      writeNpy(f, MemRefView(memref, rank, tdsl_dtype_size(dtype)), descr);
  if (std::fclose(f) != 0)
    ok = false;
  std::string problem;
  if (!ok)
    problem = std::string("write failed: ") + std::strerror(errno);
  else if (std::rename(temp.c_str(), target.c_str()) != 0)
    problem = std::strerror(errno);
  if (problem.empty())
    return Status();
  std::remove(temp.c_str());
  return Status::error(problem);
}
} // namespace

Status tdsl::rt::loadNpy(const char *path, int32_t dtype, int64_t rank,
                         int64_t *sizesOut, void **dataOut) {
  TDSL_TRY(checkDtypeAndRank(dtype, rank, "tdsl_npy_load"));
  Status status = load(path, dtype, rank, sizesOut, dataOut);
  if (status.ok() || status.hasWhere()) // out of memory: not the file's fault
    return status;
  return Status::error(format("cannot load '%s': ", path ? path : "") +
                       status.message());
}

Status tdsl::rt::saveNpy(const char *path, int32_t dtype, int64_t rank,
                         void *memref) {
  TDSL_TRY(checkDtypeAndRank(dtype, rank, "tdsl_npy_save"));
  Status status = save(path, dtype, rank, memref);
  if (status.ok())
    return status;
  return Status::error(format("cannot save '%s': ", path ? path : "") +
                       status.message());
}

std::string tdsl::rt::npyHeader(int32_t dtype, int64_t rank,
                                const int64_t *sizes) {
  if (!npyDescr(dtype))
    return "";
  int64_t bytes = tdsl_dtype_size(dtype);
  for (int64_t d = 0; d < rank; ++d)
    bytes *= sizes[d];
  return headerBytes(npyDescr(dtype), std::vector<int64_t>(sizes, sizes + rank),
                     bytes);
}

Status tdsl::rt::readNpyInfo(const char *path, int32_t &dtype,
                             std::vector<int64_t> &shape) {
  FileCloser file{nullptr};
  NpyHeader h;
  Status status = openForLoad(path, file);
  if (status.ok())
    status = readHeader(file.f, h);
  dtype = -1;
  for (int32_t d = 0; d < 8 && status.ok(); ++d)
    if (const char *s = npyDescr(d); s && h.descr == s)
      dtype = d;
  if (status.ok() && dtype < 0)
    status = Status::error("no TDSL type holds " + describeDescr(h.descr));
  if (!status.ok())
    return Status::error(format("cannot load '%s': ", path ? path : "") +
                         status.message());
  shape = h.shape;
  return Status();
}

int32_t tdsl_npy_load(const char *path, int32_t dtype, int64_t rank,
                      int64_t *sizesOut, void **dataOut, const char *where) {
  exitOnError(loadNpy(path, dtype, rank, sizesOut, dataOut), where);
  return 0;
}

void tdsl_npy_save(const char *path, int32_t dtype, int64_t rank, void *memref,
                   const char *where) {
  exitOnError(saveNpy(path, dtype, rank, memref), where);
}
