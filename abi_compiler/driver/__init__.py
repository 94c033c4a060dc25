"""The `abi-opt` driver and its support: reading MLIR text with source positions, running
passes, verifying and printing. Everything here imports xDSL; the vendorable core
(`abi_compiler.model`, `.errors`, `.codecs`, `.runtime`) does not need this package."""
