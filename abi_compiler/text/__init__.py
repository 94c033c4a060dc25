"""MLIR text read without xDSL's lexer: the lexical grammar (`lexer`), the layout of a
module's top-level items and what is carried as text (`carry`), name locations, and MLIR
bytecode turned into text (`bytecode`). The modules here import no xDSL; `to_ir` builds
xDSL objects from that text."""
