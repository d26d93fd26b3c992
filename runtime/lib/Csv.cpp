//===- Csv.cpp - Reading CSV files, gzipped or not, into tensors ----------===//
//
// A CSV file is a table of numbers: one row per line, values separated by
// commas, the same count on every line (blank lines are skipped). A file
// that starts with gzip's magic bytes is decompressed with zlib, which is
// loaded when first needed (like libcuda), so the library links no zlib.
// Errors name the file's line and column.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <vector>

using namespace tdsl::rt;

namespace {

/// The three zlib functions the reader needs (gzread also reads files that
/// are not compressed, but plain files never need zlib).
struct Zlib {
  void *(*open)(const char *, const char *) = nullptr;
  int (*read)(void *, void *, unsigned) = nullptr;
  int (*close)(void *) = nullptr;
};

const Zlib *zlib() {
  static const Zlib *loaded = [] () -> const Zlib * {
    void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
      return nullptr;
    static Zlib z;
    z.open = reinterpret_cast<void *(*)(const char *, const char *)>(
        dlsym(h, "gzopen"));
    z.read = reinterpret_cast<int (*)(void *, void *, unsigned)>(
        dlsym(h, "gzread"));
    z.close = reinterpret_cast<int (*)(void *)>(dlsym(h, "gzclose"));
    return z.open && z.read && z.close ? &z : nullptr;
  }();
  return loaded;
}

StatusOr<std::string> readGzip(const char *path) {
  const Zlib *z = zlib();
  if (!z)
    return Status::error("it is gzip-compressed and libz.so.1 (zlib) could "
                         "not be loaded");
  void *f = z->open(path, "rb");
  if (!f)
    return Status::error(std::strerror(errno ? errno : EIO));
  std::string text;
  char buffer[1 << 16];
  int n;
  while ((n = z->read(f, buffer, sizeof(buffer))) > 0)
    text.append(buffer, size_t(n));
  // gzread ends a cut stream as if it were whole; gzclose tells (Z_BUF_ERROR:
  // the last read ended inside the stream).
  constexpr int kZBufError = -5;
  int closed = z->close(f);
  if (n < 0)
    return Status::error("its gzip data is corrupt");
  if (closed == kZBufError)
    return Status::error("its gzip data is truncated");
  return text;
}

StatusOr<std::string> readFile(const char *path) {
  FILE *f = std::fopen(path, "rb");
  if (!f)
    return Status::error(std::strerror(errno));
  unsigned char magic[2] = {0, 0};
  size_t got = std::fread(magic, 1, 2, f);
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    std::fclose(f);
    return readGzip(path);
  }
  std::string text(reinterpret_cast<char *>(magic), got);
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0)
    text.append(buffer, n);
  bool failed = std::ferror(f);
  std::fclose(f);
  if (failed)
    return Status::error(std::strerror(EIO));
  return text;
}

/// A field's number: as a double, and exactly when it is written as an
/// integer (digits, perhaps followed by `.` and zeros) that fits in 64 bits
/// (a double holds integers exactly only up to 2^53). `tooBig`: written as
/// an integer beyond 64 bits; `exact` is then its text's index in the
/// parse's list of such texts.
struct Number {
  double value;
  bool isInt;
  bool tooBig;
  int64_t exact;
};

