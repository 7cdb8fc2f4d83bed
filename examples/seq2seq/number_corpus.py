"""A toy parallel corpus: numbers written as English words and as French words.

The pairs have the structure a translation model has to learn for real: word
order mostly carries over, but French counts in twenties from sixty on
(``seventy two`` -> ``soixante-douze``, ``ninety one`` -> ``quatre-vingt-onze``),
joins tens and units with ``et`` or a hyphen depending on the unit, and writes
``cents``/``quatre-vingts`` with a plural ``s`` only when nothing follows::

    >>> english(280), french(280)
    ('two hundred eighty', 'deux cent quatre-vingts')
    >>> english(71001), french(71001)
    ('seventy one thousand one', 'soixante et onze mille un')

Run it to print a few pairs: ``python number_corpus.py``.
"""

import numpy

MAX_PAIRS = 500_000

# Word lists indexed by value (the tens lists from 20 on).
# fmt: off
_EN_UNITS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
    "seventeen", "eighteen", "nineteen",
]
_EN_TENS = [
    "_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
    "ninety",
]
_FR_UNITS = [
    "zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf",
    "dix", "onze", "douze", "treize", "quatorze", "quinze", "seize", "dix-sept",
    "dix-huit", "dix-neuf",
]
_FR_TENS = [
    "_", "_", "vingt", "trente", "quarante", "cinquante", "soixante",
]
# fmt: on


def _english_below_1000(n):
    words = []
    if n >= 100:
        words += [_EN_UNITS[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        words.append(_EN_TENS[n // 10])
        n %= 10
        if n:
            words.append(_EN_UNITS[n])
    elif n:
        words.append(_EN_UNITS[n])
    return words


def english(n):
    """Writes ``0 <= n < 10**6`` in English words (``twenty one``, no hyphens).

    Args:
        n (int): The number.

    Returns:
        str: Space-separated words.
    """
    if n == 0:
        return _EN_UNITS[0]
    words = []
    if n >= 1000:
        words += [*_english_below_1000(n // 1000), "thousand"]
    return " ".join(words + _english_below_1000(n % 1000))


def _french_below_100(n, final):
    if n < 20:
        return [_FR_UNITS[n]]
    tens, unit = divmod(n, 10)
    if tens in (7, 9):
        # Seventy and ninety count on from sixty and eighty: 60 + 10..19.
        tens -= 1
        unit += 10
    if tens == 8:
        if unit == 0:
            return ["quatre-vingts" if final else "quatre-vingt"]
        return ["quatre-vingt-" + _FR_UNITS[unit]]
    if unit == 0:
        return [_FR_TENS[tens]]
    if unit in (1, 11):
        return [_FR_TENS[tens], "et", _FR_UNITS[unit]]
    return [_FR_TENS[tens] + "-" + _FR_UNITS[unit]]


def _french_below_1000(n, final):
    hundreds, rest = divmod(n, 100)
    words = []
    if hundreds:
        if hundreds > 1:
            words.append(_FR_UNITS[hundreds])
        # "deux cents" but "deux cent un" and "deux cent mille".
        words.append("cents" if hundreds > 1 and not rest and final else "cent")
    if rest:
        words += _french_below_100(rest, final)
    return words


def french(n):
    """Writes ``0 <= n < 10**6`` in French words (traditional spelling).

    Args:
        n (int): The number.

    Returns:
        str: Space-separated words; hyphenated compounds are one word.
    """
    if n == 0:
        return _FR_UNITS[0]
    thousands, rest = divmod(n, 1000)
    words = []
    if thousands:
        if thousands > 1:
            # "mille" is invariable, and "vingt"/"cent" take no "s" before it.
            words += _french_below_1000(thousands, final=False)
        words.append("mille")
    return " ".join(words + _french_below_1000(rest, final=True))


def generate(n_pairs, seed=0):
    """Draws distinct numbers below a million and writes each in both languages.

    The number of digits is drawn uniformly from 1 to 6, so short numbers are
    as common as long ones (until the few short ones run out).

    Args:
        n_pairs (int): Number of pairs, at most 500,000 (drawing distinct
            numbers slows down as they run out).
        seed (int): Seed of the random generator; the same seed gives the
            same corpus.

    Returns:
        list of tuple: ``(english_sentence, french_sentence)`` pairs.
    """
    if n_pairs > MAX_PAIRS:
        raise ValueError(f"at most {MAX_PAIRS} pairs, not {n_pairs}")
    rng = numpy.random.RandomState(seed)
    chosen = {}
    while len(chosen) < n_pairs:
        digits = rng.randint(1, 7)
        low = 0 if digits == 1 else 10 ** (digits - 1)
        n = int(rng.randint(low, 10**digits))
        chosen.setdefault(n, None)
    return [(english(n), french(n)) for n in chosen]


if __name__ == "__main__":
    for source, target in generate(10, seed=0):
        print(f"{source:<60} {target}")
