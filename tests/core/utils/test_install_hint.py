"""Tests of chainer.utils.install_hint."""

import pytest

from chainer.utils import install_hint


def test_names_the_index_and_the_checkout():
    assert install_hint.install_hint("chainer-links") == (
        "pip install chainer-links (once published on PyPI; from the root of a "
        "source checkout: pip install -e packages/chainer-links)"
    )


def test_extra_is_quoted_for_the_shell():
    assert install_hint.install_hint("chainer-datasets", "svhn") == (
        "pip install 'chainer-datasets[svhn]' (once published on PyPI; from the "
        "root of a source checkout: pip install -e 'packages/chainer-datasets[svhn]')"
    )


def test_upgrade():
    hint = install_hint.install_hint("chainer-training", upgrade=True)
    assert hint.startswith("pip install --upgrade chainer-training (")
    assert hint.endswith("pip install -e packages/chainer-training)")


def test_every_distribution_and_extra():
    for distribution, extras in install_hint.DISTRIBUTIONS.items():
        assert f"pip install {distribution} (" in install_hint.install_hint(
            distribution
        )
        for extra in extras:
            hint = install_hint.install_hint(distribution, extra)
            assert f"-e 'packages/{distribution}[{extra}]'" in hint


def test_unknown_distribution():
    with pytest.raises(ValueError, match="unknown distribution 'chainer-foo'"):
        install_hint.install_hint("chainer-foo")


def test_unknown_extra():
    with pytest.raises(
        ValueError, match="unknown extra 'cuda11' of chainer-cuda; its extras are"
    ):
        install_hint.install_hint("chainer-cuda", "cuda11")
