"""What to play next: the plan seam (:mod:`.plan`) and one module per schedule kind (fixed
round robin and gauntlet, SPRT, adaptive). Pure: no I/O, no processes, no executor."""
