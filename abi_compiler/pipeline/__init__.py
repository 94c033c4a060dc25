"""A run of a pass pipeline over MLIR text: scan, plan what to parse, read headers, parse,
verify, run the passes, print. The command line (`abi_compiler.driver`) and library users
(`abi_compiler.iree`, the frontends, tests) call it."""
