import threading

import numpy
import pytest

import chainer
from chainer import link_hook


class Identity(chainer.Link):
    def forward(self, x, scale=1):
        return x * scale


class Recorder(link_hook.LinkHook):
    name = "Recorder"

    def __init__(self):
        self.events = []

    def added(self, link):
        self.events.append(("added", link))

    def deleted(self, link):
        self.events.append(("deleted", link))

    def forward_preprocess(self, args):
        self.events.append(
            ("pre", args.link, args.forward_name, args.args, args.kwargs)
        )

    def forward_postprocess(self, args):
        self.events.append(("post", args.out))


def test_base_hook_does_nothing():
    hook = link_hook.LinkHook()
    assert hook.name == "LinkHook"
    link = Identity()
    link.add_hook(hook)
    assert link(3) == 3
    link.delete_hook("LinkHook")


def test_context_manager_registers_globally():
    link = Identity()
    x = numpy.ones(2)
    with Recorder() as hook:
        assert hook.events == [("added", None)]
        y = link(x, scale=2)
    assert hook.events[1] == ("pre", link, "forward", (x,), {"scale": 2})
    assert hook.events[2][0] == "post"
    assert hook.events[2][1] is y
    assert hook.events[3] == ("deleted", None)
    link(x)
    assert len(hook.events) == 4


def test_duplicate_global_name():
    with Recorder(), pytest.raises(KeyError, match="Recorder"), Recorder():
        pass


def test_global_registration_is_per_thread():
    seen = []

    def worker():
        with Recorder() as hook:
            Identity()(1)
        seen.append(len(hook.events))

    with Recorder() as outer:
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen == [4]
    assert outer.events == [("added", None), ("deleted", None)]


def test_nested_links_each_call_the_hook():
    class Outer(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.inner = Identity()

        def forward(self, x):
            return self.inner(x) + 1

    model = Outer()
    with Recorder() as hook:
        model(1)
    pres = [event[1] for event in hook.events if event[0] == "pre"]
    assert pres == [model, model.inner]
