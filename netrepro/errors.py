"""Errors every run module raises."""


class RunError(RuntimeError):
    """A run that cannot start or did not finish; the message says what to do."""
