// The abi dialect's type, ops and attributes round-trip, in the custom and in the generic
// form (docs/spec.md §8.3–§8.4).
// RUN: abi-opt --parse-all %s | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt --print-op-generic | filecheck %s --match-full-lines --check-prefix=GENERIC

// Keys are quoted, so any string works; the type keeps the order it was written in.
// CHECK-LABEL: func.func @dict_types(%a: !abi.dict<"m": f32, "k": i32>, %empty: !abi.dict<>, %odd: !abi.dict<"two words": i8, "": i16, "q\22uote": i32>, %nested: !abi.dict<"t": tuple<i32, !abi.dict<"x": tensor<?xf32>>>, "l": !util.list<?>>) {
// CHECK-NEXT:  func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "dict_types", function_type = (!abi.dict<"m": f32, "k": i32>, !abi.dict<>, !abi.dict<"two words": i8, "": i16, "q\22uote": i32>, !abi.dict<"t": tuple<i32, !abi.dict<"x": tensor<?xf32>>>, "l": !util.list<?>>) -> ()}> ({
// GENERIC-NEXT:  ^bb0(%a: !abi.dict<"m": f32, "k": i32>, %empty: !abi.dict<>, %odd: !abi.dict<"two words": i8, "": i16, "q\22uote": i32>, %nested: !abi.dict<"t": tuple<i32, !abi.dict<"x": tensor<?xf32>>>, "l": !util.list<?>>):
// GENERIC-NEXT:  "func.return"() : () -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @dict_types(%a: !abi.dict<"m": f32, "k": i32>, %empty: !abi.dict<>,
                      %odd: !abi.dict<"two words": i8, "": i16, "q\"uote": i32>,
                      %nested: !abi.dict<"t": tuple<i32, !abi.dict<"x": tensor<?xf32>>>, "l": !util.list<?>>) {
  func.return
}

// CHECK-LABEL: func.func @tuples(%a: i32, %b: tensor<4xf32>) -> (tuple<i32, tensor<4xf32>>, tensor<4xf32>) {
// CHECK-NEXT:  %t = abi.tuple.pack %a, %b : (i32, tensor<4xf32>) -> tuple<i32, tensor<4xf32>>
// CHECK-NEXT:  %one = abi.tuple.pack %a : (i32) -> tuple<i32>
// CHECK-NEXT:  %empty = abi.tuple.pack : () -> tuple<>
// CHECK-NEXT:  %nested = abi.tuple.pack %t, %empty {tag} : (tuple<i32, tensor<4xf32>>, tuple<>) -> tuple<tuple<i32, tensor<4xf32>>, tuple<>>
// CHECK-NEXT:  %x = abi.tuple.get %t[1] : tuple<i32, tensor<4xf32>> -> tensor<4xf32>
// CHECK-NEXT:  %inner = abi.tuple.get %nested[0] {tag} : tuple<tuple<i32, tensor<4xf32>>, tuple<>> -> tuple<i32, tensor<4xf32>>
// CHECK-NEXT:  func.return %t, %x : tuple<i32, tensor<4xf32>>, tensor<4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "tuples", function_type = (i32, tensor<4xf32>) -> (tuple<i32, tensor<4xf32>>, tensor<4xf32>)}> ({
// GENERIC-NEXT:  ^bb0(%a: i32, %b: tensor<4xf32>):
// GENERIC-NEXT:  %t = "abi.tuple.pack"(%a, %b) : (i32, tensor<4xf32>) -> tuple<i32, tensor<4xf32>>
// GENERIC-NEXT:  %one = "abi.tuple.pack"(%a) : (i32) -> tuple<i32>
// GENERIC-NEXT:  %empty = "abi.tuple.pack"() : () -> tuple<>
// GENERIC-NEXT:  %nested = "abi.tuple.pack"(%t, %empty) {tag} : (tuple<i32, tensor<4xf32>>, tuple<>) -> tuple<tuple<i32, tensor<4xf32>>, tuple<>>
// GENERIC-NEXT:  %x = "abi.tuple.get"(%t) <{index = 1 : index}> : (tuple<i32, tensor<4xf32>>) -> tensor<4xf32>
// GENERIC-NEXT:  %inner = "abi.tuple.get"(%nested) <{index = 0 : index}> {tag} : (tuple<tuple<i32, tensor<4xf32>>, tuple<>>) -> tuple<i32, tensor<4xf32>>
// GENERIC-NEXT:  "func.return"(%t, %x) : (tuple<i32, tensor<4xf32>>, tensor<4xf32>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @tuples(%a: i32, %b: tensor<4xf32>) -> (tuple<i32, tensor<4xf32>>, tensor<4xf32>) {
  %t = abi.tuple.pack %a, %b : (i32, tensor<4xf32>) -> tuple<i32, tensor<4xf32>>
  %one = abi.tuple.pack %a : (i32) -> tuple<i32>
  %empty = abi.tuple.pack : () -> tuple<>
  %nested = abi.tuple.pack %t, %empty {tag} : (tuple<i32, tensor<4xf32>>, tuple<>) -> tuple<tuple<i32, tensor<4xf32>>, tuple<>>
  %x = abi.tuple.get %t[1] : tuple<i32, tensor<4xf32>> -> tensor<4xf32>
  %inner = abi.tuple.get %nested[0] {tag} : tuple<tuple<i32, tensor<4xf32>>, tuple<>> -> tuple<i32, tensor<4xf32>>
  func.return %t, %x : tuple<i32, tensor<4xf32>>, tensor<4xf32>
}

