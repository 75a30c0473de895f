"""Fixtures shared by the whole test tree."""

import pytest
import torch


@pytest.fixture
def one_thread():
    """One torch thread for the test (the count restored afterwards): where row invariance is measured."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
