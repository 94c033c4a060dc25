"""The command lines: `abi-opt` (`opt_main`, entered through `console`), `abi-sig`
(`sig_main`), what both do with files, streams and signals (`output`), and the dialect
reference generator (`docgen`). Nothing below this package imports it."""