// The operands of abi.dict.pack are in sorted key order, whatever order the type lists.
// CHECK-LABEL: func.func @dicts(%k: i32, %m: f32) -> i32 {
// CHECK-NEXT:  %d = abi.dict.pack %k, %m : (i32, f32) -> !abi.dict<"m": f32, "k": i32>
// CHECK-NEXT:  %sorted = abi.dict.pack %k, %m {tag} : (i32, f32) -> !abi.dict<"k": i32, "m": f32>
// CHECK-NEXT:  %empty = abi.dict.pack : () -> !abi.dict<>
// CHECK-NEXT:  %x = abi.dict.get %d["k"] : !abi.dict<"m": f32, "k": i32> -> i32
// CHECK-NEXT:  %y = abi.dict.get %sorted["m"] {tag} : !abi.dict<"k": i32, "m": f32> -> f32
// CHECK-NEXT:  func.return %x : i32
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "dicts", function_type = (i32, f32) -> i32}> ({
// GENERIC-NEXT:  ^bb0(%k: i32, %m: f32):
// GENERIC-NEXT:  %d = "abi.dict.pack"(%k, %m) : (i32, f32) -> !abi.dict<"m": f32, "k": i32>
// GENERIC-NEXT:  %sorted = "abi.dict.pack"(%k, %m) {tag} : (i32, f32) -> !abi.dict<"k": i32, "m": f32>
// GENERIC-NEXT:  %empty = "abi.dict.pack"() : () -> !abi.dict<>
// GENERIC-NEXT:  %x = "abi.dict.get"(%d) <{key = "k"}> : (!abi.dict<"m": f32, "k": i32>) -> i32
// GENERIC-NEXT:  %y = "abi.dict.get"(%sorted) <{key = "m"}> {tag} : (!abi.dict<"k": i32, "m": f32>) -> f32
// GENERIC-NEXT:  "func.return"(%x) : (i32) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @dicts(%k: i32, %m: f32) -> i32 {
  %d = abi.dict.pack %k, %m : (i32, f32) -> !abi.dict<"m": f32, "k": i32>
  %sorted = abi.dict.pack %k, %m {tag} : (i32, f32) -> !abi.dict<"k": i32, "m": f32>
  %empty = abi.dict.pack : () -> !abi.dict<>
  %x = abi.dict.get %d["k"] : !abi.dict<"m": f32, "k": i32> -> i32
  %y = abi.dict.get %sorted["m"] {tag} : !abi.dict<"k": i32, "m": f32> -> f32
  func.return %x : i32
}

// CHECK-LABEL: func.func @ref_arrays(%arr: tensor<2x3x!util.list<i32>>, %legacy: tensor<?x!iree.list<f32>>) -> tensor<?x3x!util.list<i32>> {
// CHECK-NEXT:  %l = abi.ref_array.to_lists %arr : tensor<2x3x!util.list<i32>> -> !util.list<?>
// CHECK-NEXT:  %m = abi.ref_array.to_lists %legacy {tag} : tensor<?x!iree.list<f32>> -> !util.list<?>
// CHECK-NEXT:  %back = abi.ref_array.from_lists %l : !util.list<?> -> tensor<?x3x!util.list<i32>>
// CHECK-NEXT:  %scalar = abi.ref_array.from_lists %l {tag} : !util.list<?> -> tensor<!util.list<i32>>
// CHECK-NEXT:  func.return %back : tensor<?x3x!util.list<i32>>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "ref_arrays", function_type = (tensor<2x3x!util.list<i32>>, tensor<?x!iree.list<f32>>) -> tensor<?x3x!util.list<i32>>}> ({
// GENERIC-NEXT:  ^bb0(%arr: tensor<2x3x!util.list<i32>>, %legacy: tensor<?x!iree.list<f32>>):
// GENERIC-NEXT:  %l = "abi.ref_array.to_lists"(%arr) : (tensor<2x3x!util.list<i32>>) -> !util.list<?>
// GENERIC-NEXT:  %m = "abi.ref_array.to_lists"(%legacy) {tag} : (tensor<?x!iree.list<f32>>) -> !util.list<?>
// GENERIC-NEXT:  %back = "abi.ref_array.from_lists"(%l) : (!util.list<?>) -> tensor<?x3x!util.list<i32>>
// GENERIC-NEXT:  %scalar = "abi.ref_array.from_lists"(%l) {tag} : (!util.list<?>) -> tensor<!util.list<i32>>
// GENERIC-NEXT:  "func.return"(%back) : (tensor<?x3x!util.list<i32>>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @ref_arrays(%arr: tensor<2x3x!util.list<i32>>, %legacy: tensor<?x!iree.list<f32>>) -> tensor<?x3x!util.list<i32>> {
  %l = abi.ref_array.to_lists %arr : tensor<2x3x!util.list<i32>> -> !util.list<?>
  %m = abi.ref_array.to_lists %legacy {tag} : tensor<?x!iree.list<f32>> -> !util.list<?>
  %back = abi.ref_array.from_lists %l : !util.list<?> -> tensor<?x3x!util.list<i32>>
  %scalar = abi.ref_array.from_lists %l {tag} : !util.list<?> -> tensor<!util.list<i32>>
  func.return %back : tensor<?x3x!util.list<i32>>
}

// abi.index_path (arguments and results) and abi.name (arguments).
// CHECK-LABEL: func.func @attributes(%a: i32 {abi.index_path = [0 : i64, "k", 2 : i64]}, %b: i32 {abi.name = "b"}, %c: i32 {abi.index_path = ["c"], abi.name = "c"}) -> (i32 {abi.index_path = []}) {
// CHECK-NEXT:  func.return %a : i32
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "attributes", function_type = (i32, i32, i32) -> i32, arg_attrs = [{abi.index_path = [0 : i64, "k", 2 : i64]}, {abi.name = "b"}, {abi.index_path = ["c"], abi.name = "c"}], res_attrs = [{abi.index_path = []}]}> ({
// GENERIC-NEXT:  ^bb0(%a: i32, %b: i32, %c: i32):
// GENERIC-NEXT:  "func.return"(%a) : (i32) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @attributes(%a: i32 {abi.index_path = [0, "k", 2]}, %b: i32 {abi.name = "b"},
                      %c: i32 {abi.index_path = ["c"], abi.name = "c"}) -> (i32 {abi.index_path = []}) {
  func.return %a : i32
}
