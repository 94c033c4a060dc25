// Every constraint of the hal dialect, violated once.
// RUN: abi-opt --parse-all %s --split-input-file --verify-diagnostics

func.func @import_missing_dims(%bv: !hal.buffer_view) {
  // expected-error @+1 {{expected 1 dim values for result type tensor<?x4xf32> (one index per '?'), got 0}}
  %t = "hal.tensor.import"(%bv) : (!hal.buffer_view) -> tensor<?x4xf32>
  func.return
}

// -----

func.func @import_extra_dims(%bv: !hal.buffer_view, %d: index) {
  // expected-error @+1 {{expected 0 dim values for result type tensor<4xf32> (one index per '?'), got 1}}
  %t = "hal.tensor.import"(%bv, %d) : (!hal.buffer_view, index) -> tensor<4xf32>
  func.return
}

// -----

func.func @import_custom_form_needs_dims(%bv: !hal.buffer_view) {
  // expected-error @+1 {{expected {...} with 1 dim values (one index per '?') after tensor<?x4xf32>}}
  %t = hal.tensor.import %bv : !hal.buffer_view -> tensor<?x4xf32>
  func.return
}

// -----

func.func @import_from_a_tensor(%t: tensor<4xf32>) {
  // expected-error @+1 {{tensor<4xf32> should be of base attribute hal.buffer_view}}
  %u = "hal.tensor.import"(%t) : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @import_to_a_non_tensor(%bv: !hal.buffer_view) {
  // expected-error @+1 {{result 'target' at position 0 does not verify:}}
  %x = "hal.tensor.import"(%bv) : (!hal.buffer_view) -> i32
  func.return
}

// -----

func.func @import_dims_not_index(%bv: !hal.buffer_view, %d: i32) {
  // expected-error @+1 {{i32 should be of base attribute index}}
  %t = "hal.tensor.import"(%bv, %d) : (!hal.buffer_view, i32) -> tensor<?xf32>
  func.return
}

// -----

func.func @export_missing_dims(%t: tensor<?x?xf32>, %d: index) {
  // expected-error @+1 {{expected 2 dim values for source type tensor<?x?xf32> (one index per '?'), got 1}}
  %bv = "hal.tensor.export"(%t, %d) : (tensor<?x?xf32>, index) -> !hal.buffer_view
  func.return
}

// -----

func.func @export_to_a_non_buffer_view(%t: tensor<4xf32>) {
  // expected-error @+1 {{tensor<4xf32> should be of base attribute hal.buffer_view}}
  %u = "hal.tensor.export"(%t) : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @dim_negative(%bv: !hal.buffer_view) {
  // expected-error @+1 {{dimension index -1 is negative}}
  %d = hal.buffer_view.dim<%bv : !hal.buffer_view>[-1] : index
  func.return
}

// -----

func.func @dim_of_a_tensor(%t: tensor<4xf32>) {
  // expected-error @+1 {{tensor<4xf32> should be of base attribute hal.buffer_view}}
  %d = "hal.buffer_view.dim"(%t) <{index = 0 : index}> : (tensor<4xf32>) -> index
  func.return
}

// -----

func.func @dim_index_type(%bv: !hal.buffer_view) {
  // expected-error @+1 {{i32 should be of base attribute index}}
  %d = "hal.buffer_view.dim"(%bv) <{index = 0 : i32}> : (!hal.buffer_view) -> index
  func.return
}

// -----

func.func @dim_missing_index(%bv: !hal.buffer_view) {
  // expected-error @+1 {{property 'index' expected}}
  %d = "hal.buffer_view.dim"(%bv) : (!hal.buffer_view) -> index
  func.return
}
