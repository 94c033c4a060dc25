// A header whose signature no pass changed (reflection added) keeps its signature as
// written, on one line: every type and attribute is spelled as the carried body spells
// it (`!abi.dict<"q\"t": i32>` printed from the IR would be `"q\22t"`, another type for a
// tool that does not know the dialect); a dialect body keeps its line break.
// RUN: abi-opt %s -p materialize-iree-abi 2>/dev/null | filecheck %s --match-full-lines --strict-whitespace
// Parsed (`--parse-all`), the header is printed from the IR: xDSL's spelling of the
// string, and the dialect body's line break still as written (not indented again).
// RUN: abi-opt %s --parse-all --allow-unregistered-dialect -p materialize-iree-abi 2>/dev/null | filecheck %s --check-prefix=PARSED --match-full-lines --strict-whitespace

//      CHECK:builtin.module {
// CHECK-NEXT:  func.func @f(%x: !abi.dict<"q\"t": i32>, %y: tensor<2xf32> {foo.b = #foo.b<a //
// CHECK-NEXT: b>}) -> !abi.dict<"q\"t": i32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22q\\\22t\22,\22i32\22]],[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22sdict\22,[\22q\\\22t\22,\22i32\22]]],\22v\22:1}"}} {
// CHECK-NEXT:    return %x : !abi.dict<"q\"t": i32>
// CHECK-NEXT:  }
// CHECK-NEXT:}

//      PARSED:builtin.module {
// PARSED-NEXT:  func.func @f(%x: !abi.dict<"q\22t": i32>, %y: tensor<2xf32> {foo.b = #foo.b<a //
// PARSED-NEXT: b>}) -> !abi.dict<"q\22t": i32> attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22sdict\22,[\22q\\\22t\22,\22i32\22]],[\22ndarray\22,\22f32\22,1,2]],\22r\22:[[\22sdict\22,[\22q\\\22t\22,\22i32\22]]],\22v\22:1}"}} {
// PARSED-NEXT:    func.return %x : !abi.dict<"q\22t": i32>
// PARSED-NEXT:  }
// PARSED-NEXT:}

func.func @f(%x: !abi.dict<"q\"t": i32>, // the input
             %y: tensor<2xf32> {foo.b = #foo.b<a //
 b>}) -> !abi.dict<"q\"t": i32> {
  return %x : !abi.dict<"q\"t": i32>
}
