"""Carried text and the IR: headers, types and attributes built from their text without
xDSL's lexer, types parsed once per distinct text, and the stand-ins a parsed module holds
for what stays carried. Used by the pipeline's stages."""
