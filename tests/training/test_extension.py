import pytest

from chainer import training
from chainer.training import extension


def test_extension_defaults():
    class MyExt(training.Extension):
        def __call__(self, trainer):
            pass

    ext = MyExt()
    assert ext.trigger == (1, "iteration")
    assert ext.priority == training.PRIORITY_READER
    assert ext.name is None
    assert ext.default_name == "MyExt"
    assert ext.initialize(None) is None
    assert ext.finalize() is None
    assert ext.on_error(None, None, None) is None
    assert ext.serialize(None) is None


def test_default_name_can_be_overridden():
    class Named(training.Extension):
        default_name = "custom"

    assert Named().default_name == "custom"


def test_base_call_must_be_overridden():
    with pytest.raises(NotImplementedError, match="Extension.__call__"):
        training.Extension()(None)


def test_invoke_before_training_was_removed():
    with pytest.raises(AttributeError, match="removed since Chainer v2"):
        training.Extension().invoke_before_training  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'other'"):
        training.Extension().other  # noqa: B018


def test_make_extension_sets_attributes():
    def init(trainer):
        pass

    def fin():
        pass

    def err(trainer, exc, tb):
        pass

    @training.make_extension(
        trigger=(2, "epoch"),
        default_name="nm",
        priority=training.PRIORITY_WRITER,
        finalizer=fin,
        initializer=init,
        on_error=err,
    )
    def ext(trainer):
        pass

    assert ext.trigger == (2, "epoch")
    assert ext.default_name == "nm"
    assert ext.priority == training.PRIORITY_WRITER
    assert ext.finalize is fin
    assert ext.initialize is init
    assert ext.on_error is err


def test_make_extension_defaults():
    @training.make_extension()
    def my_ext(trainer):
        pass

    assert my_ext.trigger == (1, "iteration")
    assert my_ext.default_name == "my_ext"
    assert my_ext.priority == training.PRIORITY_READER
    assert my_ext.finalize is None
    assert my_ext.initialize is None
    assert my_ext.on_error is None


def test_make_extension_rejects_unknown_kwargs():
    with pytest.raises(TypeError, match="'trigerr'"):
        training.make_extension(trigerr=(1, "epoch"))
    with pytest.raises(ValueError, match="invoke_before_training"):
        training.make_extension(invoke_before_training=True)


def test_module_priorities():
    assert extension.PRIORITY_WRITER > extension.PRIORITY_EDITOR
    assert extension.PRIORITY_EDITOR > extension.PRIORITY_READER
