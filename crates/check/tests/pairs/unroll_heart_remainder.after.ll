; The loop after partial unrolling by 2 with a remainder.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.anchor()
declare token @llvm.experimental.convergence.loop()
declare i32 @pure.convergent.operation(i32) convergent
declare void @convergent.operation() convergent

define void @k(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %t = add i32 %tid, %n
  %c0 = add i32 %t, 0
  %outer = call token @llvm.experimental.convergence.anchor()
  br label %cond
cond:
  %counter = phi i32 [ %c0, %entry ], [ %dec, %body ]
  %inner = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  %more = icmp sge i32 %counter, 2
  br i1 %more, label %body, label %rem
body:
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  call void @convergent.operation() [ "convergencectrl"(token %inner) ]
  %dec = sub i32 %counter, 2
  br label %cond
rem:
  %left = icmp sgt i32 %counter, 0
  br i1 %left, label %rbody, label %exit
rbody:
  %remainder = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %outer) ]
  call void @convergent.operation() [ "convergencectrl"(token %remainder) ]
  br label %exit
exit:
  ret void
}
