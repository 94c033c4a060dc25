// Values xDSL cannot read are kept as written, in headers (always parsed) and in parsed
// bodies: a dialect attribute or type in verbose form (`#foo<"x">`, `!foo<"a>b">`),
// `sparse<…>`, `distinct[0]<>`, typed attributes (`"x" : i32`, `#foo.t<1> : i32`, and a
// top-level typed alias), and `//` inside a dialect body, which is text there, not a
// comment. `affine_set<… >= 0>` and a type named `!foo.attributes` are read as MLIR
// reads them: the bodies stay carried (custom syntax of an unknown dialect is fine).
// RUN: abi-opt %s | filecheck %s --check-prefix=NONE --match-full-lines --strict-whitespace
// RUN: abi-opt %s -p iree-abi-v1 2>/dev/null | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace

//      NONE:#typed = #foo.attr<1> : !foo.type
// NONE-NEXT:!verbose = !foo<"a>b">
// NONE-NEXT:builtin.module {
// NONE-NEXT:  func.func @header(%a: tensor<2xf32> {foo.a = #foo<"x">, foo.b = sparse<[[0]], [1.0]> : tensor<2xf32>, foo.c = distinct[0]<>, foo.d = affine_set<(d0) : (d0 >= 0, -d0 + 4 >= 0)>, foo.e = #foo.b<a //
// NONE-NEXT: b>, foo.f = "x" : i32, foo.g = [#foo.t<1> : i32], foo.h = #typed}, %b: !verbose) -> !foo.attributes {
// NONE-NEXT:    %0 = stablehlo.add %a, %a {foo.c = #foo.c<a // {
// NONE-NEXT:   b}>} : tensor<2xf32>
// NONE-NEXT:    %1 = "foo.cast"(%0) : (tensor<2xf32>) -> !foo.attributes
// NONE-NEXT:    return %1 : !foo.attributes
// NONE-NEXT:  }
// NONE-NEXT:  func.func @parsed(%p: tuple<!foo<"a>b">> {foo.e = #foo.b<a //
// NONE-NEXT: b>}) -> tuple<!foo<"a>b">> {
// NONE-NEXT:    "foo.op"() {foo.a = #foo<"x">, foo.c = distinct[0]<>, foo.e = #foo.b<c //
// NONE-NEXT: d>, foo.f = "x" : i32} : () -> ()
// NONE-NEXT:    return %p : tuple<!foo<"a>b">>
// NONE-NEXT:  }
// NONE-NEXT:}

//      V1:#typed = #foo.attr<1> : !foo.type
// V1-NEXT:!verbose = !foo<"a>b">
// V1-NEXT:builtin.module {
// V1-NEXT:  func.func @header(%a: tensor<2xf32> {foo.a = #foo<"x">, foo.b = sparse<[[0]], [1.0]> : tensor<2xf32>, foo.c = distinct[0]<>, foo.d = affine_set<(d0) : (d0 >= 0, -d0 + 4 >= 0)>, foo.e = #foo.b<a //
// V1-NEXT: b>, foo.f = "x" : i32, foo.g = [#foo.t<1> : i32], foo.h = #typed}, %b: !verbose) -> !foo.attributes attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,1,2],\22unknown\22],\22r\22:[\22unknown\22],\22v\22:1}"}} {
// V1-NEXT:    %0 = stablehlo.add %a, %a {foo.c = #foo.c<a // {
// V1-NEXT:   b}>} : tensor<2xf32>
// V1-NEXT:    %1 = "foo.cast"(%0) : (tensor<2xf32>) -> !foo.attributes
// V1-NEXT:    return %1 : !foo.attributes
// V1-NEXT:  }
// V1-NEXT:  func.func @parsed(%p: !util.list<?>) -> !foo<"a>b"> attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,\22unknown\22]],\22r\22:[[\22stuple\22,\22unknown\22]],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %p[%0] : !util.list<?> -> !foo<"a>b">
// V1-NEXT:    %2 = func.call @_parsed(%1) : (!foo<"a>b">) -> !foo<"a>b">
// V1-NEXT:    func.return %2 : !foo<"a>b">
// V1-NEXT:  }
// V1-NEXT:  func.func private @_parsed(%0: !foo<"a>b">) -> !foo<"a>b"> {
// V1-NEXT:    "foo.op"() {foo.a = #foo<"x">, foo.c = distinct[0]<>, foo.e = #foo.b<c //
// V1-NEXT: d>, foo.f = "x" : i32} : () -> ()
// V1-NEXT:    func.return %0 : !foo<"a>b">
// V1-NEXT:  }
// V1-NEXT:}

#typed = #foo.attr<1> : !foo.type
!verbose = !foo<"a>b">
func.func @header(%a: tensor<2xf32> {foo.a = #foo<"x">, foo.b = sparse<[[0]], [1.0]> : tensor<2xf32>, foo.c = distinct[0]<>, foo.d = affine_set<(d0) : (d0 >= 0, -d0 + 4 >= 0)>, foo.e = #foo.b<a //
 b>, foo.f = "x" : i32, foo.g = [#foo.t<1> : i32], foo.h = #typed}, %b: !verbose) -> !foo.attributes {
  %0 = stablehlo.add %a, %a {foo.c = #foo.c<a // {
   b}>} : tensor<2xf32>
  %1 = "foo.cast"(%0) : (tensor<2xf32>) -> !foo.attributes
  return %1 : !foo.attributes
}
func.func @parsed(%p: tuple<!foo<"a>b">> {foo.e = #foo.b<a //
 b>}) -> tuple<!foo<"a>b">> {
  "foo.op"() {foo.a = #foo<"x">, foo.c = distinct[0]<>, foo.e = #foo.b<c //
 d>, foo.f = "x" : i32} : () -> ()
  return %p : tuple<!foo<"a>b">>
}