/// Whether `field` is written as an integer: a sign, digits, and perhaps
/// `.` and zeros, between blanks. `digits` gets the sign and digits.
bool isIntegerText(const std::string &field, std::string &digits) {
  size_t b = field.find_first_not_of(" \t"), e = field.find_last_not_of(" \t");
  if (b == std::string::npos)
    return false;
  std::string t = field.substr(b, e - b + 1);
  size_t dot = t.find('.');
  if (dot != std::string::npos) {
    if (t.find_first_not_of('0', dot + 1) != std::string::npos)
      return false;
    t.resize(dot);
  }
  size_t first = !t.empty() && (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (t.size() == first || t.find_first_not_of("0123456789", first) != std::string::npos)
    return false;
  digits = t;
  return true;
}

/// Parses `text` into rows of numbers; `lines` gets each row's line.
Status parse(const std::string &text, std::vector<Number> &values,
             std::vector<int64_t> &lines, std::vector<std::string> &bigTexts,
             int64_t &rows, int64_t &cols) {
  rows = 0;
  cols = -1;
  size_t pos = 0;
  for (int64_t line = 1; pos < text.size(); ++line) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    std::string row = text.substr(pos, end - pos);
    pos = end + 1;
    if (!row.empty() && row.back() == '\r')
      row.pop_back();
    if (row.find_first_not_of(" \t") == std::string::npos)
      continue;
    int64_t count = 0;
    for (size_t start = 0;;) {
      size_t comma = row.find(',', start);
      std::string field =
          row.substr(start, comma == std::string::npos ? std::string::npos
                                                       : comma - start);
      const char *b = field.c_str();
      char *stop = nullptr;
      errno = 0;
      double v = std::strtod(b, &stop);
      while (stop && (*stop == ' ' || *stop == '\t'))
        ++stop;
      if (stop == b || *stop || field.find_first_not_of(" \t") ==
                                    std::string::npos)
        return Status::error(format("line %lld, column %lld: '%s' is not a "
                                    "number",
                                    (long long)line, (long long)count + 1,
                                    field.c_str()));
      std::string digits;
      Number number{v, false, false, 0};
      if (isIntegerText(field, digits)) {
        errno = 0;
        long long exact = std::strtoll(digits.c_str(), nullptr, 10);
        if (errno == ERANGE) {
          number.tooBig = true;
          number.exact = int64_t(bigTexts.size());
          bigTexts.push_back(digits);
        } else {
          number.isInt = true;
          number.exact = exact;
        }
      }
      values.push_back(number);
      ++count;
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
    if (cols >= 0 && count != cols)
      return Status::error(format("line %lld has %lld values, but the first "
                                  "row has %lld",
                                  (long long)line, (long long)count,
                                  (long long)cols));
    cols = count;
    lines.push_back(line);
    ++rows;
  }
  if (rows == 0)
    return Status::error("the file has no rows");
  return Status();
}

/// Stores `v` as element `i` of a buffer of `dtype`; the value was read at
/// `line`, `column` of the file.
Status store(void *data, int64_t i, int32_t dtype, const Number &n,
             const std::vector<std::string> &bigTexts, int64_t line,
             int64_t column) {
  double v = n.value;
  auto where = [&] {
    return format("line %lld, column %lld: ", (long long)line,
                  (long long)column);
  };
  switch (dtype) {
  case TDSL_F32:
    static_cast<float *>(data)[i] = float(v);
    return Status();
  case TDSL_F64:
    static_cast<double *>(data)[i] = v;
    return Status();
  case TDSL_I32:
  case TDSL_I64: {
    if (n.isInt) {
      if (dtype == TDSL_I32 && (n.exact < INT32_MIN || n.exact > INT32_MAX))
        return Status::error(where() + format("%lld is out of the range of i32",
                                              (long long)n.exact));
      if (dtype == TDSL_I32)
        static_cast<int32_t *>(data)[i] = int32_t(n.exact);
      else
        static_cast<int64_t *>(data)[i] = n.exact;
      return Status();
    }
    if (n.tooBig)
      return Status::error(where() + format("%s is out of the range of %s",
                                            bigTexts[n.exact].c_str(),
                                            dtypeName(dtype).c_str()));
    double limit = dtype == TDSL_I32 ? 2147483648.0 : 9223372036854775808.0;
    if (v != std::floor(v) || v < -limit || v >= limit)
      return Status::error(
          where() + format(v == std::floor(v) && std::fabs(v) < 1e30
                               ? "%.0f is out of the range of %s"
                               : "%g is not an %s",
                           v, dtypeName(dtype).c_str()));
    if (dtype == TDSL_I32)
      static_cast<int32_t *>(data)[i] = int32_t(v);
    else
      static_cast<int64_t *>(data)[i] = int64_t(v);
    return Status();
  }
  default:
    return Status::errorAt(nullptr, "tdsl_csv_shape: " + dtypeName(dtype) +
                                        " tensors cannot be read from CSV");
  }
}

} // namespace

Status tdsl::rt::loadCsv(const char *path, int32_t dtype, int64_t *sizesOut,
                         void **dataOut) {
  std::string what = format("cannot load '%s'", path ? path : "");
  auto prefixed = [&](const Status &s) {
    return s.ok() || s.hasWhere() ? s : Status::error(what + ": " + s.message());
  };
  StatusOr<std::string> text = readFile(path ? path : "");
  if (!text.ok())
    return prefixed(text.status());
  std::vector<Number> values;
  std::vector<int64_t> lines;
  std::vector<std::string> bigTexts;
  int64_t rows, cols;
  if (Status s = parse(*text, values, lines, bigTexts, rows, cols); !s.ok())
    return prefixed(s);
  StatusOr<void *> data = allocate(rows * cols * tdsl_dtype_size(dtype));
  TDSL_TRY(data.status());
  for (int64_t i = 0; i < rows * cols; ++i)
    if (Status s = store(*data, i, dtype, values[i], bigTexts, lines[i / cols],
                         i % cols + 1);
        !s.ok()) {
      tdsl_free(*data);
      return prefixed(s);
    }
  sizesOut[0] = rows;
  sizesOut[1] = cols;
  *dataOut = *data;
  return Status();
}
