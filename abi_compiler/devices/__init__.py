"""Where a module runs (docs/calling.md, "Devices and targets"): the targets it is compiled
for (`abi_compiler.devices.targets`) and this machine's CPU as they name CPUs
(`abi_compiler.devices.host`). Pure: no IREE import; compiling and loading use them."""
