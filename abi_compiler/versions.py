"""The installed versions of this project and of the packages it works with, as their
distributions record them (`importlib.metadata`): for `--version`, the stubs `abi-sig stub`
writes and the provenance a compiled module records. Nothing is imported to learn a version.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["PROJECT", "package_version"]

#: This project's distribution name.
PROJECT = "abi-compiler"


def package_version(name: str = PROJECT) -> str:
    """The installed version of the distribution ``name``, or ``"unknown"``."""
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"
