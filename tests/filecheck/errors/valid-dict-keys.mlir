// Valid: dict keys with quotes, backslashes, newlines, control characters, the empty
// key and non-ASCII text. Keys sort byte-wise on UTF-8; JSON escapes exactly as Python's
// json.dumps(ensure_ascii=True); SIP `K` spans count UTF-8 bytes. Each pipeline's output
// re-parses and a second run changes nothing.
// RUN: abi-opt %s -p iree-abi-v1 | abi-opt -p iree-abi-v1 | filecheck %s --check-prefix=V1
// RUN: abi-opt %s -p iree-abi-legacy | abi-opt -p iree-abi-legacy | filecheck %s --check-prefix=LEGACY

// V1:      func.func @keys(%d: !util.list<?>) attributes {iree.abi.stub, iree.reflection = {iree.abi =
// V1-SAME{LITERAL}: "{\22a\22:[[\22sdict\22,[\22\22,\22i32\22],[\22Zeta\22,\22i32\22],[\22back\\\\slash\22,\22i32\22],[\22bell\\u0007\22,\22i32\22],[\22new\\nline\22,\22i32\22],[\22quote\\\22\22,\22i32\22],[\22tab\\t\22,\22i32\22],[\22\\u00e9\22,\22i32\22],[\22\\u0436\22,\22i32\22],[\22\\u20ac\22,\22i32\22]]],\22r\22:[],\22v\22:1}"}} {

// LEGACY:      func.func @keys(%0: i32 {abi.index_path = [0 : i64, ""]}, %1: i32 {abi.index_path = [0 : i64, "Zeta"]}, %2: i32 {abi.index_path = [0 : i64, "back\\slash"]}, %3: i32 {abi.index_path = [0 : i64, "bell\07"]}, %4: i32 {abi.index_path = [0 : i64, "new\0Aline"]}, %5: i32 {abi.index_path = [0 : i64, "quote\22"]}, %6: i32 {abi.index_path = [0 : i64, "tab\09"]}, %7: i32 {abi.index_path = [0 : i64, "\C3\A9"]}, %8: i32 {abi.index_path = [0 : i64, "\D0\B6"]}, %9: i32 {abi.index_path = [0 : i64, "\E2\82\AC"]})
// LEGACY-SAME: sip = "I107!S102!k0D96!K1!_0K5!Zeta_1K11!back\\slash_2K6!bell\07_3K9!new\0Aline_4K7!quote\22_5K5!tab\09_6K3!\C3\A9_7K3!\D0\B6_8K4!\E2\82\AC_9R1!"

func.func @keys(%d: !abi.dict<"quote\"": i32, "back\\slash": i32, "new\nline": i32, "tab\t": i32, "bell\07": i32, "": i32, "Zeta": i32, "é": i32, "ж": i32, "€": i32>) {
  func.return
}
