"""A rules implementation with two bugs, for ``vastuz rules --vectors``: its legal turns
stop after the first steal (it forgets the steal rounds), and it accepts every play."""

from __future__ import annotations

import sys

from protocol.messages import Command, Response
from protocol.rules import RulesSession


class WrongRules(RulesSession):
    def handle(self, command: Command) -> str:
        if command.name == "legal_turns":
            short = sorted({",".join(t.split(",")[:2]) for t in self.position.legal_turns()})
            return Response(True, command.id, "\n".join(short)).format()
        answer = super().handle(command)
        if command.name == "play" and answer.startswith("?"):
            return Response(True, command.id, "").format()
        return answer


if __name__ == "__main__":
    session = WrongRules()
    for raw in sys.stdin:
        answer = session.handle_line(raw)
        if answer is not None:
            sys.stdout.write(answer)
            sys.stdout.flush()
        if session.finished:
            break
