"""Numbers from records: Elo by maximum likelihood with likelihood-ratio intervals, pentanomial
pair statistics, the standings and their rendering (the only tabulate user). Pure: no
trio, no files; it reads :class:`~referee.play.records.GameRecord` values only."""
