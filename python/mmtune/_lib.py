"""libmmtuned through ctypes: finding the library, the signatures of the calls the module
makes, and the error a failed call raises."""
import ctypes
import ctypes.util
import os
import threading

MMT_ROW_MAJOR, MMT_COL_MAJOR = 101, 102
MMT_NO_TRANS, MMT_TRANS = 111, 112
MMT_F32, MMT_F64, MMT_BF16, MMT_F16, MMT_E4M3, MMT_E5M2 = 0, 1, 2, 3, 4, 5
MMT_E4M3_E5M2, MMT_E5M2_E4M3 = 6, 7  # an ab_type alone: FP8 of two kinds, A's first
COMPUTE = {"native": 0, "tf32": 1, "f32x3": 2}
CHOICES = {0: "none", 1: "tuned", 2: "nearest tuned shape", 3: "default", 4: "vendor"}
BIAS = {"row": 1, "col": 2}  # mmt_bias_kind
ACTIVATION = {None: 0, "relu": 1, "gelu": 2}  # mmt_activation (gelu: its tanh form)


class MmtuneError(RuntimeError):
    """A call libmmtuned refused or could not run; the message is libmmtuned's own."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class GemmDesc(ctypes.Structure):
    _fields_ = [("ab_type", ctypes.c_int), ("c_type", ctypes.c_int), ("compute", ctypes.c_int),
                ("layout", ctypes.c_int), ("trans_a", ctypes.c_int), ("trans_b", ctypes.c_int)]


class Epilogue(ctypes.Structure):
    _fields_ = [("bias_kind", ctypes.c_int), ("bias_type", ctypes.c_int), ("bias", ctypes.c_void_p),
                ("act", ctypes.c_int), ("scale", ctypes.c_float)]  # scale 0 (unset): none


def _candidates():
    env = os.environ.get("MMTUNE_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.join(here, "..", "..", "build", "libmmtuned.so")  # imported from a built checkout
    found = ctypes.util.find_library("mmtuned")
    return ([checkout] if os.path.exists(checkout) else []) + ([found] if found else []) + [
        "/usr/local/lib/libmmtuned.so.0",
        "libmmtuned.so.0",
    ]


_lock = threading.Lock()
_lib = None


def lib():
    """libmmtuned, loaded on first use."""
    global _lib
    with _lock:
        if _lib is None:
            tried = []
            for path in _candidates():
                try:
                    handle = ctypes.CDLL(path)
                    break
                except OSError as e:
                    tried.append(f"{path} ({e})")
            else:
                raise MmtuneError(-1, "libmmtuned is not found: install it (cmake --install), or set MMTUNE_LIBRARY "
                                  "to its path; tried " + "; ".join(tried))
            _declare(handle)
            _lib = handle
        return _lib


def _declare(h):
    p, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
    h.mmt_version_string.restype = ctypes.c_char_p
    h.mmt_status_string.argtypes, h.mmt_status_string.restype = [i32], ctypes.c_char_p
    h.mmt_open.argtypes, h.mmt_open.restype = [ctypes.POINTER(p), ctypes.c_char_p, ctypes.c_char_p], i32
    h.mmt_close.argtypes, h.mmt_close.restype = [p], None
    h.mmt_last_error.argtypes, h.mmt_last_error.restype = [p], ctypes.c_char_p
    h.mmt_last_choice.argtypes, h.mmt_last_choice.restype = [p, ctypes.POINTER(ctypes.c_char_p)], i32
    h.mmt_set_stream.argtypes, h.mmt_set_stream.restype = [p, p], i32
    h.mmt_gemm_ex.argtypes = [p, ctypes.POINTER(GemmDesc), i64, i64, i64, ctypes.c_double, p, i64, p, i64,
                              ctypes.c_double, p, i64]
    h.mmt_gemm_ex.restype = i32
    h.mmt_gemm_strided_batched.argtypes = [p, ctypes.POINTER(GemmDesc), i64, i64, i64, ctypes.c_double, p, i64, i64,
                                           p, i64, i64, ctypes.c_double, p, i64, i64, i64]
    h.mmt_gemm_strided_batched.restype = i32
    h.mmt_gemm_epilogue.argtypes = [p, ctypes.POINTER(GemmDesc), ctypes.POINTER(Epilogue), i64, i64, i64,
                                    ctypes.c_double, p, i64, p, i64, ctypes.c_double, p, i64]
    h.mmt_gemm_epilogue.restype = i32
    h.mmt_gemm_scaled.argtypes = [p, ctypes.POINTER(GemmDesc), p, p, i64, i64, i64, ctypes.c_double, p, i64, p, i64,
                                  ctypes.c_double, p, i64]
    h.mmt_gemm_scaled.restype = i32
    h.mmt_gemm_grouped.argtypes = [p, ctypes.POINTER(GemmDesc), i64, ctypes.POINTER(i64), i64, i64, ctypes.c_double,
                                   p, i64, p, i64, i64, ctypes.c_double, p, i64]
    h.mmt_gemm_grouped.restype = i32


def check(ctx, status):
    """Raises MmtuneError for a status other than MMT_OK, with the context's message."""
    if status != 0:
        name = lib().mmt_status_string(status).decode()
        detail = lib().mmt_last_error(ctx) or b""
        raise MmtuneError(status, f"{name}: {detail.decode(errors='replace')}" if detail else name)


def version():
    """libmmtuned's version, "MAJOR.MINOR.PATCH"."""
    return lib().mmt_version_string().decode()
