"""The opening pairs a long run has completed, kept small.

:class:`~referee.ratings.elo.RunningCounts` remembers each pair key's games, because a key
that gets one more game changes its units (two games of one pairing are one pentanomial
unit; a key with other games counts each as its own). A run has a key for every two games
and completes almost all of them; as a ``dict`` of strings and tuples each would cost more
than the run's summary of its two games. :class:`ClosedPairs` holds the
completed ones' text in one buffer, their hashes and their two games' codes in arrays,
indexed by an open-addressing table of the hash, so that a key costs a few dozen bytes and
is still found exactly (the text is compared where the hash is equal).
"""

from __future__ import annotations

from array import array

_DEAD = 0xFFFFFFFF
"""A member code marking a key taken back out (:meth:`ClosedPairs.pop`)."""


_hash = hash  # a test makes every key collide through it


def _text(key: str) -> bytes:
    # Injective on every str (lone surrogates included), as the results' pair keys are read.
    return key.encode("utf-8", "surrogatepass")


class ClosedPairs:
    """Text keys, each with two small ints (below 2**32 - 1): :meth:`put` one absent,
    :meth:`pop` one (absent: None). An entry popped is marked dead, its text kept so that
    the table's probes still pass over it; a key put again takes its entry back."""

    def __init__(self) -> None:
        self._text = bytearray()
        self._ends = array("Q")  # each entry's end in _text
        self._hashes = array("q")  # each entry's key's hash (a str caches its own)
        self._members = array("I")  # two an entry
        self._table = array("I", bytes(4 * 16))  # entry + 1; 0: a free slot
        self._live = 0

    def __len__(self) -> int:
        return self._live

    def _find(self, key: str, h: int) -> tuple[int, int]:
        """The table slot of ``key``'s entry and the entry (-1 and a free slot: absent)."""
        table, hashes = self._table, self._hashes
        mask = len(table) - 1
        slot = h & mask
        data = None
        while True:
            found = table[slot]
            if not found:
                return slot, -1
            entry = found - 1
            if hashes[entry] == h:
                if data is None:
                    data = _text(key)
                ends = self._ends
                if self._text[ends[entry - 1] if entry else 0 : ends[entry]] == data:
                    return slot, entry
            slot = (slot + 1) & mask

    def put(self, key: str, members: tuple[int, int]) -> None:
        h = _hash(key)
        slot, entry = self._find(key, h)
        if entry >= 0:
            if self._members[2 * entry] != _DEAD:
                raise KeyError(f"pair key {key!r} is there already")
            self._members[2 * entry], self._members[2 * entry + 1] = members
            self._live += 1
            return
        self._text += _text(key)
        self._ends.append(len(self._text))
        self._hashes.append(h)
        self._members.extend(members)
        self._live += 1
        self._table[slot] = len(self._ends)
        if 2 * len(self._ends) > len(self._table):
            self._grow()

    def pop(self, key: str) -> tuple[int, int] | None:
        _, entry = self._find(key, _hash(key))
        if entry < 0 or self._members[2 * entry] == _DEAD:
            return None
        members = (self._members[2 * entry], self._members[2 * entry + 1])
        self._members[2 * entry] = self._members[2 * entry + 1] = _DEAD
        self._live -= 1
        return members

    def _grow(self) -> None:
        table = array("I", bytes(4 * 2 * len(self._table)))
        mask = len(table) - 1
        for entry, h in enumerate(self._hashes):
            slot = h & mask
            while table[slot]:
                slot = (slot + 1) & mask
            table[slot] = entry + 1
        self._table = table
