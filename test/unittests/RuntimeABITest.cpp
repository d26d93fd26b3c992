//===- RuntimeABITest.cpp - MLIR types of the runtime's C signatures ------===//
#include "compiler/Codegen/Common/RuntimeCalls.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <gtest/gtest.h>

using namespace tdsl;

namespace {
std::string typeOf(RuntimeFn fn) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::LLVM::LLVMDialect>();
  std::string s;
  llvm::raw_string_ostream os(s);
  getRuntimeFnType(&ctx, fn).print(os);
  return s;
}
} // namespace

TEST(RuntimeABI, CTypesBecomeMLIRTypes) {
  EXPECT_EQ(typeOf(RuntimeFn::tdsl_kernel_begin), "(i32) -> i64");
  EXPECT_EQ(typeOf(RuntimeFn::tdsl_kernel_end), "(i32, i64, f64, f64) -> i64");
  EXPECT_EQ(typeOf(RuntimeFn::tdsl_print_f32), "(f32, !llvm.ptr, i32) -> ()");
  EXPECT_EQ(typeOf(RuntimeFn::tdsl_print_i1), "(i8, !llvm.ptr, i32) -> ()");
  EXPECT_EQ(typeOf(RuntimeFn::tdsl_profile_report), "() -> ()");
  // The loop body is a function value until it is lowered to a pointer.
  EXPECT_EQ(typeOf(RuntimeFn::tdsl_parallel_for),
            "(i64, i64, i64, (i64, i64, !llvm.ptr) -> (), !llvm.ptr) -> ()");
  EXPECT_EQ(typeOf(RuntimeFn::mgpuMemcpy),
            "(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()");
}

TEST(RuntimeABI, NamesAndPrintFunctions) {
  EXPECT_EQ(getRuntimeFnName(RuntimeFn::tdsl_fatal), "tdsl_fatal");
  EXPECT_EQ(getRuntimeFnName(getPrintFn(DType::BF16)), "tdsl_print_bf16");
  EXPECT_EQ(getRuntimeFnName(getPrintFn(DType::U64)), "tdsl_print_u64");
}
