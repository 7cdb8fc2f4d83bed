import numpy
import pytest

from chainer.dataset import tabular


class MyDataset(tabular.DelegateDataset):
    def __init__(self):
        super().__init__(
            tabular.from_data(
                (
                    ("a", numpy.arange(10)),
                    ("b", self.get_b),
                    ("c", [3, 1, 4, 5, 9, 2, 6, 8, 7, 0]),
                    (("d", "e"), self.get_de),
                )
            )
        )

    def get_b(self, i):
        return f"b[{i}]"

    def get_de(self, i):
        return {"d": f"d[{i}]", "e": f"e[{i}]"}


def test_delegation():
    ds = MyDataset()
    assert len(ds) == 10
    assert ds.keys == ("a", "b", "c", "d", "e")
    assert ds.mode is tuple
    assert ds[0] == (0, "b[0]", 3, "d[0]", "e[0]")
    assert ds.slice[2:4, ("e", "c")][:] == [("e[2]", 4), ("e[3]", 5)]
    assert ds.asdict()[9]["d"] == "d[9]"


def test_delegate_requires_a_tabular_dataset():
    with pytest.raises(TypeError, match="wraps a TabularDataset"):
        tabular.DelegateDataset([1, 2, 3])
