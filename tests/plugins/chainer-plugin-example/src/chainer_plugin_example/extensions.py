"""The example plugin's trainer extension, ``ExampleExtension``."""

from __future__ import annotations


class ExampleExtension:
    """Records the iteration number each time the trainer calls it.

    Args:
        trigger: When the trainer calls it, as for any extension.

    Attributes:
        iterations (list of int): ``trainer.updater.iteration`` at each call.
    """

    name = "ExampleExtension"
    priority = 100

    def __init__(self, trigger=(1, "iteration")):
        self.trigger = trigger
        self.iterations = []

    def __call__(self, trainer):
        self.iterations.append(trainer.updater.iteration)
