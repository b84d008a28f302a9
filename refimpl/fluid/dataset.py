"""paddle.fluid.dataset (Paddle 1.8): the datasets that Executor.train_from_dataset feeds
from text files through Paddle's C++ data feeds and trainer threads. refimpl has neither
(they belong to Paddle's parameter-server / fleet training), so making one raises
NotImplementedError naming what to use instead; specs/fluid_misc.md."""

__all__ = ["DatasetFactory", "InMemoryDataset", "QueueDataset"]

_INSTEAD = ("read the files with a Python generator and feed it through fluid.io.DataLoader."
            "from_generator (or PyReader) and Executor.run")


class _Dataset:
    def __init__(self):
        raise NotImplementedError("fluid.dataset.%s feeds Executor.train_from_dataset through "
                                  "Paddle's C++ data feed and trainer threads, which refimpl "
                                  "does not implement; %s" % (type(self).__name__, _INSTEAD))


class InMemoryDataset(_Dataset):
    """Not implemented (see the module's docstring)."""


class QueueDataset(_Dataset):
    """Not implemented (see the module's docstring)."""


class DatasetFactory:
    """create_dataset(name) -> the named dataset class's instance (which raises
    NotImplementedError here); an unknown name is a ValueError, as in Paddle."""

    def create_dataset(self, datafeed_class="QueueDataset"):
        classes = {"InMemoryDataset": InMemoryDataset, "QueueDataset": QueueDataset}
        if datafeed_class not in classes:
            raise ValueError("datafeed class %s does not exist; fluid.dataset has %s"
                             % (datafeed_class, sorted(classes)))
        return classes[datafeed_class]()
