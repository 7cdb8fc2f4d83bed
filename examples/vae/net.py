"""The variational autoencoder: encoder, decoder and the loss to train them."""

import chainer
import chainer.functions as F
import chainer.links as L


class Encoder(chainer.Chain):
    """Maps an image to the mean and log-variance of a Gaussian over ``z``.

    Args:
        n_in (int): Size of an input image (784 for 28x28 pixels).
        n_hidden (int): Units of the hidden layer.
        n_latent (int): Dimension of the latent variable ``z``.
    """

    def __init__(self, n_in, n_hidden, n_latent):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_in, n_hidden)
            self.l_mu = L.Linear(n_hidden, n_latent)
            self.l_ln_var = L.Linear(n_hidden, n_latent)

    def forward(self, x):
        """Encodes a batch of images.

        Args:
            x (~chainer.Variable or ndarray): Images of shape ``(N, n_in)``.

        Returns:
            tuple: ``(mu, ln_var)``, each of shape ``(N, n_latent)``.
        """
        h = F.tanh(self.l1(x))
        return self.l_mu(h), self.l_ln_var(h)


class Decoder(chainer.Chain):
    """Maps ``z`` to the Bernoulli parameters of every pixel.

    Args:
        n_latent (int): Dimension of the latent variable ``z``.
        n_hidden (int): Units of the hidden layer.
        n_out (int): Size of an output image.
    """

    def __init__(self, n_latent, n_hidden, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(n_latent, n_hidden)
            self.l2 = L.Linear(n_hidden, n_out)

    def forward(self, z, probability=False):
        """Decodes a batch of latent vectors.

        Args:
            z (~chainer.Variable or ndarray): Shape ``(N, n_latent)``.
            probability (bool): If ``True``, return pixel probabilities in
                ``[0, 1]``; otherwise the logits that ``F.bernoulli_nll``
                takes.

        Returns:
            ~chainer.Variable: Shape ``(N, n_out)``.
        """
        y = self.l2(F.tanh(self.l1(z)))
        return F.sigmoid(y) if probability else y


class VAE(chainer.Chain):
    """A variational autoencoder: an encoder and a decoder.

    Args:
        n_in (int): Size of an image.
        n_hidden (int): Units of the hidden layer of the encoder and decoder.
        n_latent (int): Dimension of the latent variable ``z``.
    """

    def __init__(self, n_in, n_hidden, n_latent):
        super().__init__()
        self.n_latent = n_latent
        with self.init_scope():
            self.encoder = Encoder(n_in, n_hidden, n_latent)
            self.decoder = Decoder(n_latent, n_hidden, n_in)

    def reconstruct(self, x):
        """Decodes the mean code of each image (no sampling).

        Args:
            x (ndarray): Images of shape ``(N, n_in)``.

        Returns:
            ~chainer.Variable: Pixel probabilities of shape ``(N, n_in)``.
        """
        mu, _ = self.encoder(x)
        return self.decoder(mu, probability=True)


class VAELoss(chainer.Chain):
    """The negative evidence lower bound (ELBO), averaged over a batch.

    The loss is the reconstruction term, the Bernoulli negative
    log-likelihood of the images given ``z`` sampled from the encoder with
    the reparameterisation trick, plus ``beta`` times the KL divergence from
    the prior N(0, I) to the encoder's Gaussian. It reports ``loss``,
    ``rec_loss`` and ``kl`` (``main/loss`` etc. in the trainer's log).

    Args:
        vae (VAE): The model to train.
        beta (float): Weight of the KL term (1 gives the ELBO; other values
            give a beta-VAE).
        k (int): Number of samples of ``z`` per image for the reconstruction
            term.
    """

    def __init__(self, vae, beta=1.0, k=1):
        super().__init__()
        self.beta = beta
        self.k = k
        with self.init_scope():
            self.vae = vae

    def forward(self, x):
        """Computes the loss of a batch of images.

        Args:
            x (ndarray): Images of shape ``(N, n_in)`` with values in
                ``[0, 1]``.

        Returns:
            ~chainer.Variable: The scalar loss.
        """
        batchsize = len(x)
        mu, ln_var = self.vae.encoder(x)
        rec_loss = 0
        for _ in range(self.k):
            # z = mu + sigma * eps keeps the sample differentiable in mu, sigma.
            z = F.gaussian(mu, ln_var)
            logits = self.vae.decoder(z)
            rec_loss += F.bernoulli_nll(x, logits) / (self.k * batchsize)
        kl = F.gaussian_kl_divergence(mu, ln_var) / batchsize
        loss = rec_loss + self.beta * kl
        chainer.report({"loss": loss, "rec_loss": rec_loss, "kl": kl}, self)
        return loss
