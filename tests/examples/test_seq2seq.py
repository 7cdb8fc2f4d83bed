"""Tests for examples/seq2seq: the BLEU helper, the corpus generator, the script."""

import math

import numpy
import pytest

SCRIPT = "seq2seq/seq2seq.py"
# A tiny model on a tiny generated corpus: 256 pairs / 32 = 8 iterations an epoch.
TINY = [
    "--train-size=256",
    "--validation-size=20",
    "--unit=16",
    "--layer=1",
    "--batchsize=32",
    "--log-interval=4",
    "--validation-interval=8",
    "--max-length=12",
]


@pytest.fixture
def bleu(load_example):
    return load_example("seq2seq/bleu.py")


@pytest.fixture
def number_corpus(load_example):
    return load_example("seq2seq/number_corpus.py")


@pytest.fixture
def seq2seq(load_example):
    return load_example(SCRIPT)


# BLEU


def test_bleu_perfect_translations_score_one(bleu):
    refs = [[["le", "chat", "est", "sur", "le", "tapis"]], [["un"]], [[3, 4]]]
    hyps = [["le", "chat", "est", "sur", "le", "tapis"], ["un"], [3, 4]]
    assert bleu.corpus_bleu(refs, hyps) == pytest.approx(1.0)


def test_bleu_no_overlap_scores_zero(bleu):
    assert bleu.corpus_bleu([[["a", "b", "c", "d"]]], [["w", "x", "y", "z"]]) == 0.0
    assert bleu.corpus_bleu([[["a", "b"]]], [[]]) == 0.0


def test_bleu_known_case_with_smoothing(bleu):
    # Clipped matches 5/6, 3/5, 1/4 and 0/3 ("on the mat" is the only 3-gram
    # match); method1 smoothing counts 0.1 for the empty order. Equal lengths,
    # so no brevity penalty. NLTK gives the same 0.2540663740773...
    ref = ["the", "cat", "is", "on", "the", "mat"]
    hyp = ["the", "cat", "sat", "on", "the", "mat"]
    expected = (5 / 6 * 3 / 5 * 1 / 4 * 0.1 / 3) ** 0.25
    assert bleu.corpus_bleu([[ref]], [hyp]) == pytest.approx(expected)
    assert expected == pytest.approx(0.2540663740773)


def test_bleu_brevity_penalty_and_closest_reference(bleu):
    # "the cat": precisions 1, 1, then 0.1/1 twice (no 3- or 4-grams at all);
    # the closest reference has 3 words, so BP = exp(1 - 3/2).
    refs = [["the", "cat", "is", "on", "the", "mat"], ["the", "cat", "sat"]]
    got = bleu.corpus_bleu([refs], [["the", "cat"]])
    assert got == pytest.approx(math.sqrt(0.1) * math.exp(1 - 3 / 2))


def test_bleu_clips_repeated_words(bleu):
    # "the the the the": only one "the" counts, nothing longer matches.
    got = bleu.corpus_bleu([[["the", "cat", "sat", "down"]]], [["the"] * 4])
    assert got == pytest.approx((1 / 4 * 0.1 / 3 * 0.1 / 2 * 0.1 / 1) ** 0.25)


def test_bleu_needs_one_reference_list_per_hypothesis(bleu):
    with pytest.raises(ValueError):
        bleu.corpus_bleu([[["a"]]], [["a"], ["b"]])


# Corpus generator


