"""MultiprocessParallelUpdater: data-parallel training with one process per device.

The main process owns the master model, the optimizer and the first iterator.
Each further device gets a worker process holding a copy of the model and its
own iterator. Per iteration the main process writes the current parameters
into a shared-memory block, tells the workers to step, computes its own
gradients meanwhile, and then averages the workers' gradients (each in its
own shared-memory block) into the master's before the optimizer update. Small
control messages go through pipes.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import sys
from multiprocessing import util as multiprocessing_util

import numpy

from chainer import backend
from chainer import function
from chainer import serializer as serializer_module
from chainer.dataset import convert
from chainer.serializers import npz
from chainer.training.updaters import _multiprocess_worker
from chainer.training.updaters import _step
from chainer.training.updaters import standard_updater

# How long finalize() waits for a worker to exit before terminating it.
_JOIN_TIMEOUT = 5.0


class MultiprocessParallelUpdater(standard_updater.StandardUpdater):
    """Implementation of a multiprocess parallel Updater.

    This is an implementation of :class:`~chainer.training.Updater` that runs
    one process per device, for synchronous data-parallel training. The main
    process trains the optimizer's target on the first device with the first
    iterator; a worker process is started for each further device, holding a
    copy of the model and reading its own iterator. In each iteration every
    process computes the gradients of its own minibatch; the main process
    averages them (weighted by the minibatch sizes), updates the master model
    and sends the new parameters to the workers. With a loss averaged over
    the examples, an iteration equals one of a single process on the
    concatenation of all the processes' minibatches.

    The devices are CPU devices (``'@numpy'``, repeated once per process, or
    ``-1``) or, with ``chainer-cuda``, CUDA GPUs (``'@cupy:N'`` or ``N``;
    one process per GPU, or several sharing one). Parameters and gradients
    travel between the processes through shared host memory: a GPU process
    copies its gradients to the host and the new parameters back (Chainer 7
    reduced GPU gradients with NCCL instead).

    Worker processes are started at the first :meth:`update` (after the
    first forward pass of the main process, so that lazily initialized
    parameters exist), with the ``'fork'`` start method on Linux for CPU
    devices, or the method set by :func:`multiprocessing.set_start_method`
    if one was set, or the platform's default. With a GPU among the devices
    the workers are started with ``'spawn'`` (or ``'forkserver'`` where that
    is the start method set): a forked child cannot use the CUDA context of
    its parent.
    With ``'spawn'`` or ``'forkserver'`` the model, the iterators and the
    converter must be picklable, and the main script must guard its entry
    point with ``if __name__ == '__main__':``; a spawned worker finds the
    CUDA backend through the installed plugins (entry points).
    Call :meth:`finalize` (the trainer does at the end of
    :meth:`~chainer.training.Trainer.run`) to stop the workers. A worker
    that fails or dies makes :meth:`update` raise a :class:`RuntimeError`
    telling what happened in it, after all the workers are stopped.

    Only the main process's observations are reported (``'main/loss'``...);
    the workers report into observations that are thrown away, and only the
    parameters (not persistent values such as batch normalization
    statistics) are sent to them, as in Chainer. :meth:`serialize` also
    saves and restores the state of the workers' iterators (under
    ``iterator:worker_<i>``), so that a resumed training reads the same data
    as an uninterrupted one.

    Unlike Chainer 7, the optimizer's hyperparameters are left as they are
    (Chainer divided ``lr`` or multiplied ``eps`` by the number of devices,
    since it summed the gradients instead of averaging them).

    Args:
        iterators: List of dataset iterators, one per device; the first one
            belongs to the main process and drives the epochs. The datasets
            of all iterators must have the same length.
        optimizer: Optimizer to update parameters. The model must be the
            target link of this optimizer.
        converter: Converter function to build input arrays. Each process
            calls it with its own minibatch and its device.
            :func:`~chainer.dataset.concat_examples` is used by default.
        devices: Dictionary or list of devices to which the training data is
            sent; a dictionary must contain ``'main'`` (the main process's
            device), whose entry goes first. Each entry is a CPU device
            specifier: ``'@numpy'``, ``-1`` or a CPU
            :class:`~chainer.backend.Device`.
        auto_new_epoch (bool): If ``True``,
            :meth:`~chainer.Optimizer.new_epoch` of the main optimizer is
            automatically called when the ``is_new_epoch`` attribute of the
            main iterator is ``True``.
    """

    def __init__(
        self,
        iterators,
        optimizer,
        converter=convert.concat_examples,
        devices=None,
        auto_new_epoch=True,
    ):
        if not MultiprocessParallelUpdater.available():
            raise RuntimeError(
                "MultiprocessParallelUpdater needs worker processes, which the "
                "multiprocessing module cannot start on this platform"
            )
        iterators = _as_iterator_list(iterators)
        devices = _as_device_list(devices)
        if len(iterators) != len(devices):
            raise ValueError(
                "MultiprocessParallelUpdater needs one iterator per device; got "
                f"{len(iterators)} iterator(s) for {len(devices)} device(s)"
            )
        _check_dataset_lengths(iterators)
        super().__init__(
            iterator=iterators[0],
            optimizer=optimizer,
            converter=converter,
            auto_new_epoch=auto_new_epoch,
        )
        self._master = self.get_optimizer("main").target
        self._devices = devices
        self._mpu_iterators = iterators
        # Shared with the finalizer below, which stops the workers when the
        # updater is garbage collected, or at exit without finalize(): it runs
        # before multiprocessing joins the (non-daemonic) workers, which
        # would otherwise wait for orders forever.
        self._workers = []
        self._pipes = []
        self._stop_workers = multiprocessing_util.Finalize(
            self, _stop_workers, args=(self._workers, self._pipes), exitpriority=10
        )
        self._layout = []
        self._param_block = None
        self._param_views = []
        self._grad_views = []
        self._started = False
        self._finalized = False

    @staticmethod
    def available():
        """Tells whether this updater can run here.

        In Chainer 7 this meant that CuPy had been built with NCCL. Here the
        processes exchange arrays through shared host memory, so it is
        available wherever the :mod:`multiprocessing` module can start
        processes (``'fork'``, ``'spawn'`` or ``'forkserver'``), i.e. on
        every usual platform; GPU devices need ``chainer-cuda`` besides.

        Returns:
            bool: ``True`` if worker processes can be started.
        """
        try:
            return bool(multiprocessing.get_all_start_methods())
        except (ImportError, OSError):
            return False

    def update_core(self):
        """Runs one iteration in all processes and updates the master model.

        Raises:
            RuntimeError: A worker process failed (its traceback is in the
                message) or died, or the updater was finalized.
        """
        if self._finalized:
            raise RuntimeError(
                "this MultiprocessParallelUpdater was finalized and its worker "
                "processes stopped; create a new updater to train again"
            )
        optimizer = self.get_optimizer("main")
        iterator = self.get_iterator("main")
        master = self._master
        batch = _step.next_batch(iterator)

        if self._started:
            self._dispatch_step()
            try:
                loss = self._forward(batch)
            except BaseException:
                self._drain()
                raise
        else:
            # The first forward pass initializes lazy parameters, which the
            # workers then copy.
            loss = self._forward(batch)
            self._start_workers()
            self._dispatch_step()
        try:
            master.cleargrads()
            loss.backward(loss_scale=self.loss_scale)
            del loss
        except BaseException:
            self._drain()
            raise
        results = self._collect()
        self._average_grads(len(batch), results)
        optimizer.update()

        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def finalize(self):
        """Stops the worker processes and finalizes the iterators.

        It is safe to call this more than once.
        """
        super().finalize()
        if self._workers:
            # Keep the workers' iterator states for a later serialize().
            try:
                self._pull_iterator_states()
            except RuntimeError:
                pass  # a worker failed; _fail() stopped them all
        self._shutdown()
        self._finalized = True
        # The main process's copies of the workers' iterators (which the
        # workers started from) may hold resources of their own.
        for it in self._mpu_iterators[1:]:
            finalize = getattr(it, "finalize", None)
            if finalize is not None:
                finalize()

    def serialize(self, serializer):
        """Serializes the current state of the updater object.

        Besides what :class:`StandardUpdater` serializes (the main iterator,
        the optimizer, the model and the iteration count), the iterator of
        each worker is serialized under ``iterator:worker_<i>`` (``i`` from
        1); a running worker's iterator state is fetched from, or sent to,
        its process.

        Args:
            serializer (~chainer.AbstractSerializer): Serializer or
                deserializer object.
        """
        super().serialize(serializer)
        loading = isinstance(serializer, serializer_module.Deserializer)
        if self._workers and not loading:
            self._pull_iterator_states()
        for i in range(1, len(self._mpu_iterators)):
            local = self._mpu_iterators[i]
            local.serialize(serializer[f"iterator:worker_{i}"])
            if self._workers and loading:
                state = npz.DictionarySerializer()
                local.serialize(state)
                self._request(i, ("set_iterator", state.target))

    # -- main process side --------------------------------------------------
    def _pull_iterator_states(self):
        # The main process's copies of the workers' iterators take the
        # workers' current states.
        for i in range(1, len(self._mpu_iterators)):
            state = self._request(i, ("get_iterator",))[1]
            self._mpu_iterators[i].serialize(npz.NpzDeserializer(state))

    def _forward(self, batch):
        device = self._devices[0]
        in_arrays = _step.convert_batch(self.converter, batch, device)
        with function.force_backprop_mode(), backend.using_device(device):
            return _step.call_loss(self._master, in_arrays)

    def _start_workers(self):
        self._started = True
        master = self._master
        self._layout = _multiprocess_worker.param_layout(master)
        n_workers = len(self._devices) - 1
        if n_workers == 0:
            return
        size = max(_multiprocess_worker.block_size(self._layout), 1)
        ctx = _context(self._devices)
        method = ctx.get_start_method()
        self._param_block = ctx.RawArray(ctypes.c_uint8, size)
        self._param_views = _multiprocess_worker.bind_views(
            master, self._param_block, self._layout
        )
        # Gradients stay out of the pickled model (spawn) and the workers.
        grads = [(p, p.grad) for p in master.params()]
        master.cleargrads()
        try:
            for i in range(1, len(self._devices)):
                grad_block = ctx.RawArray(ctypes.c_uint8, size)
                self._grad_views.append(
                    list(_multiprocess_worker.views(grad_block, self._layout))
                )
                conn, child_conn = ctx.Pipe()
                proc = ctx.Process(
                    target=_multiprocess_worker.main,
                    name=f"MultiprocessParallelUpdater-worker-{i}",
                    args=(
                        child_conn,
                        master,
                        self._mpu_iterators[i],
                        self.converter,
                        # By name: a spawned worker makes its own device.
                        self._devices[i].name,
                        self._layout,
                        self._param_block,
                        grad_block,
                        os.getpid(),
                    ),
                    # Not daemonic: a worker's iterator may start processes.
                    daemon=False,
                )
                try:
                    proc.start()
                except Exception as exc:
                    raise RuntimeError(
                        f"could not start worker process {i} of "
                        f"MultiprocessParallelUpdater with the {method!r} start "
                        f"method: {exc}{_pickling_hint(method)}"
                    ) from exc
                finally:
                    child_conn.close()
                self._workers.append(proc)
                self._pipes.append(conn)
            for i in range(1, len(self._devices)):
                try:
                    self._receive(i)  # the worker's ('ready',)
                except RuntimeError as exc:
                    raise RuntimeError(f"{exc}{_pickling_hint(method)}") from None
        except BaseException:
            self._shutdown()
            self._finalized = True
            raise
        finally:
            for p, g in grads:
                p.grad = g

    def _dispatch_step(self):
        if not self._pipes:
            return
        for param, view in self._param_views:
            _multiprocess_worker.to_host(view, param.array)
        for i, conn in enumerate(self._pipes, 1):
            self._send(i, conn, ("step",))

    def _collect(self):
        results = []
        for i in range(1, len(self._devices)):
            results.append(self._receive(i))
        return results

    def _drain(self):
        # The main process failed during a step: read the workers' answers
        # so that the next step starts in sync (or stop them if they failed).
        try:
            self._collect()
        except RuntimeError:
            pass

    def _average_grads(self, main_size, results):
        if not results:
            return
        sizes = [main_size] + [r[1] for r in results]
        total = float(sum(sizes))
        for k, (param, _) in enumerate(self._param_views):
            acc = param.grad
            if acc is not None and main_size != total:
                acc *= main_size / total
            device = param.device
            for j, (_, size, has_grad) in enumerate(results):
                if not has_grad[k]:
                    continue
                contribution = device.send(self._grad_views[j][k]) * (size / total)
                if acc is None:
                    acc = contribution.astype(param.dtype, copy=False)
                else:
                    acc += contribution
            if acc is not None and param.grad is None:
                param.grad = acc

    def _send(self, i, conn, message):
        try:
            conn.send(message)
        except (BrokenPipeError, EOFError, OSError) as exc:
            self._fail(i, f"the connection to it is broken ({exc})")

    def _receive(self, i):
        conn = self._pipes[i - 1]
        proc = self._workers[i - 1]
        while not conn.poll(_multiprocess_worker.POLL_INTERVAL):
            if proc.exitcode is not None:
                self._fail(i, _describe_exit(proc.exitcode))
        try:
            message = conn.recv()
        except (EOFError, OSError):
            proc.join(_multiprocess_worker.POLL_INTERVAL)
            self._fail(i, _describe_exit(proc.exitcode))
        if message[0] == "error":
            self._fail(i, "it raised an exception:\n" + message[1])
        return message

    def _request(self, i, message):
        self._send(i, self._pipes[i - 1], message)
        return self._receive(i)

    def _fail(self, i, what):
        device = self._devices[i]
        self._shutdown()
        self._finalized = True
        raise RuntimeError(
            f"MultiprocessParallelUpdater worker process {i} (device {device}) "
            f"failed: {what}"
        )

    def _shutdown(self):
        self._stop_workers()
        self._param_views = []
        self._grad_views = []
        self._param_block = None


def _stop_workers(workers, pipes):
    for conn in pipes:
        try:
            conn.send(("stop",))
        except (BrokenPipeError, EOFError, OSError):
            pass
    for proc in workers:
        proc.join(_JOIN_TIMEOUT)
        if proc.exitcode is None:
            proc.terminate()
            proc.join(_JOIN_TIMEOUT)
        if proc.exitcode is None:
            proc.kill()
            proc.join()
        proc.close()
    for conn in pipes:
        conn.close()
    workers.clear()
    pipes.clear()


# -- gathering and scattering the arrays of a link --------------------------
def gather_grads(link):
    """Puts together all gradient arrays of a GPU link into a single array.

    The gradients of the link's parameters, in the order of their sorted
    names, are flattened and concatenated into one float32 array; a
    parameter without a gradient contributes zeros. Empty parameters are
    skipped.

    Args:
        link (~chainer.Link): Target link object, on a GPU.

    Returns:
        cupy.ndarray: The flat array of gradients.
    """
    _check_on_gpu(link, "gather_grads")
    return _gather(link, "grad")


def gather_params(link):
    """Puts together all parameter arrays of a GPU link into a single array.

    It is the counterpart of :func:`gather_grads` for the parameters' data.

    Args:
        link (~chainer.Link): Target link object, on a GPU.

    Returns:
        cupy.ndarray: The flat array of parameters.
    """
    _check_on_gpu(link, "gather_params")
    return _gather(link, "data")


def scatter_grads(link, array):
    """Puts the contents of a flat array back into the gradient arrays.

    It inverts :func:`gather_grads`: a parameter without a gradient gets a
    new one, and values are cast to each parameter's dtype.

    Args:
        link (~chainer.Link): Target link object.
        array (:ref:`ndarray`): Flat array made by :func:`gather_grads`.
    """
    _scatter(link, array, "grad")


def scatter_params(link, array):
    """Puts the contents of a flat array back into the parameter arrays.

    It inverts :func:`gather_params`.

    Args:
        link (~chainer.Link): Target link object.
        array (:ref:`ndarray`): Flat array made by :func:`gather_params`.
    """
    _scatter(link, array, "data")


def _check_on_gpu(link, what):
    if link.xp is numpy:
        raise RuntimeError(
            f"{what} works only on a GPU link (the multiprocess updater's "
            "NCCL path); move the link with link.to_device('@cupy:N') first"
        )


def _nonempty_params(link):
    return [p for _, p in sorted(link.namedparams()) if p.size]


def _gather(link, target):
    params = _nonempty_params(link)
    xp = link.xp
    parts = []
    for param in params:
        array = param.array if target == "data" else param.grad
        if array is None:
            parts.append(xp.zeros(param.size, dtype=numpy.float32))
        else:
            parts.append(array.ravel().astype(numpy.float32, copy=False))
    if not parts:
        return xp.zeros(0, dtype=numpy.float32)
    return xp.concatenate(parts)


def _scatter(link, array, target):
    params = _nonempty_params(link)
    total = sum(p.size for p in params)
    if array.ndim != 1 or array.size != total:
        raise ValueError(
            f"the array to scatter must be flat with {total} elements (the "
            f"sizes of the link's parameters); got shape {array.shape}"
        )
    offset = 0
    for param in params:
        chunk = array[offset : offset + param.size].reshape(param.shape)
        offset += param.size
        current = param.array if target == "data" else param.grad
        if current is None:
            value = chunk.astype(param.dtype)
            if target == "data":
                param.array = value
            else:
                param.grad = value
        else:
            current[...] = chunk


# -- helpers ----------------------------------------------------------------
def _context(devices):
    method = multiprocessing.get_start_method(allow_none=True)
    on_gpu = any(d.xp is not numpy for d in devices)
    if on_gpu:
        # A forked child cannot use its parent's CUDA context. (The default
        # context may have been fixed to 'fork' by any earlier use of
        # multiprocessing, so 'fork' cannot be told from a user's choice.)
        if method != "forkserver":
            method = "spawn"
    elif (
        method is None
        and sys.platform.startswith("linux")
        and "fork" in multiprocessing.get_all_start_methods()
    ):
        method = "fork"
    return multiprocessing.get_context(method)


def _pickling_hint(method):
    if method == "fork":
        return ""
    return (
        f". With the {method!r} start method the model, the iterators and the "
        "converter are pickled for the workers: they must be picklable, and "
        "their classes importable by name (defined in a module, or in a main "
        "script that guards its entry point with `if __name__ == '__main__':`)"
    )


def _describe_exit(exitcode):
    if exitcode is None:
        return "it closed its connection to the main process"
    if exitcode < 0:
        return f"it was killed by signal {-exitcode}"
    return f"it exited unexpectedly with exit code {exitcode}"


def _as_iterator_list(iterators):
    is_iterator = hasattr(iterators, "next") or hasattr(iterators, "__next__")
    if is_iterator and not isinstance(iterators, (list, tuple)):
        return [iterators]
    try:
        iterators = list(iterators)
    except TypeError:
        raise TypeError(
            "iterators must be a list of dataset iterators (one per device), "
            f"not {type(iterators).__name__}"
        ) from None
    if not iterators:
        raise ValueError("iterators is empty: give one dataset iterator per device")
    return iterators


def _as_device_list(devices):
    if devices is None:
        raise ValueError(
            "MultiprocessParallelUpdater needs `devices`: a list of devices or a "
            "dict with a 'main' entry, one per iterator (e.g. ['@numpy', "
            "'@numpy'])"
        )
    if isinstance(devices, dict):
        if "main" not in devices:
            raise KeyError(
                f"`devices` must contain a 'main' key; got keys {sorted(devices)}"
            )
        specs = [devices["main"]] + [d for k, d in devices.items() if k != "main"]
    elif isinstance(devices, (list, tuple)):
        specs = list(devices)
    else:
        raise TypeError(
            "devices argument should be either dict, list or tuple, but "
            f"{type(devices).__name__} was given"
        )
    if not specs:
        raise ValueError("`devices` is empty: give one device per iterator")
    return [_updater_device(spec) for spec in specs]


def _updater_device(spec):
    if spec is None:
        raise ValueError("a device of MultiprocessParallelUpdater is None")
    # A GPU without chainer-cuda (or CuPy, or a driver) raises here, saying
    # what is missing.
    device = backend.get_device(spec)
    if device.xp is not numpy and not device.name.startswith("@cupy"):
        raise RuntimeError(
            f"MultiprocessParallelUpdater cannot use device {spec!r} "
            f"({device}): it runs on CPU ('@numpy') and CUDA ('@cupy:N') devices"
        )
    return device


def _check_dataset_lengths(iterators):
    lengths = []
    for it in iterators:
        dataset = getattr(it, "dataset", None)
        try:
            lengths.append(len(dataset))
        except TypeError:
            return  # iterators without a sized dataset: nothing to compare
    if len(set(lengths)) > 1:
        raise ValueError(
            "the datasets of all iterators must have the same length (the "
            f"main iterator's epochs stand for all of them); got lengths {lengths}"
        )
