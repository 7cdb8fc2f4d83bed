"""``chainer.links`` covers Chainer 7's links with their signatures and module paths.

TheanoFunction is there, but needs Theano (dead, not installable on Python 3.9+):
without it, constructing one raises an error naming the package.
"""

import importlib
import inspect
import pathlib
import re

import pytest

import chainer

L = pytest.importorskip("chainer.links", reason="chainer-links is not installed")

# By Chainer 7's module paths (chainer.links.<category>.<module>).
CATALOGUE = {
    "connection": """Bias Bilinear Convolution1D Convolution2D Convolution3D
        ConvolutionND Deconvolution1D Deconvolution2D Deconvolution3D DeconvolutionND
        DeformableConvolution2D DepthwiseConvolution2D DilatedConvolution2D EmbedID
        Highway Inception InceptionBN Linear LocalConvolution2D MLPConvolution2D
        Parameter Scale""",
    "activation": "Maxout PReLU SimplifiedDropconnect Swish",
    "loss": "BinaryHierarchicalSoftmax BlackOut CRF1d NegativeSampling",
    "normalization": """BatchNormalization BatchRenormalization
        DecorrelatedBatchNormalization GroupNormalization LayerNormalization""",
    "rnn": """ChildSumTreeLSTM GRU LSTM NStepBiGRU NStepBiLSTM NStepBiRNNReLU
        NStepBiRNNTanh NStepGRU NStepLSTM NStepRNNReLU NStepRNNTanh NaryTreeLSTM
        StatefulGRU StatefulMGU StatefulPeepholeLSTM StatefulZoneoutLSTM StatelessGRU
        StatelessLSTM StatelessMGU""",
    "model": """Classifier VGG16Layers VGG19Layers ResNet50Layers ResNet101Layers
        ResNet152Layers GoogLeNet""",
    "theano": "TheanoFunction",
}
NAMES = sorted(
    (category, name) for category, names in CATALOGUE.items() for name in names.split()
)

# Checked in beside this file (format: scripts/api_list.py); without it these
# tests fail, they do not skip.
API_FILE = pathlib.Path(__file__).with_name("chainer7-public-api.tsv")


def _signatures():
    if not API_FILE.is_file():
        raise FileNotFoundError(
            f"the public API list {API_FILE} is missing: it is part of the "
            "repository (scripts/api_list.py rebuilds it)"
        )
    signatures = {}
    for line in API_FILE.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) == 5 and fields[0] == "chainer.links" and fields[2] == "class":
            # The parameters, without a return annotation (`` -> None``).
            match = re.match(r"^(\(.*\))(?: -> \w+)?$", fields[3])
            if match:
                signatures[fields[1]] = match.group(1)
    return signatures


SIGNATURES = _signatures()


def _param_names(sig_text):
    names, depth, buf = [], 0, ""
    for ch in sig_text.strip()[1:-1] + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            part, buf = buf.strip(), ""
            if part and part not in ("*", "/"):
                names.append(re.match(r"(\**\w+)", part).group(1))
        else:
            buf += ch
    return names


def test_catalogue_lists_every_link_of_chainer():
    listed = {name for _, name in NAMES}
    assert set(SIGNATURES) - listed == set()


@pytest.mark.parametrize(("category", "name"), NAMES, ids=[n for _, n in NAMES])
def test_link_exists_in_namespace_and_category(category, name):
    assert hasattr(L, name), f"chainer.links.{name} is missing"
    cls = getattr(L, name)
    assert isinstance(cls, type)
    assert issubclass(cls, chainer.Link)
    assert cls.__module__.startswith(f"chainer.links.{category}."), (
        f"L.{name} lives in {cls.__module__}, expected chainer.links.{category}"
    )
    assert getattr(importlib.import_module(cls.__module__), name) is cls
    assert "Args:" in (cls.__doc__ or ""), f"L.{name} has no Args: docstring"


@pytest.mark.parametrize(("category", "name"), NAMES, ids=[n for _, n in NAMES])
def test_signature_matches_chainer(category, name):
    cls = getattr(L, name)
    expected = _param_names(SIGNATURES[name])
    actual = []
    for p in inspect.signature(cls).parameters.values():
        if p.kind == p.KEYWORD_ONLY and p.name not in expected:
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        actual.append(prefix + p.name)
    assert actual == expected, f"L.{name}{inspect.signature(cls)} != {SIGNATURES[name]}"


def test_caffe_function_at_chainer_path():
    from chainer.links import caffe

    assert caffe.CaffeFunction.__module__ == "chainer.links.caffe.caffe_function"
    assert issubclass(caffe.CaffeFunction, chainer.Link)


def test_links_are_registered_through_the_plugin():
    from chainer import _links_plugin

    registered = _links_plugin.register_links()
    for _, name in NAMES:
        assert registered[name] == f"chainer.links:{name}"
