; Printer round-trip regressions: constants and attributes the printer once lost.
target datalayout = "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

%struct.S = type { i32, [4 x float] }

@lds = internal addrspace(3) global [64 x float] undef, align 4
@lds2 = internal addrspace(3) global [8 x %struct.S] undef, align 4
@gv = addrspace(1) global double 0x3FEE147AE147AE14, align 8
@tbl = addrspace(4) constant [3 x double] [double 0x3FEE147AE147AE14, double 3.000000e-01, double 0x4132D68700000000], align 8
@ptrs = addrspace(1) global [2 x ptr addrspace(3)] [ptr addrspace(3) getelementptr inbounds ([64 x float], ptr addrspace(3) @lds, i32 0, i32 8), ptr addrspace(3) @lds], align 8

declare void @llvm.amdgcn.s.barrier() #1
declare void @ext(ptr nocapture readonly, ptr addrspace(3) noundef) #2
declare float @llvm.fma.f32(float, float, float)

define amdgpu_kernel void @k(ptr addrspace(1) nocapture %out, double %d, float %f) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %a = fmul double %d, 0x3FEE147AE147AE14
  %b = fadd double %a, 9.400000e-01
  %c = fmul float %f, 0x3FB99999A0000000
  %g = getelementptr inbounds [64 x float], ptr addrspace(3) @lds, i32 0, i32 %tid
  store float %c, ptr addrspace(3) %g, align 4
  store float 1.000000e+00, ptr addrspace(3) getelementptr inbounds ([64 x float], ptr addrspace(3) @lds, i32 0, i32 3), align 4
  %l = load float, ptr addrspace(3) getelementptr inbounds ([8 x %struct.S], ptr addrspace(3) @lds2, i32 0, i32 2, i32 1, i32 3), align 4
  %p = addrspacecast ptr addrspace(3) getelementptr ([64 x float], ptr addrspace(3) @lds, i32 0, i32 5) to ptr
  call void @ext(ptr nocapture readonly %p, ptr addrspace(3) noundef getelementptr inbounds ([64 x float], ptr addrspace(3) @lds, i32 0, i32 1)) #3
  call void @llvm.amdgcn.s.barrier()
  %v = insertelement <2 x double> <double 0x3FEE147AE147AE14, double 0x3FEE147AE147AE14>, double %b, i32 0
  %s = extractelement <2 x double> %v, i32 1
  %fm = call float @llvm.fma.f32(float %l, float 0x3FEE147AE0000000, float -0.000000e+00)
  %x = fadd double %s, 1.234567e+06
  store double %x, ptr addrspace(1) %out, align 8
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()

attributes #0 = { convergent nounwind "amdgpu-flat-work-group-size"="1,256" }
attributes #1 = { convergent nocallback nounwind willreturn }
attributes #2 = { nounwind memory(argmem: read) }
attributes #3 = { nounwind }
