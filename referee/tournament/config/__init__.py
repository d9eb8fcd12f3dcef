"""A tournament's config: the frozen values (:mod:`.values`), the YAML loading and its guards
(:mod:`.loading`), the validation of every key (:mod:`.validation`, :mod:`.checks`) and the
openings it names (:mod:`.openings`). Nothing here starts a process or plays a game."""
