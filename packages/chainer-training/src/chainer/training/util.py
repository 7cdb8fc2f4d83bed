"""Utilities of the training loop (``chainer.training.util``)."""

from __future__ import annotations

import time

from chainer.training import trigger as trigger_module

get_trigger = trigger_module.get_trigger

# The clock of Trainer.elapsed_time and TimeTrigger.
_get_time = time.perf_counter
