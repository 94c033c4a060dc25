"""What passes and the pipeline share about IR objects: warnings about them
(`diagnostics`), which top-level ops a pass changed (`changes`), their source offsets
(`location_table`), types, attributes and function headers as text
(`attribute_text`), a function's visibility and value attributes (`func_op`), and
xDSL's names the project relies on (`xdsl_compat`). Passes import this layer, never the
pipeline's parser and printer or the command line."""
