// Errors in signatures and in lowering them, through both pipelines.
// RUN: abi-opt %s -p iree-abi-v1 --split-input-file --verify-diagnostics --allow-unregistered-dialect
// RUN: abi-opt %s -p iree-abi-legacy --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @duplicate_name(%a: i32 {abi.name = "x"},
                          // expected-error @+1 {{duplicate argument name 'x'}}
                          %b: i32 {abi.name = "x"}) {
  func.return
}

// -----

func.func @named_before_positional(%a: i32 {abi.name = "x"},
                                   // expected-error @+1 {{named arguments must follow all positional arguments}}
                                   %b: i32) {
  func.return
}

// -----

func.func @structure_used_by_unknown_op(%t: tuple<i32, f32>) {
  // expected-error @+1 {{cannot lower structured value of type tuple<i32, f32>: used by 'test.consume'}}
  "test.consume"(%t) : (tuple<i32, f32>) -> ()
  func.return
}

// -----

func.func private @private_too(%t: !abi.dict<"k": i32>) -> i32 {
  // expected-error @+1 {{cannot lower structured value of type !abi.dict<"k": i32>: used by 'test.consume'}}
  %x = "test.consume"(%t) : (!abi.dict<"k": i32>) -> i32
  func.return %x : i32
}

// -----

func.func @structure_from_unknown_op() -> tuple<i32> {
  // expected-error @+1 {{cannot lower structured value of type tuple<i32>: produced by 'test.produce'}}
  %t = "test.produce"() : () -> tuple<i32>
  func.return %t : tuple<i32>
}

// -----

// 101 nested tuples (the limit is 100).
// expected-error @+1 {{structure nested deeper than 100 levels}}
func.func @too_deep(%a: tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<tuple<i32>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>) {
  func.return
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{Multiple exported names not supported yet}}
  func.func @two_names(%a: tensor<f32> {tf_saved_model.index_path = [0]}) attributes {tf_saved_model.exported_names = ["a", "b"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{symbol @taken already exists}}
  func.func @export(%a: tensor<f32> {tf_saved_model.index_path = [0]}) attributes {tf_saved_model.exported_names = ["taken"]} {
    func.return
  }
  func.func private @taken() {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{bound input on argument 0 must be resolved before ABI processing}}
  func.func @bound(%v: tensor<f32> {tf_saved_model.bound_input = @var, tf_saved_model.index_path = [0]}) attributes {tf_saved_model.exported_names = ["bound"]} {
    func.return
  }
}
