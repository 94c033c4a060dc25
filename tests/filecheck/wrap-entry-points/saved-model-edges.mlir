// Saved-model adoption at the edges, through both lowering pipelines (docs/decisions.md):
// every use of a renamed symbol is redirected, `exported_names = []` is not exported,
// a function in a nested module gets a warning, a bare iree.abi that disagrees with
// iree.reflection is dropped with a warning.
// RUN: abi-opt %s --allow-unregistered-dialect -p iree-abi-v1 --split-input-file --verify-diagnostics | filecheck %s --check-prefix=V1
// RUN: abi-opt %s --allow-unregistered-dialect -p iree-abi-legacy --split-input-file --verify-diagnostics | filecheck %s --check-prefix=LEGACY

module attributes {tf_saved_model.semantics} {
  "tf_saved_model.session_initializer"() {initializers = [@NoOp]} : () -> ()
  func.func @NoOp() attributes {tf_saved_model.exported_names = ["init"]} {
    func.return
  }
  func.func @serve(%a: tensor<i32> {tf_saved_model.index_path = [0, "x"]}, %b: tensor<i32> {tf_saved_model.index_path = [0, "y"]}) -> (tensor<i32> {tf_saved_model.index_path = []}) attributes {tf_saved_model.exported_names = ["predict"]} {
    func.return %a : tensor<i32>
  }
  func.func private @user() {
    %c = "func.constant"() {value = @serve} : () -> ((tensor<i32>, tensor<i32>) -> tensor<i32>)
    "test.table"() {entries = {main = [@serve, @NoOp]}} : () -> ()
    func.return
  }
}

// V1: "tf_saved_model.session_initializer"() {initializers = [@init]} : () -> ()
// V1: func.func @init()
// V1: func.func @predict(%0: !util.list<?>) -> tensor<i32>
// V1: func.func private @_predict(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
// V1: %c = "func.constant"() {value = @_predict} : () -> ((tensor<i32>, tensor<i32>) -> tensor<i32>)
// V1-NEXT: "test.table"() {entries = {main = [@_predict, @init]}} : () -> ()

// LEGACY: "tf_saved_model.session_initializer"() {initializers = [@init]} : () -> ()
// LEGACY: func.func @init()
// LEGACY: func.func @predict(%a: tensor<i32> {abi.index_path = [0 : i64, "x"]}, %b: tensor<i32> {abi.index_path = [0 : i64, "y"]}) -> (tensor<i32> {abi.index_path = []})
// LEGACY: %c = "func.constant"() {value = @predict} : () -> ((tensor<i32>, tensor<i32>) -> tensor<i32>)
// LEGACY-NEXT: "test.table"() {entries = {main = [@predict, @init]}} : () -> ()

// -----

// A generic func.constant of a function whose signature is flattened takes its new type.
func.func @pair(%p: tuple<tensor<i32>, tensor<i32>>) -> tensor<i32> {
  %a = abi.tuple.get %p[0] : tuple<tensor<i32>, tensor<i32>> -> tensor<i32>
  func.return %a : tensor<i32>
}
func.func private @user() {
  %c = "func.constant"() {value = @pair} : () -> ((tuple<tensor<i32>, tensor<i32>>) -> tensor<i32>)
  func.return
}

// V1: %c = "func.constant"() {value = @_pair} : () -> ((tensor<i32>, tensor<i32>) -> tensor<i32>)
// LEGACY: %c = "func.constant"() {value = @pair} : () -> ((tensor<i32>, tensor<i32>) -> tensor<i32>)

// -----

// TensorFlow exports a function with `exported_names = []` under no name: not exported,
// so it becomes private and gets no reflection.
module attributes {tf_saved_model.semantics} {
  func.func @unnamed(%a: tensor<i32> {tf_saved_model.index_path = [0]}) -> (tensor<i32> {tf_saved_model.index_path = []}) attributes {tf_saved_model.exported_names = []} {
    func.return %a : tensor<i32>
  }
}

// V1: func.func private @unnamed(%a: tensor<i32> {abi.index_path = [0 : i64]}) -> (tensor<i32> {abi.index_path = []}) {
// LEGACY: func.func private @unnamed(%a: tensor<i32> {abi.index_path = [0 : i64]}) -> (tensor<i32> {abi.index_path = []}) {

// -----

// Only the top-level module's functions are processed, as in IREE.
module {
  // expected-warning @+1 {{functions in a nested module get no ABI: only the top-level module's functions are processed}}
  module @inner {
    func.func @hidden(%p: tuple<i32>) {
      func.return
    }
  }
  func.func @top(%p: tuple<i32>) {
    func.return
  }
}

// V1: func.func @hidden(%p: tuple<i32>) {
// V1: func.func @top(%p: !util.list<?>)
// LEGACY: func.func @hidden(%p: tuple<i32>) {
// LEGACY: func.func @top(%0: i32 {abi.index_path = [0 : i64, 0 : i64]})

// -----

// iree.reflection's iree.abi wins (IREE reads only that one); a bare one that agrees
// goes silently, one that differs goes with a warning.
// expected-warning @+1 {{bare iree.abi differs from the one in iree.reflection and is dropped (IREE reads only iree.reflection)}}
func.func @conflict(%a: i32) attributes {iree.abi = "{\22a\22:[\22i64\22],\22r\22:[],\22v\22:1}", iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}"}} {
  func.return
}
func.func @agree(%a: i32) attributes {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}", iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}"}} {
  func.return
}

// V1: func.func @conflict(%a: i32) attributes {iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}"}} {
// V1: func.func @agree(%a: i32) attributes {iree.reflection = {iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}"}} {
// LEGACY: func.func @conflict(%a: i32) attributes {iree.reflection = {abi = "sip", f = "I6!S3!t6R1!", fv = "1", iree.abi = "{\22a\22:[\22i32\22],\22r\22:[],\22v\22:1}", sip = "I8!S5!k0_0R1!", sipv = "1"}} {
