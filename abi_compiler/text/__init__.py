"""MLIR text read without xDSL: the layout of a module's top-level items, what is carried
as text, symbol references and renames (no xDSL import)."""
