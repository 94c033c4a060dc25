// RUN: abi-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect -p materialize-iree-abi | filecheck %s
// RUN: abi-opt %s --split-input-file --verify-diagnostics --parse-all --allow-unregistered-dialect -p materialize-iree-abi | filecheck %s
// Argument names in locations (docs/spec.md §3.3), with and without carried text: in place,
// through a location alias defined before or after its use (MLIR allows a location
// alias to be used before its definition; printers put them at the end), through an
// alias of an alias, with a child location, with quotes escaped. `jax.arg_info` wins
// over the location.

#before = loc("params['b']")
#child_loc = loc("model.py":12:3)
// CHECK-LABEL: func.func public @main(
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22a\22,[\22ndarray\22,\22f32\22,0]],[\22b\22,[\22ndarray\22,\22f32\22,0]],[\22c\22,[\22ndarray\22,\22f32\22,0]],[\22d\22,[\22ndarray\22,\22f32\22,0]],[\22it's\22,[\22ndarray\22,\22f32\22,0]]],[\22ndarray\22,\22i32\22,0],[\22slist\22,[\22ndarray\22,\22f32\22,0]]],\22r\22:[[\22sdict\22,[\22loss\22,[\22ndarray\22,\22f32\22,0]]]],\22v\22:1}"}
module @jit_names {
  func.func public @main(%arg0: tensor<f32> loc("params['a']"), %arg1: tensor<f32> loc(#before),
                         %arg2: tensor<f32> loc(#after), %arg3: tensor<f32> loc(#chain),
                         %arg4: tensor<i32> loc("x"(#child_loc)),
                         %arg5: tensor<f32> {jax.arg_info = "xs[0]"} loc("ignored"),
                         %arg6: tensor<f32> loc("params[\22it's\22]"))
      -> (tensor<f32> {jax.result_info = "result['loss']"}) {
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#op_loc)
    return %0 : tensor<f32> loc(#op_loc)
  } loc(#op_loc)
} loc(#op_loc)
#after = loc("params['c']")
#chain = loc(#chain_end)
#chain_end = loc("params['d']")
#op_loc = loc("jit(f)/add"(#child_loc))


// -----

// The wrapped main (shape polymorphism, ordered effects, several platforms): JAX's public
// `@main` has no names and passes its arguments on to `@_wrapped_jax_export_main`, after
// the dimension variables it computes (`jax.global_constant` other than the platform
// index). `@main`'s argument i takes the name of the i-th argument passed on. The platform
// index and the token are the first positional roots; the token result is the first item
// of the result root. The names here are `jax.arg_info`, as JAX 0.4.14 to 0.4.2x wrote
// them on the wrapped function.
// CHECK-LABEL: func.func public @main(
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22i32\22,0],\22unknown\22,[\22ndarray\22,\22f32\22,1,null],[\22sdict\22,[\22k\22,[\22ndarray\22,\22f32\22,0]]]],\22r\22:[[\22stuple\22,\22unknown\22,[\22stuple\22,[\22ndarray\22,\22f32\22,1,null]]]],\22v\22:1}"}
// The wrapped function is private: no reflection.
// CHECK: func.func private @_wrapped_jax_export_main(
// CHECK-NOT: iree.reflection
// CHECK-SAME: {
module @jit_wrapped {
  // expected-warning @+1 {{Result #0 of function main is recorded as "unknown" in iree.abi: the function may not be callable with that value}}
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"} loc(unknown),
                         // expected-warning @+1 {{Argument #1 of function main is recorded as "unknown" in iree.abi: the function may not be callable with that value}}
                         %arg1: !stablehlo.token {jax.token = true} loc(unknown),
                         %arg2: tensor<?xf32> loc(unknown), %arg3: tensor<f32> loc(unknown))
      -> (!stablehlo.token {jax.token = true}, tensor<?xf32> {jax.result_info = "[0]"}) {
    %0 = "stablehlo.get_dimension_size"(%arg2) {dimension = 0 : i64} : (tensor<?xf32>) -> tensor<i32>
    %1:2 = call @_wrapped_jax_export_main(%arg0, %0, %arg1, %arg2, %arg3) : (tensor<i32>, tensor<i32>, !stablehlo.token, tensor<?xf32>, tensor<f32>) -> (!stablehlo.token, tensor<?xf32>)
    return %1#0, %1#1 : !stablehlo.token, tensor<?xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"},
                                              %arg1: tensor<i32> {jax.global_constant = "n"},
                                              %arg2: !stablehlo.token {jax.token = true},
                                              %arg3: tensor<?xf32> {jax.arg_info = "x"},
                                              %arg4: tensor<f32> {jax.arg_info = "kw['k']"})
      -> (!stablehlo.token {jax.token = true}, tensor<?xf32> {jax.result_info = "[0]"}) {
    return %arg2, %arg3 : !stablehlo.token, tensor<?xf32>
  }
}

// -----

// A `@main` whose arguments do not correspond to those the wrapped function takes keeps
// its flat signature.
// CHECK-LABEL: func.func public @main(
// CHECK-SAME: iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,0]],\22r\22:[[\22ndarray\22,\22f32\22,0]],\22v\22:1}"}
module @jit_mismatch {
  // expected-warning @+1 {{argument 0 has no name (neither jax.arg_info nor a name location): the function keeps its flat signature}}
  func.func public @main(%arg0: tensor<f32> loc(unknown)) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = call @_wrapped_jax_export_main(%arg0, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<f32> loc("x"), %arg1: tensor<f32> loc("y")) -> (tensor<f32> {jax.result_info = "result"}) {
    return %arg0 : tensor<f32>
  }
}
