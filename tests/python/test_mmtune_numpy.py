"""The Python module on numpy arrays (the CPU): every layout and transpose, views with a
leading dimension, alpha and beta by BLAS's rules, batches and groups of rows, checked against a long double reference
on random data with the output poisoned first; and the errors for what it cannot take.
Run by tests/cli_python.sh."""
import unittest

import numpy as np

import mmtune

rng = np.random.default_rng(11)


def reference(a, b, c, alpha, beta, ta, tb):
    """alpha op(a) op(b) + beta c in long double; c is not read where beta is 0."""
    x, y = a.astype(np.longdouble), b.astype(np.longdouble)
    x, y = x.T if ta else x, y.T if tb else y
    r = alpha * (x @ y)
    return r if beta == 0 else r + beta * c.astype(np.longdouble)


def bound(a, b, ta, tb, dtype):
    """2 k u |a| |b|, elementwise (the classic bound of a dot product's error), and a tiny floor."""
    x, y = np.abs(a).astype(np.longdouble), np.abs(b).astype(np.longdouble)
    x, y = x.T if ta else x, y.T if tb else y
    k = x.shape[1]
    return 2 * max(k, 1) * np.finfo(dtype).eps * (x @ y + 1) + np.finfo(dtype).tiny


def stored(x, order):
    """x in C or Fortran order, or as a strided view (every other row of a larger array)."""
    if order == "C":
        return np.ascontiguousarray(x)
    if order == "F":
        return np.asfortranarray(x)
    big = np.empty((2 * x.shape[0] + 1, x.shape[1] + 3), x.dtype)
    big[1::2, 2:-1] = x
    return big[1::2, 2:-1]


