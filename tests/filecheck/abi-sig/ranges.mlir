// `abi-sig show` of a function whose original call bounds its integer arguments' values
// (`ranges`, docs/formats.md "The original call: `abi.call`"): each range after the
// argument's type, with the elements it holds for when not every element. `abi-sig diff`
// against a version with narrower token ids (breaking, exit status 1) and an unbounded
// cache position (compatible).
// RUN: abi-opt -p iree-abi-v1 %s | abi-sig show - | filecheck %s --match-full-lines
// RUN: abi-opt -p iree-abi-v1 %s -o %t.old.mlir
// RUN: abi-opt -p iree-abi-v1 %S/Inputs/ranges-new.txt -o %t.new.mlir
// RUN: not abi-sig diff %t.old.mlir %t.new.mlir | filecheck %s --check-prefix=DIFF --match-full-lines --strict-whitespace
//      DIFF:breaking: main: argument input_ids: values [0, 96] -> [0, 50]
// DIFF-NEXT:compatible: main: argument cache_position: values [0, 29] at 0 -> any
// DIFF-EMPTY:
// CHECK:main(input_ids: tensor<1x3xi64>, cache_position: tensor<3xi64>) -> (tensor<1x3xi64>)
// CHECK-NEXT:  called as main(*, input_ids: int64[1,3] in [0, 96], cache_position: int64[3] in [0, 29] at 0) -> int64[1,3]
func.func @main(%ids: tensor<1x3xi64> {abi.index_path = ["input_ids"]},
                %pos: tensor<3xi64> {abi.index_path = ["cache_position"]})
    -> (tensor<1x3xi64> {abi.index_path = [0]})
    attributes {iree.reflection = {abi.call = "{\22args\22:[],\22kwargs\22:[[\22input_ids\22,{\22dims\22:[1,3],\22dtype\22:\22int64\22,\22i\22:0,\22ranges\22:[[0,96,null]],\22t\22:\22array\22}],[\22cache_position\22,{\22dims\22:[3],\22dtype\22:\22int64\22,\22i\22:1,\22ranges\22:[[0,29,[0]]],\22t\22:\22array\22}]],\22result\22:{\22dims\22:[1,3],\22dtype\22:\22int64\22,\22i\22:0,\22t\22:\22array\22},\22tensor\22:\22torch\22,\22v\22:1}"}} {
  return %ids : tensor<1x3xi64>
}
