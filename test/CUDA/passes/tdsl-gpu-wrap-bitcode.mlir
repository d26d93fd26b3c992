// RUN: tdsl-opt %s --tdsl-gpu-wrap-bitcode | FileCheck %s

// LLVM bitcode objects (format "offload", starting "BC") get the 20-byte
// wrapper header: magic 0x0B17C0DE, version 0, offset 20, size (here 6),
// CPU type 0, all little-endian; PTX objects are left alone.

module attributes {gpu.container_module} {
  gpu.binary @bitcode [#gpu.object<#nvvm.target, offload = "BC\C0\DE\35\14">]
  gpu.binary @ptx [#gpu.object<#nvvm.target, assembly = "// ptx">]
}
// CHECK: gpu.binary @bitcode  [#gpu.object<#nvvm.target, offload = "\DE\C0\17\0B\00\00\00\00\14\00\00\00\06\00\00\00\00\00\00\00BC\C0\DE5\14">]
// CHECK: gpu.binary @ptx  [#gpu.object<#nvvm.target, assembly = "// ptx">]
