// The torch-mlir tensor types round-trip in torch-mlir's textual form; an old-style `-1`
// size prints as `?`, and `<*,unk>` (nothing known) as the bare type, as torch-mlir prints it.
// RUN: abi-opt --parse-all %s | abi-opt | filecheck %s --match-full-lines
// RUN: abi-opt --parse-all %s --print-op-generic | abi-opt | filecheck %s --match-full-lines

// CHECK-LABEL: func.func @types(%a: !torch.vtensor<[2,?],f32>, %b: !torch.vtensor<[],si64>, %c: !torch.vtensor<*,f32>, %d: !torch.vtensor, %e: !torch.vtensor<[3,?],unk>, %f: !torch.vtensor<[1,3,224,224],bf16>, %g: !torch.vtensor<[2],ui8>, %h: !torch.vtensor<[4],i1>, %i: !torch.vtensor<[2],complex<f32>>, %j: !torch.tensor<[2],f32>, %k: !torch.tensor, %l: !torch.vtensor) {
// CHECK-NEXT:  func.return
// CHECK-NEXT:  }
func.func @types(%a: !torch.vtensor<[2,?],f32>, %b: !torch.vtensor<[],si64>, %c: !torch.vtensor<*,f32>,
                 %d: !torch.vtensor, %e: !torch.vtensor<[3, -1], unk>, %f: !torch.vtensor<[1,3,224,224],bf16>,
                 %g: !torch.vtensor<[2],ui8>, %h: !torch.vtensor<[4],i1>, %i: !torch.vtensor<[2],complex<f32>>,
                 %j: !torch.tensor<[2],f32>, %k: !torch.tensor, %l: !torch.vtensor) {
  func.return
}
