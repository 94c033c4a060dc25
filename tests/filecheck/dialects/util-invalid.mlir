// Every constraint of the util dialect, violated once.
// RUN: abi-opt --parse-all %s --split-input-file --verify-diagnostics

func.func @get_type_mismatch(%l: !util.list<i32>, %i: index) -> i64 {
  // expected-error @+1 {{result type i64 does not match the element type i32 of !util.list<i32>}}
  %x = util.list.get %l[%i] : !util.list<i32> -> i64
  func.return %x : i64
}

// -----

func.func @set_type_mismatch(%l: !util.list<i32>, %i: index, %x: i64) {
  // expected-error @+1 {{value type i64 does not match the element type i32 of !util.list<i32>}}
  util.list.set %l[%i], %x : i64 -> !util.list<i32>
  func.return
}

// -----

func.func @get_variant_without_type(%l: !util.list<?>, %i: index) {
  // expected-error @+1 {{expected '-> <result type>' after a variant list type}}
  %x = util.list.get %l[%i] : !util.list<?>
  func.return
}

// -----

func.func @set_variant_without_type(%l: !util.list<?>, %i: index, %x: i32) {
  // expected-error @+1 {{expected '<value type> -> <list type>' to set a variant list}}
  util.list.set %l[%i], %x : !util.list<?>
  func.return
}

// -----

func.func @get_from_a_non_list(%l: i32, %i: index) {
  // expected-error @+1 {{i32 should be of base attribute util.list}}
  %x = "util.list.get"(%l, %i) : (i32, index) -> i32
  func.return
}

// -----

func.func @set_non_index(%l: !util.list<?>, %i: i32, %x: i32) {
  // expected-error @+1 {{i32 should be of base attribute index}}
  "util.list.set"(%l, %i, %x) : (!util.list<?>, i32, i32) -> ()
  func.return
}

// -----

func.func @size_of_a_non_list(%l: tensor<4xi32>) {
  // expected-error @+1 {{tensor<4xi32> should be of base attribute util.list}}
  %n = "util.list.size"(%l) : (tensor<4xi32>) -> index
  func.return
}

// -----

func.func @size_result(%l: !util.list<?>) {
  // expected-error @+1 {{i32 should be of base attribute index}}
  %n = "util.list.size"(%l) : (!util.list<?>) -> i32
  func.return
}

// -----

func.func @resize_non_index(%l: !util.list<?>, %n: i64) {
  // expected-error @+1 {{i64 should be of base attribute index}}
  "util.list.resize"(%l, %n) : (!util.list<?>, i64) -> ()
  func.return
}

// -----

func.func @create_non_list() {
  // expected-error @+1 {{tuple<> should be of base attribute util.list}}
  %l = "util.list.create"() : () -> tuple<>
  func.return
}

// -----

func.func @create_capacity_non_index(%c: i32) {
  // expected-error @+1 {{i32 should be of base attribute index}}
  %l = "util.list.create"(%c) : (i32) -> !util.list<?>
  func.return
}

// -----

// expected-error @+1 {{type expected}}
func.func @element_not_a_type(%l: !util.list<0 : i32>) {
  func.return
}

// -----

// expected-error @+1 {{type expected}}
func.func @list_without_element(%l: !util.list<>) {
  func.return
}
