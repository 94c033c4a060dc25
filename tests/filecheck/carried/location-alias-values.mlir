// A location alias is an attribute alias: used as a value (in a header, in another
// alias, in a parsed body) it is kept as written, and its definition is carried.
// RUN: abi-opt %s --allow-unregistered-dialect | filecheck %s --check-prefix=NONE --match-full-lines --strict-whitespace
// RUN: abi-opt %s --allow-unregistered-dialect -p iree-abi-v1 | filecheck %s --check-prefix=V1 --match-full-lines --strict-whitespace

//      NONE:#loc1 = loc(unknown)
// NONE-NEXT:#x = [#loc1]
// NONE-NEXT:builtin.module {
// NONE-NEXT:  func.func @f(%a: tuple<i32> {foo.x = #loc1, foo.y = #x} loc(#loc1)) -> i32 {
// NONE-NEXT:    %0 = "foo.g"() {k = #loc1, j = [loc(#loc1)]} : () -> i32 loc(#loc1)
// NONE-NEXT:    return %0 : i32 loc(#loc1)
// NONE-NEXT:  }
// NONE-NEXT:  func.func @g(%b: i32 {foo.z = #loc1}) {
// NONE-NEXT:    return
// NONE-NEXT:  }
// NONE-NEXT:}

//      V1:#loc1 = loc(unknown)
// V1-NEXT:#x = [#loc1]
// V1-NEXT:builtin.module {
// V1-NEXT:  func.func @f(%a: !util.list<?>) -> i32 attributes {iree.abi.stub, iree.reflection = {iree.abi = "{\22a\22:[[\22stuple\22,\22i32\22]],\22r\22:[\22i32\22],\22v\22:1}"}} {
// V1-NEXT:    %0 = arith.constant 0 : index
// V1-NEXT:    %1 = util.list.get %a[%0] : !util.list<?> -> i32
// V1-NEXT:    %2 = func.call @_f(%1) : (i32) -> i32
// V1-NEXT:    func.return %2 : i32
// V1-NEXT:  }
// V1-NEXT:  func.func private @_f(%0: i32) -> i32 {
// V1-NEXT:    %1 = "foo.g"() {k = #loc1, j = [loc(#loc1)]} : () -> i32
// V1-NEXT:    func.return %1 : i32
// V1-NEXT:  }
// V1-NEXT:  func.func @g(%b: i32 {foo.z = #loc1}) attributes {iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}"}} {
// V1-NEXT:    return
// V1-NEXT:  }
// V1-NEXT:}

#loc1 = loc(unknown)
#x = [#loc1]
func.func @f(%a: tuple<i32> {foo.x = #loc1, foo.y = #x} loc(#loc1)) -> i32 {
  %0 = "foo.g"() {k = #loc1, j = [loc(#loc1)]} : () -> i32 loc(#loc1)
  return %0 : i32 loc(#loc1)
}
func.func @g(%b: i32 {foo.z = #loc1}) {
  return
}
