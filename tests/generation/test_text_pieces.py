"""Text pieces as tokens come (`abi_compiler.generation.text`): a character whose UTF-8
bytes span several byte-level tokens is held back until whole, never given out as
U+FFFD; the pieces' concatenation is the decoded text; a stop string ends it."""

from __future__ import annotations

import pytest

from abi_compiler.generation.text import TextPieces
from tests.generation import fixtures

pytest.importorskip("tokenizers")

TEXT = " café naïve 日本語のテキスト 🙂🚀 et €"


@pytest.fixture(scope="module")
def tokenizer() -> object:
    return fixtures.train_tokenizer()


def _decode(tokenizer: object) -> object:
    return lambda ids: tokenizer.decode(list(ids), skip_special_tokens=True)  # type: ignore[attr-defined]


def test_a_character_over_several_tokens_comes_out_whole(tokenizer: object) -> None:
    ids = tokenizer.encode(TEXT, add_special_tokens=False).ids  # type: ignore[attr-defined]
    decode = _decode(tokenizer)
    # Not vacuous: some prefix of the tokens ends inside a character.
    assert any(decode(ids[:n]).endswith("\ufffd") for n in range(1, len(ids)))
    pieces = TextPieces(decode, [])  # type: ignore[arg-type]
    given = [pieces.add(token) for token in ids] + [pieces.finish()]
    assert "".join(given) == TEXT
    assert all("\ufffd" not in piece for piece in given)
    assert "" in given  # (a token that completed no character)
    assert "🙂" in given or any(piece.startswith("🙂") for piece in given)


def test_a_stop_string_ends_the_text_before_it(tokenizer: object) -> None:
    ids = tokenizer.encode(TEXT, add_special_tokens=False).ids  # type: ignore[attr-defined]
    for stop, want in [
        ("日本", " café naïve "),
        ("🚀", " café naïve 日本語のテキスト 🙂"),
        ("zz", TEXT),
    ]:
        pieces = TextPieces(_decode(tokenizer), [stop, "naïvE"])  # type: ignore[arg-type]
        given = []
        for token in ids:
            given.append(pieces.add(token))
            if pieces.stopped:
                break
        given.append(pieces.finish())
        assert "".join(given) == want, stop
        assert pieces.stopped == (stop in TEXT)
        # The start of a stop string is never given out before it is known not to be one.
        assert all(stop not in piece for piece in given)
