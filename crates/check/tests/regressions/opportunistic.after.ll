; What token inference makes of it: an anchor at the top (not `entry`: the function is not
; `convergent`), the ballot controlled by it.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1) convergent
declare token @llvm.experimental.convergence.anchor()

define i64 @f(i32 %n) {
entry:
  %a = call token @llvm.experimental.convergence.anchor()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, %n
  br i1 %c, label %then, label %end
then:
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true) [ "convergencectrl"(token %a) ]
  br label %end
end:
  %r = phi i64 [ %b, %then ], [ 0, %entry ]
  ret i64 %r
}
