"""A module's calling convention: every exported function's signature read from MLIR
text, bytecode or a compiled `.vmfb` (`module_signatures`), and two versions of a module
compared (`signature_diff`)."""
