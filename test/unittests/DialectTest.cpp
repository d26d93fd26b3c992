//===- DialectTest.cpp - Builders of the tdsl dialect -------------------------===//
#include "dialects/TDSL/IR/TDSLDialect.h"
#include "dialects/TDSL/IR/TDSLOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

/// Builds `tdsl.add` on block arguments of the given types with the
/// inferring builder and returns its result type, after the verifier.
class BinaryInference : public ::testing::Test {
protected:
  BinaryInference() : b(&ctx) {
    ctx.loadDialect<tdsl::ir::TDSLDialect, func::FuncDialect>();
    module = ModuleOp::create(b.getUnknownLoc());
  }
  Type inferAdd(Type lhs, Type rhs) {
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, b.getUnknownLoc(), "f",
                                   b.getFunctionType({lhs, rhs}, {}));
    Block *body = fn.addEntryBlock();
    b.setInsertionPointToStart(body);
    auto add = tdsl::ir::AddOp::create(b, b.getUnknownLoc(), body->getArgument(0),
                                   body->getArgument(1));
    func::ReturnOp::create(b, b.getUnknownLoc());
    EXPECT_TRUE(succeeded(add.verify()));
    return add.getType();
  }
  Type tensor(ArrayRef<int64_t> shape, Type elem) {
    return RankedTensorType::get(shape, elem);
  }
  MLIRContext ctx;
  OpBuilder b;
  OwningOpRef<ModuleOp> module;
};

TEST_F(BinaryInference, TrailingDimensionsBroadcast) {
  Type f32 = b.getF32Type();
  EXPECT_EQ(inferAdd(tensor({4, 3}, f32), tensor({3}, f32)), tensor({4, 3}, f32));
  EXPECT_EQ(inferAdd(tensor({3}, f32), tensor({4, 1}, f32)), tensor({4, 3}, f32));
}

TEST_F(BinaryInference, ScalarsStretch) {
  Type f64 = b.getF64Type();
  EXPECT_EQ(inferAdd(f64, tensor({ShapedType::kDynamic, 2}, f64)),
            tensor({ShapedType::kDynamic, 2}, f64));
  EXPECT_EQ(inferAdd(f64, f64), f64);
}

TEST_F(BinaryInference, UnknownExtentTakesTheKnownOne) {
  // `?` is either 1 or the other extent.
  Type i64 = b.getI64Type();
  EXPECT_EQ(inferAdd(tensor({ShapedType::kDynamic}, i64), tensor({5}, i64)),
            tensor({5}, i64));
  EXPECT_EQ(inferAdd(tensor({ShapedType::kDynamic}, i64),
                     tensor({ShapedType::kDynamic}, i64)),
            tensor({ShapedType::kDynamic}, i64));
}

} // namespace
