// Valid: dims above 2^31 - 1 (the raw signature's limit). The raw signature writes U1!
// and warns; JSON keeps the numbers (no warning: V1 has no such limit); SIP does not
// describe types.
// RUN: abi-opt %s -p iree-abi-legacy --verify-diagnostics | filecheck %s --check-prefix=LEGACY
// RUN: abi-opt %s -p iree-abi-v1 2>&1 | filecheck %s --check-prefix=V1

// expected-warning @+2 {{Argument #0 of function big is not a recognized public ABI type and the function may not be invokable by standard tools}}
// expected-warning @+1 {{Result #0 of function big is not a recognized public ABI type and the function may not be invokable by standard tools}}
func.func @big(%a: tensor<2147483648x?xf32>, %b: tensor<2147483647xi8>) -> tensor<2147483648x?xf32> {
  func.return %a : tensor<2147483648x?xf32>
}

// The leaves of a flattened tuple: the warnings point at the tuple argument.
// expected-warning @+2 {{Argument #0 of function in_tuple is not a recognized public ABI type and the function may not be invokable by standard tools}}
// expected-warning @+1 {{Argument #1 of function in_tuple is not a recognized public ABI type and the function may not be invokable by standard tools}}
func.func @in_tuple(%t: tuple<tensor<4294967296xf32>, tensor<99999999999xi32>>) {
  func.return
}

// LEGACY-LABEL: func.func @big(
// LEGACY-SAME: f = "I21!U1!B14!t4d2147483647R4!U1!"
// LEGACY-SAME: sip = "I12!S9!k0_0k1_1R3!_0"
// LEGACY-LABEL: func.func @in_tuple(
// LEGACY-SAME: f = "I7!U1!U1!R1!"
// LEGACY-SAME: sip = "I18!S14!k0S9!k0_0k1_1R1!"

// V1-NOT: warning
// V1-LABEL: func.func @big(
// V1-SAME{LITERAL}: iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,2147483648,null],[\22ndarray\22,\22i8\22,1,2147483647]],\22r\22:[[\22ndarray\22,\22f32\22,2,2147483648,null]],\22v\22:1}"
// V1-LABEL: func.func @in_tuple(
// V1-SAME{LITERAL}: iree.abi = "{\22a\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,4294967296],[\22ndarray\22,\22i32\22,1,99999999999]]],\22r\22:[],\22v\22:1}"
