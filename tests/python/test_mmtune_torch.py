"""The Python module on PyTorch CUDA tensors: every type and compute mode (FP8 on Hopper),
both orders and transposes, strided batches, groups of rows (grouped_matmul), a bias and an
activation, a side stream, against torch's own matmul in float64 on random data with the
output poisoned first (NaN); skipped without torch or a CUDA GPU. Run by
tests/cli_python.sh (the GPU machine has torch)."""
import unittest

import mmtune

try:
    import torch
    GPU = torch.cuda.is_available()
except ImportError:
    GPU = False

# (input type, output type, compute, error allowed relative to the sum of |a||b|)
KINDS = [("float32", "float32", "native", 1e-5), ("float64", "float64", "native", 1e-13),
         ("float32", "float32", "tf32", 5e-3), ("float32", "float32", "f32x3", 1e-5),
         ("bfloat16", "bfloat16", "native", 2e-2), ("bfloat16", "float32", "native", 1e-4),
         ("float16", "float16", "native", 3e-3), ("float16", "float32", "native", 1e-4)]


@unittest.skipUnless(GPU, "no torch with a CUDA GPU")
class MatmulTorch(unittest.TestCase):
    def check(self, kind, m, n, k, ta, tb, col, stream=None):
        ab, ct, compute, tol = kind
        dev = torch.device("cuda:0")
        ab_t, c_t = getattr(torch, ab), getattr(torch, ct)
        a = torch.empty((k, m) if ta else (m, k), device=dev).uniform_(-1, 1).to(ab_t)
        b = torch.empty((n, k) if tb else (k, n), device=dev).uniform_(-1, 1).to(ab_t)
        if col:  # Fortran-ordered storage: the transpose of a contiguous tensor
            a, b = a.t().contiguous().t(), b.t().contiguous().t()
        out = torch.full((n, m) if col else (m, n), float("nan"), dtype=c_t, device=dev)
        out = out.t() if col else out
        x, y = a.double(), b.double()
        want = (x.t() if ta else x) @ (y.t() if tb else y)
        scale = (x.abs().t() if ta else x.abs()) @ (y.abs().t() if tb else y.abs())
        if stream is not None:  # the operands were made on the current stream
            stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream) if stream is not None else torch.cuda.device(dev):
            mmtune.matmul(a, b, out, trans_a=ta, trans_b=tb, compute=compute,
                          out_dtype=ct if ct != ab else None)
        torch.cuda.synchronize()
        err = float(((out.double() - want).abs() / (scale + 1e-30)).max())
        self.assertTrue(bool(torch.isfinite(out).all()), f"{kind} {m}x{n}x{k}: NaN or Inf")
        self.assertLessEqual(err, tol, f"{kind} {m}x{n}x{k} ta={ta} tb={tb} col={col}")

    def test_every_kind(self):
        for kind in KINDS:
            for m, n, k in ((256, 192, 128), (67, 45, 93), (1, 300, 70)):
                for ta in (False, True):
                    for tb in (False, True):
                        for col in (False, True):
                            with self.subTest(kind=kind, shape=(m, n, k), ta=ta, tb=tb, col=col):
                                self.check(kind, m, n, k, ta, tb, col)

    @unittest.skipUnless(GPU and hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability(0) == (9, 0),
                         "FP8 needs torch 2.1 and a Hopper GPU")
    def test_fp8(self):
        """float8_e4m3fn and float8_e5m2 in every order and transpose (cuBLASLt takes e4m3 NT alone:
        the templates serve the rest, packing K-major what is not), C in float32, bfloat16 or float16; FP8's tensor cores keep
        about 14 bits of a running sum, the templates promote each 128 of K to fp32."""
        for ab, ct, tol in (("float8_e4m3fn", "bfloat16", 2e-2), ("float8_e4m3fn", "float32", 1e-2),
                            ("float8_e5m2", "float16", 1e-2)):
            for m, n, k in ((256, 192, 128), (67, 45, 93), (64, 45, 128)):  # the last: C's rows unaligned
                for ta in (False, True):
                    for tb in (False, True):
                        for col in (False, True):
                            with self.subTest(ab=ab, ct=ct, shape=(m, n, k), ta=ta, tb=tb, col=col):
                                self.check((ab, ct, "native", tol), m, n, k, ta, tb, col)
        dev = torch.device("cuda:0")  # FP8 of two kinds: e4m3 times e5m2 and the reverse
        for at, bt in (("float8_e4m3fn", "float8_e5m2"), ("float8_e5m2", "float8_e4m3fn")):
            for ta in (False, True):
                for col in (False, True):
                    with self.subTest(a=at, b=bt, ta=ta, col=col):
                        m, n, k = 96, 80, 200
                        a = torch.empty((k, m) if ta else (m, k), device=dev).uniform_(-1, 1).to(getattr(torch, at))
                        b = torch.empty((n, k), device=dev).uniform_(-1, 1).to(getattr(torch, bt))
                        x, y = (a.double().t() if ta else a.double()), b.double().t()
                        out = torch.full((n, m) if col else (m, n), float("nan"), dtype=torch.float32, device=dev)
                        out = out.t() if col else out
                        mmtune.matmul(a, b, out, trans_a=ta, trans_b=True)
                        torch.cuda.synchronize()
                        err = float(((out.double() - x @ y).abs() / (x.abs() @ y.abs() + 1e-30)).max())
                        self.assertLessEqual(err, 1e-2)
        # FP8 out, rounded to nearest and saturated: its scale alone, and with a bias and ReLU
        # (in the kernel's store, or from an fp32 scratch while that variant builds)
        m, n, k = 128, 96, 256
        a = torch.empty((m, k), device=dev).uniform_(-1, 1).to(torch.float8_e4m3fn)
        b = torch.empty((n, k), device=dev).uniform_(-1, 1).to(torch.float8_e4m3fn)
        bias = torch.empty(n, device=dev).uniform_(-1, 1)
        x, y = a.double(), b.double().t()
        for ct, most in (("float8_e4m3fn", 448.0), ("float8_e5m2", 57344.0)):
            for scale, kwargs in ((0.5, {}), (64.0, dict(bias=bias, activation="relu"))):
                with self.subTest(out=ct, scale=scale, **{key: True for key in kwargs}):
                    got = mmtune.matmul(a, b, trans_b=True, out_dtype=getattr(torch, ct), out_scale=scale, **kwargs)
                    torch.cuda.synchronize()
                    want = x @ y + (bias.double() if kwargs else 0)
                    want = (want.clamp(min=0) if kwargs else want) * scale
                    want = want.clamp(-most, most)
                    err = float(((got.double() - want).abs() / (scale * (x.abs() @ y.abs() + 1))).max())
                    self.assertEqual(got.dtype, getattr(torch, ct))
                    self.assertLessEqual(err, 0.07 if ct == "float8_e4m3fn" else 0.13)
        with self.assertRaises(TypeError):  # FP8 out is FP8 inputs'
            mmtune.matmul(torch.ones((16, 16), device=dev, dtype=torch.bfloat16),
                          torch.ones((16, 16), device=dev, dtype=torch.bfloat16), out_dtype=torch.float8_e4m3fn)

    @unittest.skipUnless(GPU and hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability(0) == (9, 0),
                         "FP8 needs torch 2.1 and a Hopper GPU")
    def test_fp8_block_scales(self):
        """FP8 with block scales (scale_a per row and 128 of K, scale_b per 128 x 128 block) in
        every transpose, C in bfloat16 and float32, against the dequantised product in float64;
        the refusals (one scale alone, a scale of the wrong shape, a column-major result)."""
        dev = torch.device("cuda:0")
        for ab, ct, tol in (("float8_e4m3fn", "bfloat16", 2e-2), ("float8_e4m3fn", "float32", 1e-2),
                            ("float8_e5m2", "float16", 1e-2)):
            for m, n, k in ((256, 192, 384), (67, 200, 300)):
                for ta in (False, True):
                    for tb in (False, True):
                        with self.subTest(ab=ab, ct=ct, shape=(m, n, k), ta=ta, tb=tb):
                            ab_t, c_t = getattr(torch, ab), getattr(torch, ct)
                            a = torch.empty((k, m) if ta else (m, k), device=dev).uniform_(-1, 1).to(ab_t)
                            b = torch.empty((n, k) if tb else (k, n), device=dev).uniform_(-1, 1).to(ab_t)
                            kbs = (k + 127) // 128
                            sa = torch.empty((kbs, m), device=dev).uniform_(0.25, 4)
                            sb = torch.empty(((n + 127) // 128, kbs), device=dev).uniform_(0.25, 4)
                            x = (a.double().t() if ta else a.double())  # m x k
                            y = (b.double().t() if tb else b.double())  # k x n
                            cols = torch.arange(k, device=dev) // 128
                            xs = x * sa.double()[cols, :].t()  # row i, column l: times sa[l // 128, i]
                            ys = y * sb.double()[torch.arange(n, device=dev) // 128][:, cols].t()
                            want, scale = xs @ ys, xs.abs() @ ys.abs()
                            out = torch.full((m, n), float("nan"), dtype=c_t, device=dev)
                            mmtune.matmul(a, b, out, trans_a=ta, trans_b=tb, scale_a=sa, scale_b=sb)
                            torch.cuda.synchronize()
                            err = float(((out.double() - want).abs() / (scale + 1e-30)).max())
                            self.assertTrue(bool(torch.isfinite(out).all()))
                            self.assertLessEqual(err, tol)
        a = torch.ones((16, 256), device=dev).to(torch.float8_e4m3fn)
        sa, sb = torch.ones((2, 16), device=dev), torch.ones((1, 2), device=dev)
        with self.assertRaises(ValueError):
            mmtune.matmul(a, a, trans_b=True, scale_a=sa)
        with self.assertRaises(ValueError):
            mmtune.matmul(a, a, trans_b=True, scale_a=sa, scale_b=torch.ones((2, 1), device=dev))
        with self.assertRaises(ValueError):
            mmtune.matmul(a, a, torch.empty((16, 16), device=dev).t(), trans_b=True, scale_a=sa, scale_b=sb)

    def test_batched(self):
        """3-D tensors: a strided batch in one cuBLAS call, a 2-D operand shared, against torch's
        batched matmul in float64, b given transposed (trans_b)."""
        dev = torch.device("cuda:0")
        for kind in KINDS:
            ab, ct, compute, tol = kind
            for batch, m, n, k, shared_b in ((8, 67, 45, 93, False), (3, 33, 17, 300, True), (200, 3, 4, 2, False)):
                with self.subTest(kind=kind, shape=(batch, m, n, k), shared_b=shared_b):
                    a = torch.empty((batch, m, k), device=dev).uniform_(-1, 1).to(getattr(torch, ab))
                    b = torch.empty((n, k) if shared_b else (batch, n, k), device=dev).uniform_(-1, 1)
                    b = b.to(getattr(torch, ab))
                    out = torch.full((batch, m, n), float("nan"), dtype=getattr(torch, ct), device=dev)
                    mmtune.matmul(a, b, out, trans_b=True, compute=compute,
                                  out_dtype="float32" if ct != ab else None)
                    torch.cuda.synchronize()
                    x, y = a.double(), b.double().transpose(-1, -2)
                    want, scale = x @ y, x.abs() @ y.abs()
                    err = float(((out.double() - want).abs() / (scale + 1e-30)).max())
                    self.assertTrue(bool(torch.isfinite(out).all()), f"{kind}: NaN or Inf")
                    self.assertLessEqual(err, tol, f"{kind} batch {batch} {m}x{n}x{k}")
                    self.assertEqual(mmtune.last_choice()[0], "vendor", mmtune.last_choice())

    def test_grouped(self):
        """grouped_matmul: a mixture of experts' layer with the weights as torch stores them
        (trans_b), small groups (one call of cuBLAS's grouped form) and larger ones (the
        templates' one launch or one GEMM after another), against torch in float64."""
        dev = torch.device("cuda:0")
        for sizes in ([3, 0, 17, 1, 40, 9, 0, 25], [300, 0, 129, 257]):
            for dtype, tol in (("bfloat16", 2e-2), ("float16", 3e-3), ("float32", 1e-5)):
                with self.subTest(sizes=sizes, dtype=dtype):
                    t = getattr(torch, dtype)
                    m, n, k = sum(sizes), 64, 96
                    x = torch.empty((m, k), device=dev).uniform_(-1, 1).to(t)
                    w = torch.empty((len(sizes), n, k), device=dev).uniform_(-1, 1).to(t)
                    out = torch.full((m, n), float("nan"), dtype=t, device=dev)
                    mmtune.grouped_matmul(x, w, sizes, out, trans_b=True)
                    torch.cuda.synchronize()
                    first = 0
                    for g, rows in enumerate(sizes):
                        if rows:
                            a, b = x[first:first + rows].double(), w[g].double()
                            err = (out[first:first + rows].double() - a @ b.t()).abs() / (a.abs() @ b.abs().t())
                            self.assertLessEqual(float(err.max()), tol)
                        first += rows

    def test_bias_and_activation(self):
        """out = act(a @ b + bias) against torch in float64 (GELU's tanh form: torch's
        approximate="tanh"), a bias per column and per row, float32 and the output's type."""
        dev = torch.device("cuda:0")
        acts = {None: lambda x: x, "relu": torch.relu,
                "gelu": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}
        for ab, ct, compute, tol in KINDS:
            if compute != "native":
                continue
            for per in ("col", "row"):
                for name, act in acts.items():
                    for bias_type in ("float32", ct):
                        with self.subTest(kind=(ab, ct), per=per, act=name, bias=bias_type):
                            m, n, k = 67, 45, 93
                            a = torch.empty((m, k), device=dev).uniform_(-1, 1).to(getattr(torch, ab))
                            b = torch.empty((k, n), device=dev).uniform_(-1, 1).to(getattr(torch, ab))
                            bias = torch.empty(m if per == "row" else n, device=dev).uniform_(-1, 1)
                            bias = bias.to(getattr(torch, bias_type))
                            out = torch.full((m, n), float("nan"), dtype=getattr(torch, ct), device=dev)
                            mmtune.matmul(a, b, out, out_dtype="float32" if ct != ab else None, bias=bias,
                                          bias_per=per, activation=name)
                            torch.cuda.synchronize()
                            x, y = a.double(), b.double()
                            shaped = bias.double()[:, None] if per == "row" else bias.double()
                            want = act(x @ y + shaped)
                            scale = x.abs() @ y.abs() + shaped.abs()
                            err = float(((out.double() - want).abs() / (scale + 1e-30)).max())
                            self.assertLessEqual(err, 2 * tol, f"{ab}->{ct} bias per {per} ({bias_type}) {name}")

    def test_side_stream(self):
        s = torch.cuda.Stream()
        self.check(KINDS[0], 512, 384, 256, False, False, False, stream=s)

    def test_refused(self):
        a = torch.ones((8, 6), device="cuda:0")
        with self.assertRaises(ValueError):
            mmtune.matmul(a, torch.ones((6, 4)))  # another device
        with self.assertRaises(TypeError):
            mmtune.matmul(a.int(), torch.ones((6, 4), device="cuda:0").int())


if __name__ == "__main__":
    unittest.main()
