; A function that is not `convergent` with an uncontrolled convergent operation: its threads
; communicate with "an implementation-defined subset of threads within the function body"
; ("Convergent Operation Semantics", Opportunistic convergent operations).
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i64 @llvm.amdgcn.ballot.i64(i1) convergent

define i64 @f(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %tid, %n
  br i1 %c, label %then, label %end
then:
  %b = call i64 @llvm.amdgcn.ballot.i64(i1 true)
  br label %end
end:
  %r = phi i64 [ %b, %then ], [ 0, %entry ]
  ret i64 %r
}