@pytest.mark.parametrize(
    ("n", "en", "fr"),
    [
        (0, "zero", "zéro"),
        (17, "seventeen", "dix-sept"),
        (21, "twenty one", "vingt et un"),
        (71, "seventy one", "soixante et onze"),
        (77, "seventy seven", "soixante-dix-sept"),
        (80, "eighty", "quatre-vingts"),
        (81, "eighty one", "quatre-vingt-un"),
        (91, "ninety one", "quatre-vingt-onze"),
        (100, "one hundred", "cent"),
        (200, "two hundred", "deux cents"),
        (201, "two hundred one", "deux cent un"),
        (1000, "one thousand", "mille"),
        (80000, "eighty thousand", "quatre-vingt mille"),
        (200000, "two hundred thousand", "deux cent mille"),
        (
            999999,
            "nine hundred ninety nine thousand nine hundred ninety nine",
            "neuf cent quatre-vingt-dix-neuf mille neuf cent quatre-vingt-dix-neuf",
        ),
    ],
)
def test_numbers_in_words(number_corpus, n, en, fr):
    assert number_corpus.english(n) == en
    assert number_corpus.french(n) == fr


def test_generated_corpus_is_deterministic_and_distinct(number_corpus):
    pairs = number_corpus.generate(300, seed=3)
    assert pairs == number_corpus.generate(300, seed=3)
    assert pairs != number_corpus.generate(300, seed=4)
    assert len(set(pairs)) == 300


# Model pieces


def test_translate_and_convert(seq2seq):
    model = seq2seq.Seq2seq(1, 10, 12, 8)
    xs = [numpy.array([2, 3, 4], numpy.int32), numpy.array([5], numpy.int32)]
    outs = model.translate(xs, max_length=6)
    assert len(outs) == 2
    for y in outs:
        assert y.dtype == numpy.int32
        assert len(y) <= 6
        assert not (y == seq2seq.EOS).any()

    ys = [numpy.array([2], numpy.int32), numpy.array([7, 8], numpy.int32)]
    batch = seq2seq.convert(list(zip(xs, ys, strict=True)), "@numpy")
    assert [x.tolist() for x in batch["xs"]] == [[2, 3, 4], [5]]
    assert [y.tolist() for y in batch["ys"]] == [[2], [7, 8]]
    loss = model(**batch)
    assert loss.shape == ()


# The script


def test_training_on_generated_corpus(seq2seq, read_log, tmp_path, capsys):
    result = seq2seq.main([*TINY, "--epoch=2"])
    log = read_log("result")
    assert [e["iteration"] for e in log] == [4, 8, 12, 16]
    assert log[-1]["main/loss"] < log[0]["main/loss"]
    assert log[-1]["main/perp"] < log[0]["main/perp"]
    scores = [e["validation/main/bleu"] for e in log if "validation/main/bleu" in e]
    assert len(scores) == 2
    assert 0 <= result["bleu"] <= 1
    assert result["bleu"] == scores[-1]
    assert (tmp_path / "result" / "snapshot_iter_8").is_file()
    assert (tmp_path / "result" / "snapshot_iter_16").is_file()
    out = capsys.readouterr().out
    assert "validation/main/bleu" in out
    assert "# source : " in out
    assert "# result : " in out
    assert "# expect : " in out


def test_resume_from_snapshot(seq2seq, read_log, tmp_path):
    seq2seq.main([*TINY, "--epoch=1", "--out=first"])
    snapshot = tmp_path / "first" / "snapshot_iter_8"
    seq2seq.main([*TINY, "--epoch=2", "--out=second", f"--resume={snapshot}"])
    log = read_log("second")
    # The log's first half comes from the snapshot; training went on from 8.
    assert [e["iteration"] for e in log] == [4, 8, 12, 16]
    assert log[:2] == read_log("first")
    assert (tmp_path / "second" / "snapshot_iter_16").is_file()
    assert not (tmp_path / "second" / "snapshot_iter_8").exists()


def _write_copy_task(path, name, n, seed):
    # Target = source words upper-cased, in reverse order.
    rng = numpy.random.RandomState(seed)
    words = ["a", "b", "c", "d", "e", "f", "g", "h"]
    sources = [" ".join(rng.choice(words, rng.randint(1, 6))) for _ in range(n)]
    targets = [" ".join(reversed(s.upper().split())) for s in sources]
    (path / f"{name}.src").write_text("\n".join(sources) + "\n", encoding="utf-8")
    (path / f"{name}.tgt").write_text("\n".join(targets) + "\n", encoding="utf-8")


