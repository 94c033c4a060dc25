"""Pure signature codecs: no xDSL imports (docs/spec.md §4-§6, §9)."""
