"""A recorded chat template applied to messages, as transformers applies one
(`apply_chat_template`): Jinja in a sandbox (a template from a file is data: it reaches no
Python attribute it should not), blocks trimmed, the special tokens' names and
``add_generation_prompt`` in its context, ``raise_exception`` to refuse. Needs jinja2
(the `[generate]` extra); without it, an `AbiError` says so."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from abi_compiler.errors import AbiError

__all__ = ["check_messages", "render"]


def check_messages(messages: Any) -> list[dict[str, Any]]:
    """``messages`` as a list of plain dicts, each with a ``role`` and a ``content`` (str);
    an `AbiError` naming the first that is not one."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise AbiError(
            f"messages: expected a list of {{'role', 'content'}} mappings, got "
            f"{type(messages).__name__}"
        )
    if not messages:
        raise AbiError("messages: expected at least one message")
    found = []
    for position, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise AbiError(
                f"messages[{position}]: expected a mapping, got {type(message).__name__}"
            )
        role, content = message.get("role"), message.get("content")
        if not isinstance(role, str) or not isinstance(content, str):
            raise AbiError(f"messages[{position}]: expected a 'role' and a 'content' (strings)")
        found.append(dict(message))
    return found


def render(
    template: str,
    messages: Any,
    special_tokens: Mapping[str, str],
    add_generation_prompt: bool = True,
) -> str:
    try:
        from jinja2 import TemplateError
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError:
        raise AbiError(
            "applying the chat template needs jinja2: pip install 'abi-compiler[generate]'"
        ) from None
    checked = check_messages(messages)

    def raise_exception(message: str) -> None:
        raise AbiError(f"the chat template refuses the messages: {message}")

    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    environment.globals["raise_exception"] = raise_exception
    try:
        compiled = environment.from_string(template)
        return compiled.render(
            messages=checked, add_generation_prompt=add_generation_prompt, **special_tokens
        )
    except TemplateError as error:
        raise AbiError(f"the chat template fails: {error}") from None