def test_user_given_files(seq2seq, read_log, tmp_path, capsys):
    _write_copy_task(tmp_path, "train", 128, seed=0)
    _write_copy_task(tmp_path, "valid", 16, seed=1)
    files = [
        "--source=train.src",
        "--target=train.tgt",
        "--validation-source=valid.src",
        "--validation-target=valid.tgt",
        "--max-source-sentence=4",
    ]
    args = [*TINY, *files, "--epoch=2", "--vocab-size=5", "--validation-interval=4"]
    result = seq2seq.main(args)
    out = capsys.readouterr().out
    # 5 words kept per language, plus <UNK> and <EOS>.
    assert "Source vocabulary size: 7" in out
    assert "Target vocabulary size: 7" in out
    assert "Validation data size: 16" in out
    assert "Train data size: 128" not in out  # sentences over 4 words dropped
    assert result["bleu"] is not None
    assert read_log("result")


def test_user_files_without_validation_hold_out_pairs(seq2seq, tmp_path, capsys):
    _write_copy_task(tmp_path, "train", 200, seed=0)
    vocab = "a\nb\n<UNK>\n\nb\nc\n"  # the extra lines get no ids
    (tmp_path / "vocab.src").write_text(vocab, encoding="utf-8")
    args = ["--source=train.src", "--target=train.tgt", "--source-vocab=vocab.src"]
    seq2seq.main([*TINY, *args, "--epoch=2", "--validation-interval=4"])
    out = capsys.readouterr().out
    assert "Validation data size: 20" in out
    assert "Source vocabulary size: 5" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--source=train.src", "--target=short.tgt"], "has 3 lines but"),
        (["--source=missing.src", "--target=short.tgt"], "no such file"),
        (["--source=train.src"], "--source and --target go together"),
        (
            ["--source=train.src", "--target=train.src", "--validation-source=x"],
            "--validation-source and --validation-target go together",
        ),
        (["--resume=nothing.npz"], "no such file: nothing.npz"),
        (["--device=@nowhere"], "--device @nowhere: "),
        (["--train-size=600000"], "500000 pairs at most"),
        (["--source=latin1.src", "--target=train.src"], "latin1.src is not UTF-8"),
        (
            ["--source=train.src", "--target=train.src", "--target-vocab=no.voc"],
            "no such file: no.voc",
        ),
    ],
)
def test_bad_input_gives_a_clear_message(seq2seq, tmp_path, capsys, args, message):
    (tmp_path / "train.src").write_text("a b\nc\nd\n", encoding="utf-8")
    (tmp_path / "short.tgt").write_text("A B\nC\n", encoding="utf-8")
    (tmp_path / "latin1.src").write_bytes("déjà\nvu\nça\n".encode("latin-1"))
    with pytest.raises(SystemExit) as excinfo:
        seq2seq.main(args)
    assert excinfo.value.code == 2
    assert message in capsys.readouterr().err


def test_help_and_error_from_the_command_line(run_script):
    done = run_script(SCRIPT, "--help")
    assert done.returncode == 0
    for flag in ("--device", "--epoch", "--batchsize", "--out", "--resume"):
        assert flag in done.stdout
    done = run_script(SCRIPT, "--source", "no.src", "--target", "no.tgt")
    assert done.returncode == 2
    assert "no such file: no.src" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_learns_to_translate_numbers(seq2seq, read_log):
    # 2 to 6 s: BLEU climbs from near 0 to about 0.26 in 300 iterations.
    args = ["--train-size=1600", "--validation-size=100", "--unit=64", "--layer=1"]
    result = seq2seq.main([*args, "--batchsize=32", "--epoch=6", "--log-interval=50"])
    log = read_log("result")
    scores = [e["validation/main/bleu"] for e in log]
    assert len(scores) == 6
    assert scores[0] < 0.1
    assert result["bleu"] == scores[-1] > 0.15
    assert log[-1]["main/perp"] < log[0]["main/perp"] / 2
