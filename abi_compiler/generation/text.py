"""Generated tokens → text pieces as they come: each piece is text that can no longer
change, so that the pieces' concatenation is the decoded text. A character whose bytes
span several byte-level tokens (an accent, CJK, an emoji) is held back until it is whole
(the decoder shows an incomplete one as U+FFFD), and so is text that may be the start of a
stop string; a stop string found ends the text before it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["TextPieces"]

_INCOMPLETE = "\ufffd"


class TextPieces:
    """Text of the tokens `add`ed so far (``decode`` turns ids into text), given out in
    pieces; ``stopped`` once a stop string appeared (the text then ends before it)."""

    def __init__(self, decode: Callable[[Sequence[int]], str], stops: Sequence[str]) -> None:
        self._decode = decode
        self._stops = [stop for stop in stops if stop]
        self._ids: list[int] = []
        self._text = ""
        #: The length of the text given out so far.
        self.given = 0
        self.stopped = False

    def add(self, token: int) -> str:
        """The new text that ``token`` makes final ('' when none yet)."""
        self._ids.append(token)
        self._text = self._decode(self._ids)
        ready = len(self._text.rstrip(_INCOMPLETE))
        return self._piece(ready, final=False)

    def finish(self) -> str:
        """The rest of the text, once no token follows."""
        return self._piece(len(self._text), final=True)

    def _piece(self, ready: int, final: bool) -> str:
        if self.stopped:
            return ""
        text = self._text
        longest = max((len(stop) for stop in self._stops), default=0)
        start = max(0, self.given - longest + 1)
        found = [i for i in (text.find(stop, start, ready) for stop in self._stops) if i >= 0]
        if found:
            self.stopped = True
            ready = min(found)
        elif not final:
            ready -= self._held(text[:ready])
        if ready <= self.given:
            return ""
        piece = text[self.given : ready]
        self.given = ready
        return piece

    def _held(self, text: str) -> int:
        """How many characters at the end of ``text`` may begin a stop string."""
        for length in range(min(len(text), max((len(s) for s in self._stops), default=0)), 0, -1):
            tail = text[-length:]
            if any(stop.startswith(tail) for stop in self._stops):
                return length
        return 0