class Matmul(unittest.TestCase):
    def test_every_way(self):
        for dtype in (np.float32, np.float64):
            for m, n, k in ((64, 48, 40), (1, 37, 5), (33, 1, 70), (7, 9, 1), (130, 77, 301)):
                for ta in (False, True):
                    for tb in (False, True):
                        for orders in ("CCC", "FCF", "CFC", "SSF", "FFS"):
                            for alpha, beta in ((1.0, 0.0), (-0.75, 1.5)):
                                with self.subTest(dtype=dtype, shape=(m, n, k), ta=ta, tb=tb, orders=orders,
                                                  alpha=alpha, beta=beta):
                                    a = rng.uniform(-1, 1, (k, m) if ta else (m, k)).astype(dtype)
                                    b = rng.uniform(-1, 1, (n, k) if tb else (k, n)).astype(dtype)
                                    c0 = rng.uniform(-1, 1, (m, n)).astype(dtype)
                                    want = reference(a, b, c0, alpha, beta, ta, tb)
                                    c = stored(np.full((m, n), np.nan, dtype) if beta == 0 else c0, orders[2])
                                    got = mmtune.matmul(stored(a, orders[0]), stored(b, orders[1]), c, alpha=alpha,
                                                        beta=beta, trans_a=ta, trans_b=tb)
                                    self.assertIs(got, c)
                                    err = np.abs(got.astype(np.longdouble) - want) / bound(a, b, ta, tb, dtype)
                                    self.assertTrue(np.all(np.isfinite(got)), "NaN or Inf in the result")
                                    self.assertLessEqual(float(err.max()), 1.0)

    def test_out_made(self):
        a = rng.uniform(-1, 1, (50, 20))
        b = rng.uniform(-1, 1, (20, 30))
        c = mmtune.matmul(a, b)
        self.assertEqual((c.shape, c.dtype, c.flags.c_contiguous), ((50, 30), np.float64, True))
        self.assertLess(float(np.abs(c - a @ b).max()), 1e-12)
        how, config = mmtune.last_choice()
        self.assertIn(how, ("tuned", "nearest tuned shape", "default", "vendor"))
        self.assertTrue(config)

    def test_batched(self):
        """3-D operands: a strided batch of GEMMs (the batch first), a 2-D operand shared by
        every GEMM, transposed views and Fortran-ordered matrices, against numpy's matmul in
        long double; out's gaps (every other matrix of a larger array) untouched."""
        for dtype in (np.float32, np.float64):
            for batch, m, n, k, shared in ((5, 7, 9, 3, ""), (3, 33, 17, 65, "b"), (4, 16, 40, 8, "a"),
                                           (1, 1, 9, 130, ""), (200, 3, 4, 2, "")):
                for ta, tb in ((False, False), (True, False), (False, True)):
                    with self.subTest(dtype=dtype, shape=(batch, m, n, k), shared=shared, ta=ta, tb=tb):
                        a = rng.uniform(-1, 1, (() if shared == "a" else (batch,)) + ((k, m) if ta else (m, k)))
                        b = rng.uniform(-1, 1, (() if shared == "b" else (batch,)) + ((n, k) if tb else (k, n)))
                        a, b = a.astype(dtype), b.astype(dtype)
                        x = np.swapaxes(a, -1, -2) if ta else a
                        y = np.swapaxes(b, -1, -2) if tb else b
                        want = x.astype(np.longdouble) @ y.astype(np.longdouble)
                        # a transpose as a view: the operand's matrices are stored the other way
                        av = np.swapaxes(np.ascontiguousarray(np.swapaxes(a, -1, -2)), -1, -2) if ta else a
                        big = np.full((2 * batch, m, n), np.nan, dtype)
                        got = mmtune.matmul(av, b, big[::2], trans_a=ta, trans_b=tb)
                        self.assertTrue(np.all(np.isnan(big[1::2])), "written between the matrices of out")
                        scale = np.abs(x).astype(np.longdouble) @ np.abs(y).astype(np.longdouble) + 1
                        err = np.abs(got.astype(np.longdouble) - want) / (2 * k * np.finfo(dtype).eps * scale)
                        self.assertLessEqual(float(err.max()), 1.0)
        made = mmtune.matmul(np.ones((6, 4, 3)), np.ones((3, 5)))
        self.assertEqual(made.shape, (6, 4, 5))
        self.assertTrue(np.all(made == 3.0))
        with self.assertRaises(ValueError):  # batches of different counts
            mmtune.matmul(np.ones((2, 4, 3)), np.ones((3, 3, 5)))
        with self.assertRaises(ValueError):  # a 2-D out for a batch
            mmtune.matmul(np.ones((2, 4, 3)), np.ones((3, 5)), np.zeros((4, 5)))
        out = np.full((3, 4, 5), 7.0)
        with self.assertRaises(mmtune.MmtuneError):  # every GEMM into one C: libmmtuned refuses
            mmtune.matmul(np.ones((3, 4, 2)), np.ones((2, 5)), np.lib.stride_tricks.as_strided(
                out, (3, 4, 5), (0, 40, 8)), beta=1.0)
        self.assertTrue(np.all(out == 7.0), "a refused batch wrote out")

    def test_grouped(self):
        """grouped_matmul: the rows of a and out by groups (empty ones among them), a matrix of
        b each (transposed as torch stores a layer's weights, or one shared), a Fortran-ordered
        out, alpha and beta, against numpy in long double; the refusals, out untouched."""
        sizes = [3, 0, 17, 1, 40, 0, 9]
        m, n, k = sum(sizes), 24, 19
        for dtype in (np.float32, np.float64):
            for tb, shared, order, alpha, beta in ((False, False, "C", 1.0, 0.0), (True, False, "C", -0.5, 1.5),
                                                   (False, True, "F", 2.0, 0.0), (True, False, "F", 1.0, 1.0)):
                with self.subTest(dtype=dtype, trans_b=tb, shared=shared, order=order, alpha=alpha, beta=beta):
                    a = rng.uniform(-1, 1, (m, k)).astype(dtype)
                    one = (n, k) if tb else (k, n)
                    b = rng.uniform(-1, 1, one if shared else (len(sizes),) + one).astype(dtype)
                    c0 = rng.uniform(-1, 1, (m, n)).astype(dtype)
                    c = stored(np.full((m, n), np.nan, dtype) if beta == 0 else c0.copy(), order)
                    got = mmtune.grouped_matmul(a, b, sizes, c, alpha=alpha, beta=beta, trans_b=tb)
                    self.assertIs(got, c)
                    first = 0
                    for g, rows in enumerate(sizes):
                        w = b if shared else b[g]
                        x = a[first:first + rows]
                        want = reference(x, w, c0[first:first + rows], alpha, beta, False, tb)
                        err = np.abs(got[first:first + rows].astype(np.longdouble) - want) / bound(x, w, False, tb,
                                                                                                   dtype)
                        self.assertLessEqual(float(err.max(initial=0)), 1.0)
                        first += rows
        made = mmtune.grouped_matmul(np.ones((5, 3)), np.ones((2, 3, 4)), [2, 3])
        self.assertEqual((made.shape, made.dtype), ((5, 4), np.float64))
        self.assertTrue(np.all(made == 3.0))
        out = np.full((5, 4), 7.0)
        for args in ((np.ones((5, 3)), np.ones((3, 3, 4)), [2, 3]),  # three matrices for two groups
                     (np.ones((5, 3)), np.ones((2, 3, 4)), [2, 2]),  # the groups' rows are not a's
                     (np.ones((5, 3)), np.ones((2, 3, 4)), [6, -1]),  # a negative group
                     (np.ones((5, 3)), np.ones((2, 2, 4)), [2, 3])):  # the inner sizes differ
            with self.assertRaises(ValueError):
                mmtune.grouped_matmul(*args, out)
        self.assertTrue(np.all(out == 7.0), "a refused call wrote out")

    def test_bias_and_activation(self):
        """A bias per column or per row in float32 or the result's type, then ReLU or GELU's
        tanh form (or neither), beta = 0 over NaN and a residual, both orders of out, against
        the formula in long double; and what the epilogue refuses, out untouched."""
        def act(x, name):
            if name == "relu":
                return np.maximum(x, 0)
            if name == "gelu":
                return 0.5 * x * (1 + np.tanh(np.sqrt(np.longdouble(2) / np.pi) * (x + 0.044715 * x ** 3)))
            return x
        for dtype in (np.float32, np.float64):
            for m, n, k in ((37, 23, 19), (1, 64, 50), (200, 130, 40)):
                for per in ("col", "row"):
                    for name in (None, "relu", "gelu"):
                        for bias_type, beta, order in ((np.float32, 0.0, "C"), (dtype, 1.0, "F")):
                            with self.subTest(dtype=dtype, shape=(m, n, k), per=per, act=name, bias=bias_type):
                                a = rng.uniform(-1, 1, (m, k)).astype(dtype)
                                b = rng.uniform(-1, 1, (k, n)).astype(dtype)
                                c0 = rng.uniform(-1, 1, (m, n)).astype(dtype)
                                bias = rng.uniform(-1, 1, m if per == "row" else n).astype(bias_type)
                                shaped = bias.astype(np.longdouble)[:, None] if per == "row" else bias
                                want = act(reference(a, b, c0, 1.0, beta, False, False) + shaped, name)
                                c = stored(np.full((m, n), np.nan, dtype) if beta == 0 else c0, order)
                                got = mmtune.matmul(a, b, c, beta=beta, bias=bias, bias_per=per, activation=name)
                                err = np.abs(got.astype(np.longdouble) - want) / (
                                    1.2 * bound(a, b, False, False, dtype) + 4 * np.finfo(dtype).eps * (
                                        np.abs(want) + np.abs(shaped) + abs(beta)))
                                self.assertLessEqual(float(err.max()), 1.0)
        a, b = np.ones((8, 6), np.float32), np.ones((6, 4), np.float32)
        relu = mmtune.matmul(-a, b, activation="relu")
        self.assertTrue(np.all(relu == 0))
        out = np.full((8, 4), 7.0, np.float32)
        cases = [
            (ValueError, dict(activation="tanh")),
            (ValueError, dict(bias=np.ones(4, np.float32), bias_per="both")),
            (ValueError, dict(bias=np.ones(5, np.float32))),  # one a column: 4
            (ValueError, dict(bias=np.ones(8, np.float32)[::2])),  # not contiguous
            (TypeError, dict(bias=np.ones(4, np.float64))),  # neither float32 nor the result's type
            (ValueError, dict(out_scale=0.5)),  # FP8 out's
        ]
        for error, kwargs in cases:
            with self.subTest(kwargs=kwargs), self.assertRaises(error):
                mmtune.matmul(a, b, out, **kwargs)
        self.assertTrue(np.all(out == 7.0), "a refused call wrote out")
        batch = np.full((3, 8, 4), 7.0, np.float32)  # an activation of a batch: refused, not applied to one GEMM
        with self.assertRaises(ValueError):
            mmtune.matmul(np.ones((3, 8, 6), np.float32), b, batch, activation="relu")
        self.assertTrue(np.all(batch == 7.0))

    def test_refused(self):
        a = np.ones((8, 6), np.float32)
        b = np.ones((6, 4), np.float32)
        cases = [
            (TypeError, lambda: mmtune.matmul([[1.0]], b)),
            (TypeError, lambda: mmtune.matmul(a.astype(np.int32), b.astype(np.int32))),
            (TypeError, lambda: mmtune.matmul(a, b.astype(np.float64))),
            (ValueError, lambda: mmtune.matmul(a, np.ones((5, 4), np.float32))),
            (ValueError, lambda: mmtune.matmul(np.ones(8, np.float32), b)),
            (ValueError, lambda: mmtune.matmul(a[:, ::2], np.ones((3, 4), np.float32))),
            (ValueError, lambda: mmtune.matmul(a, b, beta=1.0)),
            (ValueError, lambda: mmtune.matmul(a, b, np.zeros((8, 5), np.float32))),
            (ValueError, lambda: mmtune.matmul(a, b, compute="fast")),
        ]
        for error, call in cases:
            with self.assertRaises(error):
                call()
        square = np.ones((6, 6), np.float32)
        with self.assertRaises(ValueError):  # out overlapping an input
            mmtune.matmul(square, square, square)
        out = np.full((8, 4), 7.0, np.float32)
        with self.assertRaises(mmtune.MmtuneError) as e:  # no tf32 on the CPU: libmmtuned's message
            mmtune.matmul(a, b, out, compute="tf32")
        self.assertTrue(str(e.exception))
        self.assertTrue(np.all(out == 7.0), "a refused call wrote out")


if __name__ == "__main__":
    unittest.main()
