// The functions tests/calling/ compiles and calls (through both pipelines): one per record
// kind of the V1 grammar, plus index-path (SIP) structures for the legacy ABI.

// Every element type the runtime maps to numpy (bf16 through ml_dtypes), static dims.
func.func @elements(%i1: tensor<2xi1>, %i8: tensor<2xi8>, %i16: tensor<2xi16>, %i32: tensor<2xi32>, %i64: tensor<2xi64>, %f16: tensor<2xf16>, %f32: tensor<2xf32>, %f64: tensor<2xf64>, %bf16: tensor<2xbf16>) -> (tensor<2xi1>, tensor<2xi8>, tensor<2xi16>, tensor<2xi32>, tensor<2xi64>, tensor<2xf16>, tensor<2xf32>, tensor<2xf64>, tensor<2xbf16>) {
  %r1 = arith.xori %i1, %i1 : tensor<2xi1>
  %r8 = arith.addi %i8, %i8 : tensor<2xi8>
  %r16 = arith.addi %i16, %i16 : tensor<2xi16>
  %r32 = arith.addi %i32, %i32 : tensor<2xi32>
  %r64 = arith.addi %i64, %i64 : tensor<2xi64>
  %h = arith.addf %f16, %f16 : tensor<2xf16>
  %s = arith.addf %f32, %f32 : tensor<2xf32>
  %d = arith.addf %f64, %f64 : tensor<2xf64>
  %b = arith.addf %bf16, %bf16 : tensor<2xbf16>
  func.return %r1, %r8, %r16, %r32, %r64, %h, %s, %d, %b : tensor<2xi1>, tensor<2xi8>, tensor<2xi16>, tensor<2xi32>, tensor<2xi64>, tensor<2xf16>, tensor<2xf32>, tensor<2xf64>, tensor<2xbf16>
}

// Dynamic dims, rank 0, a zero-size dim.
func.func @shapes(%d: tensor<?x3xf32>, %s: tensor<f64>, %e: tensor<0xi32>) -> (tensor<?x3xf32>, tensor<f64>, tensor<0xi32>) {
  %a = arith.addf %d, %d : tensor<?x3xf32>
  %b = arith.addf %s, %s : tensor<f64>
  func.return %a, %b, %e : tensor<?x3xf32>, tensor<f64>, tensor<0xi32>
}

// Scalars of every width the VM takes.
func.func @scalars(%a: i1, %b: i8, %c: i16, %d: i32, %e: i64, %f: f32, %g: f64) -> (i1, i8, i16, i32, i64, f32, f64) {
  %d2 = arith.addi %d, %d : i32
  %e2 = arith.addi %e, %e : i64
  %f2 = arith.addf %f, %f : f32
  %g2 = arith.addf %g, %g : f64
  func.return %a, %b, %c, %d2, %e2, %f2, %g2 : i1, i8, i16, i32, i64, f32, f64
}

// Structures nested three deep, in and out (the result is inlined).
func.func @nested(%t: tuple<!abi.dict<"a": tuple<tensor<2xf32>, i32>, "b": f64>, tensor<?xi32>>) -> tuple<tensor<?xi32>, !abi.dict<"x": tuple<i32, tensor<2xf32>>, "y": f64>> {
  %d = abi.tuple.get %t[0] : tuple<!abi.dict<"a": tuple<tensor<2xf32>, i32>, "b": f64>, tensor<?xi32>> -> !abi.dict<"a": tuple<tensor<2xf32>, i32>, "b": f64>
  %v = abi.tuple.get %t[1] : tuple<!abi.dict<"a": tuple<tensor<2xf32>, i32>, "b": f64>, tensor<?xi32>> -> tensor<?xi32>
  %a = abi.dict.get %d["a"] : !abi.dict<"a": tuple<tensor<2xf32>, i32>, "b": f64> -> tuple<tensor<2xf32>, i32>
  %b = abi.dict.get %d["b"] : !abi.dict<"a": tuple<tensor<2xf32>, i32>, "b": f64> -> f64
  %w = abi.tuple.get %a[0] : tuple<tensor<2xf32>, i32> -> tensor<2xf32>
  %n = abi.tuple.get %a[1] : tuple<tensor<2xf32>, i32> -> i32
  %w2 = arith.addf %w, %w : tensor<2xf32>
  %x = abi.tuple.pack %n, %w2 : (i32, tensor<2xf32>) -> tuple<i32, tensor<2xf32>>
  %o = abi.dict.pack %x, %b : (tuple<i32, tensor<2xf32>>, f64) -> !abi.dict<"x": tuple<i32, tensor<2xf32>>, "y": f64>
  %r = abi.tuple.pack %v, %o : (tensor<?xi32>, !abi.dict<"x": tuple<i32, tensor<2xf32>>, "y": f64>) -> tuple<tensor<?xi32>, !abi.dict<"x": tuple<i32, tensor<2xf32>>, "y": f64>>
  func.return %r : tuple<tensor<?xi32>, !abi.dict<"x": tuple<i32, tensor<2xf32>>, "y": f64>>
}

