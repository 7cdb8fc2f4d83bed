"""Probability distributions (``chainer.distributions``).

Importing the package registers the KL divergences between its families.
"""

from chainer.distributions import utils as utils
from chainer.distributions._distribution import Distribution
from chainer.distributions._distribution import cross_entropy
from chainer.distributions._distribution import kl_divergence
from chainer.distributions._distribution import register_kl
from chainer.distributions.bernoulli import Bernoulli
from chainer.distributions.beta import Beta
from chainer.distributions.categorical import Categorical
from chainer.distributions.cauchy import Cauchy
from chainer.distributions.chisquare import Chisquare
from chainer.distributions.dirichlet import Dirichlet
from chainer.distributions.exponential import Exponential
from chainer.distributions.gamma import Gamma
from chainer.distributions.geometric import Geometric
from chainer.distributions.gumbel import Gumbel
from chainer.distributions.independent import Independent
from chainer.distributions.laplace import Laplace
from chainer.distributions.log_normal import LogNormal
from chainer.distributions.multivariate_normal import MultivariateNormal
from chainer.distributions.normal import Normal
from chainer.distributions.one_hot_categorical import OneHotCategorical
from chainer.distributions.pareto import Pareto
from chainer.distributions.poisson import Poisson
from chainer.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Cauchy",
    "Chisquare",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "Gamma",
    "Geometric",
    "Gumbel",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Pareto",
    "Poisson",
    "Uniform",
    "cross_entropy",
    "kl_divergence",
    "register_kl",
]
