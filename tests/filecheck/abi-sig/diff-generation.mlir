// `abi-sig diff` compares the module's generation job (`abi.generation`, docs/formats.md,
// "Comparing two versions"), member by member: a shorter cache, another tokenizer (by its
// recorded size and sha256) and a chat template removed break; other end-of-sequence ids
// and default settings are compatible. The job removed breaks, added is compatible. The
// same module against itself: nothing, 0.
// RUN: not abi-sig diff %s %S/Inputs/diff-generation-new.txt | filecheck %s --match-full-lines --strict-whitespace
// RUN: not abi-sig diff %S/Inputs/diff-generation-new.txt %s | filecheck %s --check-prefix=BACK --match-full-lines --strict-whitespace
// RUN: not abi-sig diff %s %S/Inputs/diff-generation-none.txt | filecheck %s --check-prefix=REMOVED --match-full-lines --strict-whitespace
// RUN: abi-sig diff %S/Inputs/diff-generation-none.txt %s | filecheck %s --check-prefix=ADDED --match-full-lines --strict-whitespace
// RUN: not abi-sig diff --format json %s %S/Inputs/diff-generation-new.txt | filecheck %s --check-prefix=JSON
// RUN: abi-sig diff %s %s | filecheck %s --check-prefix=SAME --allow-empty

//      CHECK:breaking: main: generation cache: 64 -> 32
// CHECK-NEXT:breaking: main: generation tokenizer: 4861 bytes, sha256 5d0c00000000… (323 tokens) -> 4870 bytes, sha256 9f1e00000000… (323 tokens)
// CHECK-NEXT:breaking: main: generation chat_template: removed 68 characters, sha256 28f980f1744d…
// CHECK-NEXT:compatible: main: generation eos: [1] -> [1, 2]
// CHECK-NEXT:compatible: main: generation defaults: max_new_tokens=20 -> max_new_tokens=32, temperature=0.7
// CHECK-EMPTY:

//      BACK:breaking: main: generation tokenizer: 4870 bytes, sha256 9f1e00000000… (323 tokens) -> 4861 bytes, sha256 5d0c00000000… (323 tokens)
// BACK-NEXT:compatible: main: generation cache: 32 -> 64
// BACK-NEXT:compatible: main: generation eos: [1, 2] -> [1]
// BACK-NEXT:compatible: main: generation defaults: max_new_tokens=32, temperature=0.7 -> max_new_tokens=20
// BACK-NEXT:compatible: main: generation chat_template: added 68 characters, sha256 28f980f1744d…
// BACK-EMPTY:

//      REMOVED:breaking: main: generation: removed ids input_ids, positions cache_position, cache 64, vocabulary 323, eos [1], defaults max_new_tokens=20, tokenizer 4861 bytes (323 tokens), chat template
// REMOVED-EMPTY:

//      ADDED:compatible: main: generation: added ids input_ids, positions cache_position, cache 64, vocabulary 323, eos [1], defaults max_new_tokens=20, tokenizer 4861 bytes (323 tokens), chat template
// ADDED-EMPTY:

// JSON:      "function": "main",
// JSON-NEXT: "line": "breaking: main: generation cache: 64 -> 32",
// JSON-NEXT: "new": "32",
// JSON-NEXT: "old": "64",
// JSON-NEXT: "path": [
// JSON-NEXT:   "cache"
// JSON-NEXT: ],
// JSON-NEXT: "severity": "breaking",
// JSON-NEXT: "side": "generation",
// JSON-NEXT: "what": "job"

// SAME-NOT: {{.}}

func.func @main(%ids: tensor<1x?xi64>, %pos: tensor<?xi64>) -> tensor<1x?x323xf32> attributes {iree.reflection = {abi.generation = "{\22cache\22:64,\22chat_template\22:\22{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}\22,\22defaults\22:{\22max_new_tokens\22:20},\22eos\22:[1],\22ids\22:\22input_ids\22,\22positions\22:\22cache_position\22,\22special_tokens\22:{\22bos_token\22:\22<s>\22},\22step\22:null,\22tokenizer\22:{\22bytes\22:4861,\22sha256\22:\225d0c000000000000000000000000000000000000000000000000000000000000\22,\22vocabulary\22:323},\22v\22:1,\22vocabulary\22:323}", iree.abi = "{\22a\22:[[\22named\22,\22input_ids\22,[\22ndarray\22,\22i64\22,2,1,null]],[\22named\22,\22cache_position\22,[\22ndarray\22,\22i64\22,1,null]]],\22r\22:[[\22ndarray\22,\22f32\22,3,1,null,323]],\22v\22:1}"}} {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %ids, %c1 : tensor<1x?xi64>
  %r = tensor.empty(%n) : tensor<1x?x323xf32>
  return %r : tensor<1x?x323xf32>
}
