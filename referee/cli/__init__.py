"""The ``vastuz`` command line: :mod:`~referee.cli.main` parses the arguments and runs one
subcommand module (match, show, tournament and report, check); :mod:`~referee.cli.common`
holds the exit codes and argument types they share."""

from referee.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
