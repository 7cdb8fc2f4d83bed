"""The updater that trains the generator and the discriminator in turn."""

import chainer
import chainer.functions as F
from chainer import Variable


class DCGANUpdater(chainer.training.updaters.StandardUpdater):
    """One step updates the discriminator, then the generator.

    Takes the arguments of ``StandardUpdater``, with a dict of two optimizers
    ``{'gen': ..., 'dis': ...}`` as ``optimizer``, and one more keyword
    argument:

    Args:
        models (tuple): ``(generator, discriminator)``.
    """

    def __init__(self, *args, **kwargs):
        self.gen, self.dis = kwargs.pop("models")
        super().__init__(*args, **kwargs)

    def loss_dis(self, dis, y_fake, y_real):
        """The discriminator's loss: real images should score high, fakes low.

        ``softplus(-y)`` is ``-log(sigmoid(y))``, the cross entropy of a
        score ``y`` against the label "real".

        Args:
            dis (~chainer.Link): The discriminator (the loss is reported as
                ``dis/loss``).
            y_fake (~chainer.Variable): Scores of generated images.
            y_real (~chainer.Variable): Scores of real images.

        Returns:
            ~chainer.Variable: The loss.
        """
        batchsize = len(y_fake)
        L1 = F.sum(F.softplus(-y_real)) / batchsize
        L2 = F.sum(F.softplus(y_fake)) / batchsize
        loss = L1 + L2
        chainer.report({"loss": loss}, dis)
        return loss

    def loss_gen(self, gen, y_fake):
        """The generator's loss: its images should score high.

        Args:
            gen (~chainer.Link): The generator (reported as ``gen/loss``).
            y_fake (~chainer.Variable): Scores of generated images.

        Returns:
            ~chainer.Variable: The loss.
        """
        batchsize = len(y_fake)
        loss = F.sum(F.softplus(-y_fake)) / batchsize
        chainer.report({"loss": loss}, gen)
        return loss

    def update_core(self):
        gen_optimizer = self.get_optimizer("gen")
        dis_optimizer = self.get_optimizer("dis")

        batch = self.get_iterator("main").next()
        device = self.device
        x_real = Variable(self.converter(batch, device)) / 255.0

        gen, dis = self.gen, self.dis
        batchsize = len(batch)

        y_real = dis(x_real)

        z = Variable(device.xp.asarray(gen.make_hidden(batchsize)))
        x_fake = gen(z)
        y_fake = dis(x_fake)

        dis_optimizer.update(self.loss_dis, dis, y_fake, y_real)
        gen_optimizer.update(self.loss_gen, gen, y_fake)
