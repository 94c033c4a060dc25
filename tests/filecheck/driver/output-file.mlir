// -o writes the output to a file (and nothing to stdout).
// RUN: abi-opt %s -o %t.out > %t.stdout
// RUN: echo -n > %t.empty
// RUN: diff %t.stdout %t.empty
// RUN: filecheck %s < %t.out

// CHECK: func.func @f()
func.func @f() {
  func.return
}
