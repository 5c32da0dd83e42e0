; Convergence control tokens used incorrectly: every function below breaks one static rule of
; "Convergent Operation Semantics", and `converge verify` (like LLVM's verifier) rejects the file
; with exit code 1, naming each violation.
;
;   converge verify examples/tokens-invalid.ll
;   opt -passes=verify -disable-output examples/tokens-invalid.ll

declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()
declare token @llvm.experimental.convergence.anchor()
declare void @sync() convergent

; A cycle uses a token defined outside it, without a `convergence.loop` in its heart: the use
; would tie every iteration to one dynamic instance of the anchor.
define void @token_crosses_cycle(i1 %c) convergent {
entry:
  %t = call token @llvm.experimental.convergence.anchor()
  br label %loop

loop:
  call void @sync() [ "convergencectrl"(token %t) ]
  br i1 %c, label %loop, label %exit

exit:
  ret void
}

; `convergence.entry` may only appear in the entry block of a function.
define void @entry_not_in_entry_block() convergent {
entry:
  br label %next

next:
  %t = call token @llvm.experimental.convergence.entry()
  call void @sync() [ "convergencectrl"(token %t) ]
  ret void
}

; Controlled and uncontrolled convergent operations in one function: the second `@sync` has no
; token, so its convergence would follow the implicit rules while the first is controlled.
define void @mixed() convergent {
entry:
  %t = call token @llvm.experimental.convergence.anchor()
  call void @sync() [ "convergencectrl"(token %t) ]
  call void @sync()
  ret void
}

; Two `convergence.loop` intrinsics in the same cycle, both using the outer token: a cycle has
; one heart. (LLVM reports two static token uses in a cycle without the definition, a loop
; intrinsic after a convergent operation, and regions that are not well nested.)
define void @two_hearts(i1 %c) convergent {
entry:
  %t0 = call token @llvm.experimental.convergence.entry()
  br label %loop

loop:
  %h1 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %t0) ]
  %h2 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %t0) ]
  call void @sync() [ "convergencectrl"(token %h1) ]
  br i1 %c, label %loop, label %exit

exit:
  ret void
}
