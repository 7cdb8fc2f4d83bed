"""Corpus-level BLEU (Papineni et al., 2002), small enough to read in one go.

The example reports what ``nltk.translate.bleu_score.corpus_bleu`` reports with
its default uniform 4-gram weights and ``SmoothingFunction().method1`` (what
Chainer's seq2seq example uses), so it needs no NLTK:

- modified (clipped) n-gram precisions for n = 1..4, with matches and n-gram
  counts summed over the whole corpus before dividing;
- smoothing "method1": an n-gram order with no match at all counts
  ``epsilon`` (0.1) matches instead of 0, so one missing order does not zero
  the score; if not even one unigram matches, the score is 0;
- brevity penalty ``exp(1 - r / c)`` when the hypotheses' total length ``c``
  does not exceed ``r``, the sum over sentences of the reference length
  closest to the hypothesis length (the shorter one on a tie).

One difference: NLTK adds 1 to an order's n-gram count for every hypothesis
too short to have any n-gram of that order, so a corpus of perfect but short
translations (``un``, ``vingt et un``) scores below 1 there. Here such a
sentence adds nothing, as in the paper's definition, so perfect translations
score 1. The two agree whenever every hypothesis has at least ``max_n``
words. Scores are in [0, 1] (multiply by 100 for the usual percentage).
"""

import collections
import math


def _ngrams(tokens, n):
    return collections.Counter(
        tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)
    )


def corpus_bleu(list_of_references, hypotheses, max_n=4, epsilon=0.1):
    """Computes corpus BLEU of tokenized hypotheses against their references.

    Args:
        list_of_references (list of list of sequence): For each hypothesis, a
            list of one or more reference token sequences.
        hypotheses (list of sequence): Hypothesis token sequences (words or
            ids; anything hashable).
        max_n (int): Longest n-gram order; the orders get equal weights.
        epsilon (float): Match count used for an order with no match.

    Returns:
        float: The BLEU score in [0, 1].

    Example:
        >>> corpus_bleu([[[1, 2, 3, 4]]], [[1, 2, 3, 4]])
        1.0
    """
    if len(list_of_references) != len(hypotheses):
        raise ValueError("need one list of references per hypothesis")
    matches = [0] * max_n
    totals = [0] * max_n
    hyp_length = ref_length = 0
    for references, hypothesis in zip(list_of_references, hypotheses, strict=True):
        hypothesis = list(hypothesis)
        references = [list(r) for r in references]
        hyp_length += len(hypothesis)
        ref_length += min(
            (len(r) for r in references),
            key=lambda length: (abs(length - len(hypothesis)), length),
        )
        for n in range(1, max_n + 1):
            counts = _ngrams(hypothesis, n)
            max_ref_counts = collections.Counter()
            for reference in references:
                max_ref_counts |= _ngrams(reference, n)
            matches[n - 1] += sum(
                min(count, max_ref_counts[gram]) for gram, count in counts.items()
            )
            totals[n - 1] += sum(counts.values())
    if matches[0] == 0:
        return 0.0
    log_precision = sum(
        math.log((m if m > 0 else epsilon) / max(t, 1))
        for m, t in zip(matches, totals, strict=True)
    )
    if hyp_length > ref_length:
        brevity_penalty = 1.0
    else:
        brevity_penalty = math.exp(1 - ref_length / hyp_length)
    return brevity_penalty * math.exp(log_precision / max_n)
