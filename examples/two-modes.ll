; Where `--mode llvm` (LLVM's answer) and `--mode precise` (the semantics' answer) differ.
;
;   converge uniformity examples/two-modes.ll                 # LLVM 22's answer
;   converge uniformity --mode precise examples/two-modes.ll  # the semantics' answer
;   converge explain --mode precise --value %which examples/two-modes.ll   # with a witness
;
; @first_hit: threads leave the loop in different iterations (the exit test reads the thread id).
; - %per.iter uses %x after the divergent exit, inside the convergence region of the loop heart
;   %t (the readfirstlane after it uses %t): only threads of the same iteration are converged
;   there ("Convergent Operation Semantics", Temporal Divergence at Cycle Exit), so it is uniform.
;   LLVM ignores tokens and calls it divergent. %after is past the last use of %t: divergent.
target triple = "amdgcn-amd-amdhsa"

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.readfirstlane.i32(i32)
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()

define amdgpu_kernel void @first_hit(i32 %n) convergent {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %quarter = lshr i32 %tid, 2
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %latch ]
  %t = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %x = mul i32 %i, %n
  %i.next = add i32 %i, 1
  %found = icmp uge i32 %i, %quarter
  br i1 %found, label %hit, label %latch
hit:
  br label %done
latch:
  %more = icmp ult i32 %i.next, 3
  br i1 %more, label %loop, label %done
done:
  %per.iter = add i32 %x, 1
  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %per.iter) [ "convergencectrl"(token %t) ]
  br label %tail
tail:
  %after = add i32 %x, 2
  ret void
}

; @exit_phi: odd iterations may leave through %A (threads whose id is below 2), even ones through
; %C. %ph = phi [1, %A], [2, %C]: LLVM 19 and 22 call it uniform (they mark an exit phi only when
; an incoming value is defined in the loop), but threads meet in %X with 1 and 2
; (docs/llvm-differences.md entry 2). Precise: divergent.
define amdgpu_kernel void @exit_phi(i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %H
H:
  %i = phi i32 [ 0, %entry ], [ %i.next, %B ], [ %i.next2, %C ]
  %odd = and i32 %i, 1
  %h = icmp eq i32 %odd, 0
  br i1 %h, label %A, label %C
A:
  %div = icmp ult i32 %tid, 2
  br i1 %div, label %X, label %B
B:
  %i.next = add i32 %i, 1
  br label %H
C:
  %i.next2 = add i32 %i, 1
  %u = icmp slt i32 %i.next2, %n
  br i1 %u, label %H, label %X
X:
  %ph = phi i32 [ 1, %A ], [ 2, %C ]
  ret void
}
