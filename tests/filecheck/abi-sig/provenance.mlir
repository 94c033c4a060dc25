// `abi.provenance`: `abi-sig show --provenance` prints how a module was made (once for the
// module when its functions agree); `abi-sig diff` says what changed of it — compiler,
// target, iree-compile flags, framework versions — as information: exit status 0, nothing
// breaks. A malformed entry is the function's read error.
// RUN: abi-sig show --provenance %s | filecheck %s --check-prefix=SHOW --match-full-lines --strict-whitespace
// RUN: abi-sig diff %s %S/Inputs/provenance-new.txt | filecheck %s --check-prefix=DIFF --match-full-lines --strict-whitespace
// RUN: abi-sig show --provenance %S/../../../examples/structured.mlir | filecheck %s --check-prefix=NONE --match-full-lines
// RUN: not abi-sig show %S/Inputs/provenance-malformed.txt 2>&1 | filecheck %s --check-prefix=BAD --match-full-lines

//      SHOW:predict(tensor<4xf32>) -> (tensor<4xf32>)
// SHOW-NEXT:provenance:
// SHOW-NEXT:  made by abi-compiler 0.1.0 with IREE's compiler 3.13.0, target host
// SHOW-NEXT:  iree-compile flags: --iree-hal-target-device=local --iree-llvmcpu-target-cpu=host
// SHOW-NEXT:  input: predict: torch (iree-turbine 3.9.0, torch 2.13.0), sha256 of the serialized program 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
// SHOW-EMPTY:

//      DIFF:info: IREE compiler: 3.13.0 -> 3.14.0
// DIFF-NEXT:info: target: host -> znver4
// DIFF-NEXT:info: iree-compile flags: added --iree-opt-level=O3
// DIFF-NEXT:info: torch: 2.13.0 -> 2.15.0
// DIFF-EMPTY:

// NONE:provenance: none recorded

// BAD:{{.*}}provenance-malformed.txt:1:1: error: @predict: malformed reflection 'abi.provenance': abi.provenance: unsupported version 2 (expected 1)

func.func @predict(%x: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {abi.provenance = "{\22abi-compiler\22:\220.1.0\22,\22flags\22:[\22--iree-hal-target-device=local\22,\22--iree-llvmcpu-target-cpu=host\22],\22inputs\22:[{\22entry\22:\22predict\22,\22frontend\22:\22torch\22,\22kind\22:\22program\22,\22sha256\22:\220123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\22,\22versions\22:{\22iree-turbine\22:\223.9.0\22,\22torch\22:\222.13.0\22}}],\22iree-compiler\22:\223.13.0\22,\22target\22:\22host\22,\22v\22:1}", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}} {
  func.return %x : tensor<4xf32>
}
