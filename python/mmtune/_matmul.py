"""mmtune.matmul: numpy arrays and PyTorch tensors described as libmmtuned's GEMM operands
(pointer, type, layout, leading dimension), one context per device, the call."""
import atexit
import contextlib
import ctypes
import threading

from . import _lib
from ._lib import MmtuneError


def _layout(name, rows, cols, strides):
    """(layout, leading dimension) of a rows x cols matrix with these strides (elements;
    None where a stride is not a whole number of them): the dimension of unit stride says
    the layout, and one of length 1 or less takes any stride."""
    rs, cs = strides
    if (cs == 1 or cols <= 1) and (rows <= 1 or (rs is not None and rs >= max(cols, 1))):
        return _lib.MMT_ROW_MAJOR, rs if rows > 1 else max(cols, 1)
    if (rs == 1 or rows <= 1) and (cols <= 1 or (cs is not None and cs >= max(rows, 1))):
        return _lib.MMT_COL_MAJOR, cs if cols > 1 else max(rows, 1)
    raise ValueError(f"{name}: its elements must be contiguous along one dimension, with the other's stride at least "
                     f"that dimension's length (strides {tuple(strides)} in elements); copy it first "
                     "(numpy.ascontiguousarray, tensor.contiguous())")


class _Operand:
    """A 2-D matrix, or a batch of them (3-D: the batch first), as libmmtuned sees it: its
    pointer, element type, rows and columns, the layout and leading dimension of its storage,
    and the batch's count and stride in elements (None and 0 for a matrix)."""

    def __init__(self, name, x):
        self.name, self.x = name, x
        if hasattr(x, "__array_interface__") and hasattr(x, "ctypes"):  # numpy
            import numpy as np
            types = {np.dtype(np.float32): _lib.MMT_F32, np.dtype(np.float64): _lib.MMT_F64,
                     np.dtype(np.float16): _lib.MMT_F16}
            self.device, self.ptr, self.itemsize = "cpu", x.ctypes.data, x.itemsize
            strides = [s // x.itemsize if s % x.itemsize == 0 else None for s in x.strides]
            dtype = types.get(x.dtype)
        elif hasattr(x, "data_ptr") and hasattr(x, "stride"):  # torch
            import torch
            types = {torch.float32: _lib.MMT_F32, torch.float64: _lib.MMT_F64, torch.bfloat16: _lib.MMT_BF16,
                     torch.float16: _lib.MMT_F16}
            for name8, code in (("float8_e4m3fn", _lib.MMT_E4M3), ("float8_e5m2", _lib.MMT_E5M2)):
                if hasattr(torch, name8):  # torch 2.1 on
                    types[getattr(torch, name8)] = code
            self.device = f"cuda:{x.device.index or 0}" if x.device.type == "cuda" else x.device.type
            if self.device not in ("cpu",) and not self.device.startswith("cuda:"):
                raise ValueError(f"{name}: tensors on {x.device} are not served (the CPU and CUDA GPUs are)")
            self.ptr, self.itemsize, strides = x.data_ptr(), x.element_size(), list(x.stride())
            dtype = types.get(x.dtype)
        else:
            raise TypeError(f"{name}: a numpy array or a torch tensor, not {type(x).__name__}")
        if dtype is None:
            raise TypeError(f"{name}: element type {x.dtype} is not served (float32, float64, bfloat16, float16, "
                            "float8_e4m3fn, float8_e5m2)")
        if len(x.shape) not in (2, 3):
            raise ValueError(f"{name}: a matrix (2 dimensions) or a batch of them (3), not {len(x.shape)}")
        self.batch, self.stride = (x.shape[0], strides[0]) if len(x.shape) == 3 else (None, 0)
        if self.stride is None or self.stride < 0:
            raise ValueError(f"{name}: the batch's stride must be a whole number of elements, 0 or more; copy it first")
        self.dtype, (self.rows, self.cols) = dtype, x.shape[-2:]
        self.layout, self.ld = _layout(name, self.rows, self.cols, strides[-2:])

    def span(self):
        """The bytes the storage of the matrix (of every matrix of the batch) reaches: [start, end)."""
        lines, length = ((self.rows, self.cols) if self.layout == _lib.MMT_ROW_MAJOR else (self.cols, self.rows))
        if not (lines and length and self.batch != 0):
            return self.ptr, self.ptr
        last = (self.batch - 1) * self.stride if self.batch else 0
        return self.ptr, self.ptr + (last + (lines - 1) * self.ld + length) * self.itemsize

    def in_layout(self, layout, trans):
        """(transpose flag, leading dimension) of op(X) read in `layout`: a matrix stored in
        the other layout is its transpose stored in this one."""
        flip = self.layout != layout
        return (_lib.MMT_TRANS if trans != flip else _lib.MMT_NO_TRANS), self.ld


class _Contexts:
    """One libmmtuned context per device, opened on first use, closed at exit. A lock per
    GPU context keeps a call's stream and its launch together (CPU calls run at once, as
    libmmtuned allows)."""

    def __init__(self):
        self.lock, self.open, self.db = threading.Lock(), {}, None

    def get(self, device):
        with self.lock:
            if device not in self.open:
                ctx = ctypes.c_void_p()
                db = self.db.encode() if self.db else None
                status = _lib.lib().mmt_open(ctypes.byref(ctx), device.encode(), db)
                if status != 0:
                    detail = (_lib.lib().mmt_last_error(ctx) if ctx else _lib.lib().mmt_last_error(None)) or b""
                    if ctx:
                        _lib.lib().mmt_close(ctx)
                    raise MmtuneError(status, f"{device}: {detail.decode(errors='replace')}")
                self.open[device] = (ctx, threading.Lock())
            return self.open[device]

    def close(self):
        with self.lock:
            for ctx, _ in self.open.values():
                _lib.lib().mmt_close(ctx)
            self.open.clear()


_contexts = _Contexts()
atexit.register(_contexts.close)
_last = threading.local()


def set_database(path):
    """The database later contexts read (None: $MMTUNE_DB, else ~/.cache/mmtune/mmtune.db);
    contexts already open keep theirs, so call it first."""
    _contexts.db = path


def _empty_like(a, shape, dtype):
    if a.device == "cpu" and hasattr(a.x, "ctypes"):
        import numpy as np
        return np.empty(shape, dtype={_lib.MMT_F32: np.float32, _lib.MMT_F64: np.float64,
                                      _lib.MMT_F16: np.float16}[dtype])
    import torch
    types = {_lib.MMT_F32: torch.float32, _lib.MMT_F64: torch.float64, _lib.MMT_BF16: torch.bfloat16,
             _lib.MMT_F16: torch.float16}
    if dtype in (_lib.MMT_E4M3, _lib.MMT_E5M2):
        types[dtype] = torch.float8_e4m3fn if dtype == _lib.MMT_E4M3 else torch.float8_e5m2
    return torch.empty(shape, dtype=types[dtype], device=a.x.device)


def _epilogue(bias, bias_per, activation, out_scale, m, n, A, C):
    """libmmtuned's epilogue for matmul's bias, activation and FP8 out's scale (None where none is given)."""
    if activation not in _lib.ACTIVATION:
        raise ValueError(f"activation={activation!r}: None, 'relu' or 'gelu'")
    scale = 0.0 if out_scale is None else float(out_scale)  # 0: none
    if out_scale is not None and C.dtype not in (_lib.MMT_E4M3, _lib.MMT_E5M2):
        raise ValueError("out_scale is FP8 out's (float8_e4m3fn, float8_e5m2)")
    if bias is None and activation is None and out_scale is None:
        return None
    if C.batch is not None:
        raise ValueError("bias, activation and out_scale apply to a single GEMM, not a batch")
    if bias is None:
        return _lib.Epilogue(0, _lib.MMT_F32, None, _lib.ACTIVATION[activation], scale)
    if bias_per not in _lib.BIAS:
        raise ValueError(f"bias_per={bias_per!r}: 'row' or 'col'")
    length = m if bias_per == "row" else n
    Bias = _Operand("bias", bias.reshape(1, -1) if len(bias.shape) == 1 else bias)
    if len(bias.shape) != 1 or bias.shape[0] != length or (length > 1 and Bias.layout != _lib.MMT_ROW_MAJOR):
        raise ValueError(f"bias: a contiguous vector of {length} values (one a {bias_per} of the result), "
                         f"not {tuple(bias.shape)}")
    if Bias.device != A.device or Bias.dtype not in (_lib.MMT_F32, C.dtype):
        raise TypeError(f"bias: float32 or the result's type, on {A.device}")
    return _lib.Epilogue(_lib.BIAS[bias_per], Bias.dtype, Bias.ptr, _lib.ACTIVATION[activation], scale)


def _scales(scale_a, scale_b, A, C, m, n, k, batch, epi):
    """The block scales' operands (mmt_gemm_scaled), checked; None where there are none."""
    if scale_a is None and scale_b is None:
        return None
    if scale_a is None or scale_b is None:
        raise ValueError("scale_a and scale_b come together")
    if A.dtype not in (_lib.MMT_E4M3, _lib.MMT_E5M2):
        raise TypeError("block scales are FP8's (float8_e4m3fn, float8_e5m2)")
    if batch is not None or epi is not None:
        raise ValueError("block scales apply to a single GEMM without bias or activation")
    if C.layout != _lib.MMT_ROW_MAJOR:
        raise ValueError("block scales: out in C order (a row-major result)")
    kbs = (k + 127) // 128
    scales = []
    for name, x, want in (("scale_a", scale_a, (kbs, m)), ("scale_b", scale_b, ((n + 127) // 128, kbs))):
        X = _Operand(name, x)
        dense = 1 in want or (X.layout == _lib.MMT_ROW_MAJOR and X.ld == want[1])
        if tuple(x.shape) != want or X.dtype != _lib.MMT_F32 or X.device != A.device or not dense:
            raise ValueError(f"{name}: a contiguous float32 array of {want[0]}x{want[1]} on {A.device}, "
                             f"not {tuple(x.shape)} {x.dtype}")
        scales.append(X)
    return scales


def matmul(a, b, out=None, *, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, compute="native", out_dtype=None,
           bias=None, bias_per="col", activation=None, scale_a=None, scale_b=None, out_scale=None):
    """out = alpha * op(a) @ op(b) + beta * out, op(x) being x.T where trans_x is set.

    a, b: 2-D numpy arrays (the CPU: float32, float64) or torch tensors (the CPU, or a CUDA
    GPU: also bfloat16 and float16, and on a Hopper GPU float8_e4m3fn and float8_e5m2, whose
    scales per tensor go into alpha, a of either kind and b of the other too), of one type,
    on one device, each contiguous along one
    dimension (C or Fortran order, or a slice of one). Either may be 3-D, a batch of
    matrices along its first dimension (any stride, 0 too): the call is then a strided batch
    of GEMMs (one cuBLAS call on a GPU), a 2-D operand shared by every GEMM, and the result
    3-D. out: an array of the result's shape on the same device, which beta = 0 never reads;
    None makes one (C order), which needs beta = 0. compute: "native", or for float32 on a
    GPU "tf32" (faster, about 1e-3 relative error) or "f32x3" (tensor cores at fp32
    accuracy). out_dtype: float32 for
    bfloat16 or float16 inputs (default: the inputs' type); float32 (the default), bfloat16,
    float16, float8_e4m3fn or float8_e5m2 for FP8 inputs (FP8 out rounded to nearest and
    saturated; out_scale, its scale, multiplies the result last). On a GPU the call runs on the
    current torch stream and returns before it is done, as torch's own matmul does.
    bias, bias_per, activation: out = activation(alpha op(a) @ op(b) + beta out + bias), bias
    a contiguous 1-D array of float32 or the result's type with a value per column of the
    result (bias_per="col", a layer's output features) or per row ("row"); activation None,
    "relu" or "gelu" (its tanh form). Not for batches.
    scale_a, scale_b: FP8's block scales (DeepSeek-V3's: mmtuned.h's mmt_gemm_scaled), float32
    on the operands' device: scale_a[kb, i] multiplies row i of op(a) over K's block kb (128
    values), scale_b[j // 128, kb] the block of op(b) of columns j; shapes (ceil(k / 128), m)
    and (ceil(n / 128), ceil(k / 128)), contiguous. A single GEMM, its result in C order.
    Raises TypeError or ValueError for operands it cannot take, MmtuneError where
    libmmtuned refuses or fails (its message); out is not written then."""
    A, B = _Operand("a", a), _Operand("b", b)
    if A.device != B.device:
        raise ValueError(f"a is on {A.device}, b on {B.device}")
    fp8 = (_lib.MMT_E4M3, _lib.MMT_E5M2)
    if A.dtype != B.dtype and not (A.dtype in fp8 and B.dtype in fp8):
        raise TypeError(f"a is {a.dtype}, b {b.dtype}: one type for both (or FP8 of two kinds)")
    ab_type = A.dtype if A.dtype == B.dtype else (_lib.MMT_E4M3_E5M2 if A.dtype == _lib.MMT_E4M3
                                                  else _lib.MMT_E5M2_E4M3)
    if compute not in _lib.COMPUTE:
        raise ValueError(f"compute={compute!r}: one of {', '.join(_lib.COMPUTE)}")
    m, k = (A.cols, A.rows) if trans_a else (A.rows, A.cols)
    k2, n = (B.cols, B.rows) if trans_b else (B.rows, B.cols)
    if k != k2:
        raise ValueError(f"op(a) is {m}x{k}, op(b) {k2}x{n}: their inner sizes differ")
    if A.batch is not None and B.batch is not None and A.batch != B.batch:
        raise ValueError(f"a is a batch of {A.batch}, b of {B.batch}: one count for both")
    batch = A.batch if A.batch is not None else B.batch
    shape = (m, n) if batch is None else (batch, m, n)
    if out is None:
        if beta != 0:
            raise ValueError("beta != 0 reads out: pass it")
        fp8 = A.dtype in (_lib.MMT_E4M3, _lib.MMT_E5M2)
        named = None if out_dtype is None else str(out_dtype).split(".")[-1]
        c_type = _lib.MMT_F32 if fp8 else A.dtype
        if named == "float32":
            c_type = _lib.MMT_F32
        elif fp8 and named in ("bfloat16", "float16", "float8_e4m3fn", "float8_e5m2"):
            c_type = {"bfloat16": _lib.MMT_BF16, "float16": _lib.MMT_F16, "float8_e4m3fn": _lib.MMT_E4M3,
                      "float8_e5m2": _lib.MMT_E5M2}[named]
        elif named is not None and (fp8 or named != str(a.dtype).split(".")[-1]):
            raise TypeError(f"out_dtype={out_dtype}: " + ("float32, bfloat16, float16, float8_e4m3fn or float8_e5m2 "
                                                          "for FP8 inputs" if fp8 else "the inputs' type, or float32"))
        out = _empty_like(A, shape, c_type)
    C = _Operand("out", out)
    if C.device != A.device:
        raise ValueError(f"out is on {C.device}, a and b on {A.device}")
    if tuple(out.shape) != shape:
        raise ValueError(f"out is {'x'.join(map(str, out.shape))}, the product {'x'.join(map(str, shape))}")
    _apart(C, A, B)
    epi = _epilogue(bias, bias_per, activation, out_scale, m, n, A, C)
    scales = _scales(scale_a, scale_b, A, C, m, n, k, batch, epi)
    layout = C.layout
    ta, lda = A.in_layout(layout, trans_a)
    tb, ldb = B.in_layout(layout, trans_b)
    desc = _lib.GemmDesc(ab_type, C.dtype, _lib.COMPUTE[compute], layout, ta, tb)

    def call(h, ctx):
        if scales is not None:
            return h.mmt_gemm_scaled(ctx, ctypes.byref(desc), scales[0].ptr, scales[1].ptr, m, n, k, float(alpha),
                                     A.ptr, lda, B.ptr, ldb, float(beta), C.ptr, C.ld)
        if epi is not None:
            return h.mmt_gemm_epilogue(ctx, ctypes.byref(desc), ctypes.byref(epi), m, n, k, float(alpha), A.ptr, lda,
                                       B.ptr, ldb, float(beta), C.ptr, C.ld)
        if batch is None:
            return h.mmt_gemm_ex(ctx, ctypes.byref(desc), m, n, k, float(alpha), A.ptr, lda, B.ptr, ldb, float(beta),
                                 C.ptr, C.ld)
        return h.mmt_gemm_strided_batched(ctx, ctypes.byref(desc), m, n, k, float(alpha), A.ptr, lda, A.stride, B.ptr,
                                          ldb, B.stride, float(beta), C.ptr, C.ld, C.stride, batch)

    _run(A.device, out, call)
    return out


def _apart(C, *inputs):
    """Raises ValueError where out (C) overlaps one of the inputs' storage."""
    for X in inputs:
        (s0, e0), (s1, e1) = C.span(), X.span()
        if s0 < e1 and s1 < e0:
            raise ValueError(f"out overlaps {X.name}: the result would overwrite its own input")


def _run(device, out, call):
    """call(library, context) on device's context (on a GPU on torch's current stream of out's
    device, with the context's lock held from setting the stream to the launch); its status
    checked, what served it kept for last_choice."""
    ctx, lock = _contexts.get(device)
    gpu = device.startswith("cuda:")
    h = _lib.lib()
    with lock if gpu else contextlib.nullcontext():  # the context's one stream is set, then used
        if gpu:
            import torch
            stream = torch.cuda.current_stream(out.device).cuda_stream
            _lib.check(ctx, h.mmt_set_stream(ctx, ctypes.c_void_p(stream)))
        _lib.check(ctx, call(h, ctx))
        config = ctypes.c_char_p()
        _last.choice = (_lib.CHOICES.get(h.mmt_last_choice(ctx, ctypes.byref(config)), "none"),
                        (config.value or b"").decode())


def grouped_matmul(a, b, m_sizes, out=None, *, alpha=1.0, beta=0.0, trans_b=False):
    """A mixture of experts' layer (mmtuned.h's mmt_gemm_grouped): the rows of a and of out in
    groups, one after another, group g of m_sizes[g] rows (0 allowed) multiplied by its own
    matrix b[g]: out_g = alpha * a_g @ op(b[g]) + beta * out_g, op(x) being x.T where trans_b
    is set.

    a: sum(m_sizes) x k; b: a 3-D array of len(m_sizes) matrices (k x n each, n x k with
    trans_b: a layer's weights as torch stores them), or one 2-D matrix every group shares;
    out: sum(m_sizes) x n, of the inputs' type (None makes one in C order, which needs beta
    = 0). Types, devices and layouts as matmul takes them. On a GPU, where the operands are
    16-byte aligned, groups of a few tens of rows run as one call of cuBLAS's grouped form,
    and bf16 or f16 groups of up to a few hundred rows (trans_b, out in C order) as one
    launch of libmmtuned's own kernel (README.md).
    Raises TypeError or ValueError for operands it cannot take, MmtuneError where
    libmmtuned refuses or fails; out is not written then."""
    sizes = [int(s) for s in m_sizes]
    if any(s < 0 for s in sizes):
        raise ValueError(f"m_sizes: the groups' rows, none negative, not {sizes}")
    A, B = _Operand("a", a), _Operand("b", b)
    if A.device != B.device:
        raise ValueError(f"a is on {A.device}, b on {B.device}")
    if A.dtype != B.dtype:
        raise TypeError(f"a is {a.dtype}, b {b.dtype}: one type for both")
    if A.batch is not None:
        raise ValueError("a: the groups' rows as one matrix (2 dimensions)")
    if B.batch is not None and B.batch != len(sizes):
        raise ValueError(f"b holds {B.batch} matrices for {len(sizes)} groups")
    m, k = A.rows, A.cols
    k2, n = (B.cols, B.rows) if trans_b else (B.rows, B.cols)
    if m != sum(sizes):
        raise ValueError(f"a has {m} rows, the groups {sum(sizes)}")
    if k != k2:
        raise ValueError(f"a is {m}x{k}, op(b) {k2}x{n}: their inner sizes differ")
    if out is None:
        if beta != 0:
            raise ValueError("beta != 0 reads out: pass it")
        out = _empty_like(A, (m, n), A.dtype)
    C = _Operand("out", out)
    if C.device != A.device or C.batch is not None or tuple(out.shape) != (m, n):
        raise ValueError(f"out: {m}x{n} on {A.device}, not {tuple(out.shape)} on {C.device}")
    _apart(C, A, B)
    layout = C.layout
    ta, lda = A.in_layout(layout, False)
    tb, ldb = B.in_layout(layout, trans_b)
    desc = _lib.GemmDesc(A.dtype, C.dtype, _lib.COMPUTE["native"], layout, ta, tb)
    rows = (ctypes.c_int64 * max(len(sizes), 1))(*sizes)
    _run(A.device, out, lambda h, ctx: h.mmt_gemm_grouped(ctx, ctypes.byref(desc), len(sizes), rows, n, k,
                                                          float(alpha), A.ptr, lda, B.ptr, ldb, B.stride,
                                                          float(beta), C.ptr, C.ld))
    return out


def last_choice():
    """What served this thread's last matmul: ("tuned" | "nearest tuned shape" | "default" |
    "vendor", the configuration's text), or None before the first."""
    return getattr(_last, "choice", None)
