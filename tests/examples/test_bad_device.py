"""An unusable --device is a usage error, no traceback.

For the scripts whose own tests do not check it already (convnet, dcgan, ptb,
word2vec and seq2seq do).
"""

import pytest

SCRIPTS = [
    ("mnist/train_mnist.py", "--device"),
    ("mnist/train_mnist_custom_loop.py", "--device"),
    ("mnist/train_mnist_data_parallel.py", "--devices"),
    ("mnist/train_mnist_model_parallel.py", "--device0"),
    ("vae/train_vae.py", "--device"),
]


@pytest.mark.parametrize(("script", "flag"), SCRIPTS)
def test_unknown_device_is_a_usage_error(load_example, capsys, script, flag):
    module = load_example(script)
    spec = "@nodevice:3,@nodevice:4" if flag == "--devices" else "@nodevice:3"
    with pytest.raises(SystemExit) as info:
        module.main([flag, spec])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "@nodevice" in err
    assert "Traceback" not in err


def test_glance_unknown_device(load_example, capsys, tmp_path):
    module = load_example("glance/glance.py")
    csv = tmp_path / "mushrooms.csv"
    row = ",".join(["e"] + ["x"] * 22)
    csv.write_text(module.HEADER + "\n" + "\n".join([row] * 10) + "\n")
    with pytest.raises(SystemExit) as info:
        module.main(["--data", str(csv), "--device", "@nodevice:3"])
    assert info.value.code == 2
    assert "@nodevice" in capsys.readouterr().err