// Index paths: a dict holding a list (`slist`), a list with a gap, named results.
func.func @paths(%a: tensor<2xf32> {abi.index_path = [0, "w", 0]}, %b: tensor<2xf32> {abi.index_path = [0, "w", 1]}, %n: i32 {abi.index_path = [1]}, %c: f32 {abi.index_path = [2, 0]}, %d: tensor<2xf32> {abi.index_path = [2, 2]}) -> (tensor<2xf32> {abi.index_path = ["sum"]}, i32 {abi.index_path = ["n"]}) {
  %s = arith.addf %a, %b : tensor<2xf32>
  %t = arith.addf %s, %d : tensor<2xf32>
  func.return %t, %n : tensor<2xf32>, i32
}

// Homogeneous and variant lists, in and out, and inside a tuple.
func.func @lists(%l: !util.list<i32>, %m: !util.list<?>) -> (!util.list<i32>, !util.list<?>, i32) {
  %c0 = arith.constant 0 : index
  %x = util.list.get %l[%c0] : !util.list<i32>
  func.return %l, %m, %x : !util.list<i32>, !util.list<?>, i32
}

func.func @list_in_tuple(%t: tuple<!util.list<f32>, i32>) -> tuple<i32, !util.list<f32>> {
  %l = abi.tuple.get %t[0] : tuple<!util.list<f32>, i32> -> !util.list<f32>
  %n = abi.tuple.get %t[1] : tuple<!util.list<f32>, i32> -> i32
  %r = abi.tuple.pack %n, %l : (i32, !util.list<f32>) -> tuple<i32, !util.list<f32>>
  func.return %r : tuple<i32, !util.list<f32>>
}

// Named arguments (keyword only for IREE's invoker).
func.func @named(%x: tensor<3xf32>, %bias: tensor<3xf32> {abi.name = "bias"}, %steps: i32 {abi.name = "steps"}) -> (tensor<3xf32>, i32) {
  %y = arith.addf %x, %bias : tensor<3xf32>
  func.return %y, %steps : tensor<3xf32>, i32
}

// Empty structures vanish from the flat signature.
func.func @empty(%e: tuple<>, %x: i32, %d: !abi.dict<>) -> tuple<> {
  %r = abi.tuple.pack : () -> tuple<>
  func.return %r : tuple<>
}

// An ND-array of lists at the boundary (docs/spec.md §8.3): IREE cannot compile the tensor of
// lists itself, so this is the wrapper form — the values and the dims as two lists —
// with the reflection of `tensor<2x!util.list<i32>>`; it returns the array and dim 0.
func.func @ref_array(%a: !util.list<?>) -> (!util.list<?>, i32) attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,[\22py_homogeneous_list\22,\22i32\22],1,2]],\22r\22:[[\22ndarray\22,[\22py_homogeneous_list\22,\22i32\22],1,2],\22i32\22],\22v\22:1}"}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dims = util.list.get %a[%c1] : !util.list<?> -> !util.list<?>
  %d0 = util.list.get %dims[%c0] : !util.list<?> -> index
  %n = arith.index_cast %d0 : index to i32
  func.return %a, %n : !util.list<?>, i32
}

// Every argument named: the legacy SIP input root is a dict.
func.func @all_named(%a: tensor<2xf32> {abi.name = "a"}, %b: i32 {abi.name = "b"}) -> (i32, tensor<2xf32>) {
  func.return %b, %a : i32, tensor<2xf32>
}
