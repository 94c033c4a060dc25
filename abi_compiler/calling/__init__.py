"""The caller's side: Python values to and from a function's flat arguments and results
(`marshal`, no xDSL, numpy or IREE), and calling compiled IREE modules (`vm`). The public
names are `abi_compiler.iree` and `abi_compiler.runtime`."""
