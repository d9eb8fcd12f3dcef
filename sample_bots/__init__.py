"""Sample Vastuz bots on the bot SDK, weakest to strongest: ``random_bot``, ``greedy_bot``
(one ply of :func:`sample_bots.evaluate.margin`), ``mcts_bot`` (UCT within a time budget).
Each runs as ``python -m sample_bots.<name> --seed N``; see ``sample_bots/README.md``."""
