"""One game: the :class:`~referee.play.player.Player` interface and its two implementations
(:mod:`~referee.play.process` a real program, :mod:`~referee.play.memory` the SDK in
memory), faults, time controls and clocks, the game loop, the game record, and the driver
(:mod:`~referee.play.driver`) that takes the usual turns of the games a process plays at
once from one task. No YAML, no tournament: a game knows nothing of what is played before
or after it."""
