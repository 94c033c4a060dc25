// Names and dict keys with any Unicode text survive print -> parse -> print and both
// pipelines (docs/design.md#hostile-input): MLIR prints their UTF-8 bytes as `\XX`
// escapes, which abi-opt parses back as the same string (xdsl_compat). JSON escapes them
// as \uXXXX (a surrogate pair above U+FFFF), SIP `K` spans count UTF-8 bytes, keys sort
// byte-wise.

// RUN: abi-opt --parse-all %s | abi-opt | filecheck %s --check-prefix=ROUNDTRIP
// RUN: abi-opt --parse-all %s -p iree-abi-legacy | abi-opt -p iree-abi-legacy | filecheck %s --check-prefix=LEGACY
// RUN: abi-opt --parse-all %s -p iree-abi-v1 | abi-opt -p iree-abi-v1 | filecheck %s --check-prefix=V1

// ROUNDTRIP:      func.func @names(%a: tensor<?xf32> {abi.name = "\C3\A9"}, %b: !abi.dict<"\C3\BC\22\\\0A": i32, "k": f32, "\F0\9F\98\80": i8> {abi.name = "\E6\97\A5\E6\9C\AC"}) -> i32 {
// ROUNDTRIP-NEXT:   %x = abi.dict.get %b["\C3\BC\22\\\0A"] : !abi.dict<"\C3\BC\22\\\0A": i32, "k": f32, "\F0\9F\98\80": i8> -> i32

// LEGACY:      func.func @names(%a: tensor<?xf32> {abi.index_path = ["\C3\A9"], abi.name = "\C3\A9"}, %0: f32 {abi.index_path = ["\E6\97\A5\E6\9C\AC", "k"]}, %x: i32 {abi.index_path = ["\E6\97\A5\E6\9C\AC", "\C3\BC\22\\\0A"]}, %1: i8 {abi.index_path = ["\E6\97\A5\E6\9C\AC", "\F0\9F\98\80"]}) -> (i32 {abi.index_path = []})
// LEGACY-SAME: f = "I20!B4!d-1S1!S3!t6S3!t4R6!S3!t6"
// LEGACY-SAME: sip = "I50!D46!K3!\C3\A9_0K7!\E6\97\A5\E6\9C\ACD26!K2!k_1K6!\C3\BC\22\\\0A_2K5!\F0\9F\98\80_3R3!_0"

// V1:      func.func @names(%a: tensor<?xf32>, %b: !util.list<?>) -> i32 attributes {iree.abi.stub, iree.reflection = {iree.abi =
// V1-SAME{LITERAL}: "{\22a\22:[[\22named\22,\22\\u00e9\22,[\22ndarray\22,\22f32\22,1,null]],[\22named\22,\22\\u65e5\\u672c\22,[\22sdict\22,[\22k\22,\22f32\22],[\22\\u00fc\\\22\\\\\\n\22,\22i32\22],[\22\\ud83d\\ude00\22,\22i8\22]]]],\22r\22:[\22i32\22],\22v\22:1}"}}
// V1:      func.func private @_names(%a: tensor<?xf32>, %0: f32, %x: i32, %1: i8) -> i32

func.func @names(%a: tensor<?xf32> {abi.name = "é"}, %b: !abi.dict<"ü\"\\\n": i32, "k": f32, "😀": i8> {abi.name = "日本"}) -> i32 {
  %x = abi.dict.get %b["ü\"\\\n"] : !abi.dict<"ü\"\\\n": i32, "k": f32, "😀": i8> -> i32
  func.return %x : i32
}
