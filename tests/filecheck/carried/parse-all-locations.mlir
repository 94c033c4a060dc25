// With `--parse-all` every op is parsed: a location xDSL cannot read (a range
// `"f.py":1:2 to :5`, an alias defined after its use) is the location of an op or an
// argument, which abi-opt does not print, and is read as unknown; one that is an
// attribute's value is kept as written, as is a typed string.
// RUN: abi-opt %s --parse-all --allow-unregistered-dialect | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:builtin.module {
// CHECK-NEXT:  func.func @g(%a: i32) -> i32 {
// CHECK-NEXT:    %0 = "foo.x"(%a) {foo.l = [loc("m.py":10:4)], foo.s = "x" : i32} : (i32) -> i32
// CHECK-NEXT:    func.return %0 : i32
// CHECK-NEXT:  }
// CHECK-NEXT:}

func.func @g(%a: i32 loc("a.py":1:2 to :5)) -> i32 {
  %0 = "foo.x"(%a) {foo.l = [loc("m.py":10:4)], foo.s = "x" : i32} : (i32) -> i32 loc("a.py":2:9 to :38)
  return %0 : i32 loc(#loc3)
} loc(#loc3)
#loc3 = loc("a.py":7:4)
