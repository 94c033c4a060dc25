"""Everything the project does with xDSL beyond its public API: public names for its
internals (`xdsl_compat`), the fixes of where it reads or prints MLIR text differently
from MLIR (`xdsl_fixes`), and faster symbol lookups while verifying (`symbol_cache`)."""
