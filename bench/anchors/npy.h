// npy.h - reads the .npy files that bench/suite.py writes (little-endian,
// C order, format versions 1-3) for the C++ anchors of the benchmark suite.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct NpyArray {
  std::string descr;            // "<f4", "<f8", "<i8", ...
  std::vector<int64_t> shape;
  std::vector<char> data;
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  template <class T> T *as() { return reinterpret_cast<T *>(data.data()); }
};

[[noreturn]] inline void npyFail(const std::string &path, const char *why) {
  std::fprintf(stderr, "%s: %s\n", path.c_str(), why);
  std::exit(1);
}

inline NpyArray npyLoad(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    npyFail(path, "cannot open");
  char magic[8];
  if (std::fread(magic, 1, 8, f) != 8 || std::memcmp(magic, "\x93NUMPY", 6))
    npyFail(path, "not an .npy file");
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    uint16_t n;
    if (std::fread(&n, 2, 1, f) != 1)
      npyFail(path, "short header");
    headerLen = n;
  } else if (std::fread(&headerLen, 4, 1, f) != 1) {
    npyFail(path, "short header");
  }
  std::string header(headerLen, '\0');
  if (std::fread(header.data(), 1, headerLen, f) != headerLen)
    npyFail(path, "short header");
  NpyArray a;
  auto field = [&](const char *key) {
    size_t at = header.find(key);
    if (at == std::string::npos)
      npyFail(path, "header without a needed key");
    return header.find(':', at) + 1;
  };
  size_t d = header.find('\'', field("'descr'")) + 1;
  a.descr = header.substr(d, header.find('\'', d) - d);
  if (header.find("True", field("'fortran_order'")) <
      header.find(',', field("'fortran_order'")))
    npyFail(path, "Fortran order is not supported");
  size_t s = header.find('(', field("'shape'")) + 1;
  size_t e = header.find(')', s);
  std::string dims = header.substr(s, e - s);
  for (size_t p = 0; p < dims.size();) {
    while (p < dims.size() && (dims[p] == ' ' || dims[p] == ','))
      ++p;
    if (p >= dims.size())
      break;
    a.shape.push_back(std::strtoll(dims.c_str() + p, nullptr, 10));
    while (p < dims.size() && dims[p] != ',')
      ++p;
  }
  size_t elem = std::strtoul(a.descr.c_str() + 2, nullptr, 10);
  a.data.resize(size_t(a.size()) * elem);
  if (std::fread(a.data.data(), 1, a.data.size(), f) != a.data.size())
    npyFail(path, "short data");
  std::fclose(f);
  return a;
}
