// Valid: named index-path arguments whose names are not SSA names. The V1 wrapper names
// its argument after the argument name only when the MLIR lexer can read it back
// (`%A¹` printed but did not parse).
// RUN: abi-opt %s -p iree-abi-v1 | abi-opt -p iree-abi-v1 | filecheck %s

// CHECK:      func.func @fn(%0: !util.list<?>, %1: i32, %x: i8)
// CHECK-SAME{LITERAL}: iree.abi = "{\22a\22:[[\22named\22,\22A\\u00b9\22,[\22slist\22,\22f32\22]],[\22named\22,\22\\u00e9\22,\22i32\22],[\22named\22,\22x\22,\22i8\22]],\22r\22:[],\22v\22:1}"
// CHECK:        func.call @_fn(%{{.*}}, %1, %x) : (f32, i32, i8) -> ()

func.func @fn(%a: f32 {abi.index_path = ["A¹", 0]}, %b: i32 {abi.index_path = ["é"]},
              %c: i8 {abi.index_path = ["x"]}) {
  func.return
}
