"""Pure signature codecs: no xDSL imports (SPEC §4-§6, §9)."""
