"""A tournament's config: the frozen values (:mod:`.values`), the YAML loading and its guards
(:mod:`.loading`), every key declared once (:mod:`.keys`: its check, default and the README's
row), the validation that reads the file through those declarations (:mod:`.validation`, with
the primitive checks of :mod:`.checks`) and the openings it names (:mod:`.openings`). Nothing
here starts a process or plays a game."""
