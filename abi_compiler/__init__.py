"""abi-compiler: callable ABIs for MLIR functions (see README.md)."""
