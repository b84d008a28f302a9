"""UCIHousing: paddle.dataset.uci_housing's rows as a Dataset."""
import numpy as np

from ...dataset import uci_housing
from ...io import Dataset
from ._files import check_mode, locate_file


class UCIHousing(Dataset):
    """Samples (features [13], price [1]) in the default float dtype, normalized and split
    80/20 as paddle.dataset.uci_housing does."""

    def __init__(self, data_file=None, mode="train", download=True):
        from ... import get_default_dtype
        self.mode = check_mode("UCIHousing", mode)
        self.data_file = locate_file("UCIHousing", data_file, uci_housing.URL, "uci_housing",
                                     uci_housing.MD5, download)
        self.data = uci_housing.split(uci_housing.rows(self.data_file), self.mode)
        self.dtype = get_default_dtype()

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)

