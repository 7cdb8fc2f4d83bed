"""Math functions of the catalogue (``chainer.functions.math``)."""
