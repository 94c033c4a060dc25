"""Dialects of abi-compiler, declared the IRDL/ODS way."""
