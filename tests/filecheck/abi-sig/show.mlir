// `abi-sig show`: one line per exported function, in the module's order, from its V1
// `iree.abi` (in `iree.reflection`, or a frontend's bare attribute), else its legacy
// `f` + `sip` (a dict root gives named arguments, in argument order), else its type
// (then the line ends with `  (no reflection)`). Private functions, declarations and
// `iree.abi.none` are not exported; `$async` variants show with `--all` only. A type the
// records have no name for prints `?`. Only the headers are read: the bodies use a
// dialect nobody registered, in custom syntax.
// RUN: abi-sig show %s | filecheck %s --match-full-lines --strict-whitespace
// RUN: abi-sig show --all %s | filecheck %s --check-prefix=ALL --match-full-lines --strict-whitespace
// RUN: abi-sig show - < %s | filecheck %s --match-full-lines --strict-whitespace

//      CHECK:predict(tensor<?x4xf32>, x: i32) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:generate(tokens: tensor<?x3xf32>, temperature: i32) -> (tensor<?x3xf32>)
// CHECK-NEXT:plain(tensor<?x8xf32>, tuple[i32, f16], ?) -> (tensor<8xf32>)  (no reflection)
// CHECK-NEXT:from_frontend(params: dict{b: tensor<2xf32>, w: tensor<4x2xf32>}) -> (tensor<f32>)
// CHECK-NEXT:kept(i64) -> ()  (no reflection)
// CHECK-EMPTY:

//      ALL:predict(tensor<?x4xf32>, x: i32) -> (tensor<4xf32>, tensor<4xf32>)
// ALL-NEXT:generate(tokens: tensor<?x3xf32>, temperature: i32) -> (tensor<?x3xf32>)
// ALL-NEXT:plain(tensor<?x8xf32>, tuple[i32, f16], ?) -> (tensor<8xf32>)  (no reflection)
// ALL-NEXT:from_frontend(params: dict{b: tensor<2xf32>, w: tensor<4x2xf32>}) -> (tensor<f32>)
// ALL-NEXT:kept(i64) -> ()  (no reflection)
// ALL-NEXT:predict$async(tensor<?x4xf32>, ?) -> ()  (no reflection)
// ALL-EMPTY:

module attributes {custom.target = #custom.cpu<"host">} {
  custom.global @state : tensor<4xf32> {{ not MLIR a parser could read }}
  func.func @predict(%a: tensor<?x4xf32>, %x: i32) -> (tensor<4xf32>, tensor<4xf32>) attributes {iree.reflection = {iree.abi = "{\22a\22:[[\22ndarray\22,\22f32\22,2,null,4],[\22named\22,\22x\22,\22i32\22]],\22r\22:[[\22stuple\22,[\22ndarray\22,\22f32\22,1,4],[\22ndarray\22,\22f32\22,1,4]]],\22v\22:1}"}} {
    %0, %1 = custom.predict %a, %x with {{ anything [at] all }} : tensor<4xf32>
    return %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  func.func @generate(%tokens: tensor<?x3xf32>, %temperature: i32) -> tensor<?x3xf32> attributes {iree.reflection = {abi = "sip", f = "I14!B6!d-1d3S3!t6R9!B6!d-1d3", fv = "1", sip = "I33!D29!K12!temperature_1K7!tokens_0R3!_0", sipv = "1"}} {
    custom.sample %tokens <%temperature> ??? 
    return %tokens : tensor<?x3xf32>
  }
  func.func @plain(%a: tensor<?x8xf32>, %t: tuple<i32, f16>, %h: !custom.handle) -> tensor<8xf32> {
    %0 = custom.reduce %a by %h : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func @from_frontend(%b: tensor<2xf32>, %w: tensor<4x2xf32>) -> tensor<f32> attributes {iree.abi = "{\22a\22:[[\22named\22,\22params\22,[\22sdict\22,[\22b\22,[\22ndarray\22,\22f32\22,1,2]],[\22w\22,[\22ndarray\22,\22f32\22,2,4,2]]]]],\22r\22:[[\22ndarray\22,\22f32\22,0]],\22v\22:1}"} {
    %0 = custom.loss %b, %w : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @kept(%n: i64) attributes {iree.module.export} {
    return
  }
  func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
  func.func @opted_out(%a: tensor<4xf32>) attributes {iree.abi.none} {
    return
  }
  func.func private @imported(i32) -> i32
  func.func @declared(i32) -> i32
  func.func @"predict$async"(%a: tensor<?x4xf32>, %f: !custom.fence) {
    custom.signal %f
    return
  }
}
