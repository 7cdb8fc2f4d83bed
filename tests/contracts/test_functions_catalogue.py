"""``chainer.functions`` covers Chainer 7's whole catalogue with its signatures."""

import importlib
import inspect
import pathlib
import re

import pytest

F = pytest.importorskip("chainer.functions", reason="chainer-links is not installed")

# By Chainer 7's module paths (squared_difference, listed with the losses in
# the docs, lives in chainer.functions.math).
CATALOGUE = {
    "activation": """clipped_relu crelu elu hard_sigmoid leaky_relu log_softmax
        maxout prelu relu relu6 rrelu selu sigmoid softmax softplus swish tanh""",
    "array": """as_strided broadcast broadcast_to cast concat copy depth2space
        diagonal dstack expand_dims flatten flip fliplr flipud get_item hstack im2col
        moveaxis pad pad_sequence permutate repeat reshape resize_images rollaxis
        scatter_add select_item separate space2depth spatial_transformer_grid
        spatial_transformer_sampler split_axis squeeze stack swapaxes tile transpose
        transpose_sequence vstack where""",
    "math": """absolute add arccos arcsin arctan arctan2 arctanh argmax argmin average
        batch_det batch_inv batch_l2_norm_squared batch_matmul bias ceil cholesky clip
        cos cosh cumprod cumsum det digamma einsum erf erfc erfcinv erfcx erfinv exp
        expm1 fft fix floor fmod identity ifft inv lgamma linear_interpolate log log10
        log1p log2 log_ndtr logsumexp matmul max maximum mean min minimum ndtr ndtri
        polygamma prod rsqrt scale sign sin sinh sparse_matmul sqrt square
        squared_difference sum sum_to tan tensordot zeta""",
    "loss": """absolute_error argmax_crf1d bernoulli_nll black_out
        connectionist_temporal_classification contrastive crf1d cross_covariance decov
        discriminative_margin_based_clustering_loss gaussian_kl_divergence gaussian_nll
        hinge huber_loss mean_absolute_error mean_squared_error negative_sampling
        sigmoid_cross_entropy softmax_cross_entropy squared_error
        triplet""",
    "evaluation": """accuracy binary_accuracy classification_summary f1_score precision
        r2_score recall""",
    "noise": "dropout gaussian gumbel_softmax simplified_dropconnect zoneout",
    "util": "forget",
    "connection": """bilinear convolution_1d convolution_2d convolution_3d
        convolution_nd deconvolution_1d deconvolution_2d deconvolution_3d
        deconvolution_nd deformable_convolution_2d_sampler depthwise_convolution_2d
        dilated_convolution_2d embed_id linear local_convolution_2d shift""",
    "normalization": """batch_normalization batch_renormalization
        decorrelated_batch_normalization fixed_batch_normalization
        fixed_batch_renormalization fixed_decorrelated_batch_normalization
        group_normalization layer_normalization local_response_normalization
        normalize""",
    "pooling": """average_pooling_1d average_pooling_2d average_pooling_3d
        average_pooling_nd max_pooling_1d max_pooling_2d max_pooling_3d max_pooling_nd
        roi_average_align_2d roi_average_pooling_2d roi_max_align_2d
        roi_max_pooling_2d roi_pooling_2d spatial_pyramid_pooling_2d unpooling_1d
        unpooling_2d unpooling_3d unpooling_nd upsampling_2d""",
    "rnn": """lstm n_step_bigru n_step_bilstm n_step_birnn n_step_gru n_step_lstm
        n_step_rnn slstm tree_lstm""",
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
        if (
            len(fields) == 5
            and fields[0] == "chainer.functions"
            and fields[2] == "function"
            and re.match(r"^\(.*\)$", fields[3])
        ):
            signatures[fields[1]] = fields[3]
    return signatures


SIGNATURES = _signatures()


def _param_names(sig_text):
    params = sig_text.strip()[1:-1]
    names, depth, buf = [], 0, ""
    for ch in params + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            part = buf.strip()
            buf = ""
            if part and part not in ("*", "/"):
                match = re.match(r"(\**\w+)", part)
                names.append(match.group(1))
        else:
            buf += ch
    return names


def _category_modules(category):
    folder = pathlib.Path(F.__file__).parent / category
    return sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_"))


@pytest.mark.parametrize(("category", "name"), NAMES, ids=[n for _, n in NAMES])
def test_function_exists_in_namespace_and_category(category, name):
    assert hasattr(F, name), f"chainer.functions.{name} is missing"
    func = getattr(F, name)
    assert callable(func)
    if func.__module__.startswith("chainer.primitive_ops."):
        # A core primitive re-exported under Chainer's name: it must still be
        # reachable at a module of its category.
        modules = [
            importlib.import_module(f"chainer.functions.{category}.{stem}")
            for stem in _category_modules(category)
        ]
        assert any(getattr(m, name, None) is func for m in modules), (
            f"F.{name} is not re-exported by any chainer.functions.{category} module"
        )
    else:
        module = importlib.import_module(func.__module__)
        assert func.__module__.startswith(f"chainer.functions.{category}."), (
            f"F.{name} lives in {func.__module__}, expected "
            f"chainer.functions.{category}"
        )
        assert getattr(module, name) is func
    assert "Args:" in (func.__doc__ or ""), f"F.{name} has no Args: docstring"


@pytest.mark.parametrize(("category", "name"), NAMES, ids=[n for _, n in NAMES])
def test_signature_matches_chainer(category, name):
    func = getattr(F, name, None)
    if func is None:
        pytest.fail(f"chainer.functions.{name} is missing")
    expected = _param_names(SIGNATURES[name])
    actual = []
    for p in inspect.signature(func).parameters.values():
        if p.kind == p.KEYWORD_ONLY and p.name not in expected:
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        actual.append(prefix + p.name)
    assert actual == expected, (
        f"F.{name}{inspect.signature(func)} != {SIGNATURES[name]}"
    )


def test_catalogue_lists_every_function_of_chainer():
    listed = {name for _, name in NAMES}
    assert set(SIGNATURES) - listed == set()
