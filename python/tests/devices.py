"""What the GPU tests share: a GPU or its refusal, and CuPy or PyTorch to read device arrays."""

import os

import hydrokern as hk


def gpu_or_refusal(start):
    """What `start()` returns on a machine with a GPU; None on one without, where its refusal is
    one line naming the GPU (with HYDROKERN_REQUIRE_GPU=1 a missing GPU fails)."""
    try:
        return start()
    except hk.CaseError as e:
        assert os.environ.get("HYDROKERN_REQUIRE_GPU") != "1", f"HYDROKERN_REQUIRE_GPU=1 but: {e}"
        assert "\n" not in str(e) and "GPU" in str(e)
        return None


class Reader:
    """CuPy or PyTorch: arrays to the device and back, and DLPack's import."""

    def __init__(self, from_dlpack, to_numpy, to_device, name):
        self.from_dlpack, self.to_numpy, self.to_device, self.name = from_dlpack, to_numpy, to_device, name


def dlpack_reader() -> Reader:
    """CuPy or PyTorch, whichever is installed: a GPU machine needs one."""
    try:
        import cupy

        return Reader(cupy.from_dlpack, cupy.asnumpy, cupy.asarray, "cupy")
    except ImportError:
        pass
    try:
        import torch

        return Reader(torch.from_dlpack, lambda t: t.cpu().numpy(), lambda a: torch.as_tensor(a, device="cuda"), "torch")
    except ImportError:
        raise AssertionError("a GPU machine needs CuPy or PyTorch for this test")
