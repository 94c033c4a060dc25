"""Passes of abi-compiler."""
