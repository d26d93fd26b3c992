//===- Types.cpp - Front-end types of .tdsl values --------------------------===//
#include "compiler/Frontend/Types.h"

using namespace tdsl;

const char *tdsl::getElemKindName(ElemKind k) {
  switch (k) {
  case ElemKind::F16: return "f16";
  case ElemKind::BF16: return "bf16";
  case ElemKind::F32: return "f32";
  case ElemKind::F64: return "f64";
  case ElemKind::I1: return "i1";
  case ElemKind::I32: return "i32";
  case ElemKind::I64: return "i64";
  case ElemKind::U64: return "u64";
  case ElemKind::IntLit: return "integer literal";
  case ElemKind::FloatLit: return "float literal";
  case ElemKind::String: return "string";
  case ElemKind::Void: return "nothing";
  case ElemKind::Model: return "model";
  case ElemKind::Error: return "<error>";
  }
  return "<error>";
}

std::string Dim::str() const {
  switch (kind) {
  case Static: return std::to_string(size);
  case Symbol: return symbol;
  case Dynamic: return "?";
  }
  return "?";
}

std::string Type::str() const {
  if (isModel())
    return modelName;
  std::string s = getElemKindName(elem);
  if (!isTensor)
    return s;
  s += "[";
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += shape[i].str();
  }
  return s + "]";
}
