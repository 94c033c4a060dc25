// Malformed torch tensor types are located parse errors.
// RUN: abi-opt --parse-all %s --split-input-file --verify-diagnostics

// expected-error @+1 {{Expected integer literal as a torch tensor size}}
func.func @size(%a: !torch.vtensor<[2,x],f32>) {
  func.return
}

// -----

// expected-error @+1 {{Expected ','}}
func.func @no_dtype(%a: !torch.vtensor<[2]>) {
  func.return
}

// -----

// expected-error @+1 {{Expected '['}}
func.func @no_sizes(%a: !torch.vtensor<f32>) {
  func.return
}

// -----

// expected-error @+1 {{Expected ']'}}
func.func @unclosed(%a: !torch.vtensor<[2,3>) {
  func.return
}

// -----

// expected-error @+1 {{torch tensor dtype must be an integer, float or complex type}}
func.func @dtype(%a: !torch.vtensor<[2],index>) {
  func.return
}
