"""The output folder: the results file (:mod:`.results`), the manifest and the standings
files (:mod:`.folder`), the standings page (:mod:`.pages`) and the duplicate check
(:mod:`.duplicates`). Knows files and records, not how games are played or chosen."""
