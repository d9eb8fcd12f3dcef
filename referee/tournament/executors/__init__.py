"""Where games run: in this process (:mod:`.local`), over referee processes on this machine
(:mod:`.processes`, with :mod:`.referee_process` and its :mod:`.frames`), or on a Dask
cluster (:mod:`.dask_cluster`); :mod:`.batch` and :mod:`.pool` are what they share. An
executor plays the games it is handed and never decides which games come next."""
