// `abi-sig diff` compares the state each function uses (`abi.state`, docs/formats.md,
// "Comparing two versions"): a global a function uses added or removed, its shape, dtype
// or (without them) its type changed, a function that now writes a global it only read.
// Every such change breaks: exit status 1. The same module against itself: nothing, 0.
// RUN: not abi-sig diff %s %S/Inputs/diff-state-new.txt | filecheck %s --match-full-lines --strict-whitespace
// RUN: not abi-sig diff %S/Inputs/diff-state-new.txt %s | filecheck %s --check-prefix=BACK --match-full-lines --strict-whitespace
// RUN: not abi-sig diff --format json %s %S/Inputs/diff-state-new.txt | filecheck %s --check-prefix=JSON
// RUN: abi-sig diff %s %s | filecheck %s --check-prefix=SAME --allow-empty

//      CHECK:breaking: step: state @cache: shape 4x8 -> 8x8
// CHECK-NEXT:breaking: step: state @count: removed int32[] (reads, writes)
// CHECK-NEXT:breaking: step: state @pos: added int64[] (reads, writes)
// CHECK-NEXT:breaking: calls: state @count: access reads -> reads, writes
// CHECK-NEXT:breaking: calls: state @scale: dtype float32 -> float16
// CHECK-NEXT:breaking: handle: state @h: type !util.list<?> -> !util.list<f32>
// CHECK-NEXT:breaking: pure: state @cache: added float32[8,8] (reads)
// CHECK-EMPTY:

//      BACK:breaking: step: state @cache: shape 8x8 -> 4x8
// BACK-NEXT:breaking: step: state @pos: removed int64[] (reads, writes)
// BACK-NEXT:breaking: step: state @count: added int32[] (reads, writes)
// BACK-NEXT:breaking: calls: state @count: access reads, writes -> reads
// BACK-NEXT:breaking: calls: state @scale: dtype float16 -> float32
// BACK-NEXT:breaking: handle: state @h: type !util.list<f32> -> !util.list<?>
// BACK-NEXT:breaking: pure: state @cache: removed float32[8,8] (reads)
// BACK-EMPTY:

// JSON:      "function": "step",
// JSON-NEXT: "line": "breaking: step: state @cache: shape 4x8 -> 8x8",
// JSON-NEXT: "new": "8x8",
// JSON-NEXT: "old": "4x8",
// JSON-NEXT: "path": [
// JSON-NEXT:   "cache"
// JSON-NEXT: ],
// JSON-NEXT: "severity": "breaking",
// JSON-NEXT: "side": "state",
// JSON-NEXT: "what": "shape"

// SAME-NOT: {{.}}

func.func @step(%x: tensor<8xf32>) attributes {iree.reflection = {abi.state = "{\22v\22:1,\22globals\22:[{\22name\22:\22cache\22,\22type\22:\22tensor<4x8xf32>\22,\22dtype\22:\22float32\22,\22shape\22:[4,8],\22access\22:\22rw\22},{\22name\22:\22count\22,\22type\22:\22tensor<i32>\22,\22dtype\22:\22int32\22,\22shape\22:[],\22access\22:\22rw\22}]}", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,8]],\22r\22:[],\22v\22:1}"}} {
  return
}
func.func @calls() attributes {iree.reflection = {abi.state = "{\22v\22:1,\22globals\22:[{\22name\22:\22count\22,\22type\22:\22tensor<i32>\22,\22dtype\22:\22int32\22,\22shape\22:[],\22access\22:\22r\22},{\22name\22:\22scale\22,\22type\22:\22tensor<8xf32>\22,\22dtype\22:\22float32\22,\22shape\22:[8],\22access\22:\22r\22}]}", iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:1}"}} {
  return
}
func.func @handle() attributes {iree.reflection = {abi.state = "{\22v\22:1,\22globals\22:[{\22name\22:\22h\22,\22type\22:\22!util.list<?>\22,\22dtype\22:null,\22shape\22:null,\22access\22:\22r\22}]}", iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:1}"}} {
  return
}
func.func @pure() attributes {iree.reflection = {iree.abi = "{\22a\22:[],\22r\22:[],\22v\22:1}"}} {
  return
}
