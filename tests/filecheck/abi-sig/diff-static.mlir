// `abi-sig diff` compares the static (meta) fields a JAX export recorded of a dataclass
// (`abi.call`'s `s`, docs/formats.md, "Comparing two versions"), which the records do not
// hold: a field added, removed or of another value breaks (the export was traced with the
// value; a rebuilt result has it), exit status 1. The same module against itself: 0.
// RUN: abi-sig show %s | filecheck %s --check-prefix=SHOW --match-full-lines --strict-whitespace
// RUN: not abi-sig diff %s %S/Inputs/diff-static-new.txt | filecheck %s --match-full-lines --strict-whitespace
// RUN: abi-sig diff %s %s | filecheck %s --check-prefix=SAME --allow-empty

//      SHOW:main(tensor<4xf32>) -> (tensor<4xf32>)
// SHOW-NEXT:  called as main(config: Config(w=float32[4])) -> Out(y=float32[4])
// SHOW-EMPTY:

//      CHECK:breaking: main: argument 0['mode']: static 'train' -> 'eval'
// CHECK-NEXT:breaking: main: argument 0['layers']: removed static 2
// CHECK-NEXT:breaking: main: argument 0['dropout']: added static 0.1
// CHECK-NEXT:breaking: main: result['scale']: static 1.0 -> nan
// CHECK-EMPTY:

// SAME-NOT: {{.}}

func.func @main(%w: tensor<4xf32>) -> tensor<4xf32> attributes {iree.reflection = {abi.call = "{\22args\22:[{\22c\22:[{\22dims\22:[4],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22}],\22k\22:[\22w\22],\22name\22:\22Config\22,\22s\22:[[\22mode\22,{\22t\22:\22const\22,\22type\22:\22str\22,\22value\22:\22train\22}],[\22layers\22,{\22t\22:\22const\22,\22type\22:\22int\22,\22value\22:2}]],\22t\22:\22dataclass\22}],\22kwargs\22:[],\22labels\22:[\22config\22],\22result\22:{\22c\22:[{\22dims\22:[4],\22dtype\22:\22float32\22,\22i\22:0,\22t\22:\22array\22}],\22k\22:[\22y\22],\22name\22:\22Out\22,\22s\22:[[\22scale\22,{\22t\22:\22const\22,\22type\22:\22float\22,\22value\22:1.0}]],\22t\22:\22dataclass\22},\22v\22:1}", iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,4]],\22r\22:[[\22ndarray\22,\22f32\22,1,4]],\22v\22:1}"}} {
  return %w : tensor<4xf32>
}
