"""Static gradients through an in-place while_loop whose loop variable is a variable of an
enclosing block (the loop built in a cond branch or in another while_loop's body) or was
last written by a control-flow op (an earlier while_loop or cond): under profiles 1.8 and
2.0 (switch while_loop_in_place) the loop overwrites that variable, yet the grad ops of
the ops before the loop read the value their op read (specs/control_flow.md#execution),
so W@GRAD is the central differences' in every profile (profile 3 loops on copies: the
chain rule without any rewriting). Each case is written once against a backend: numpy
(the reference, Python loops) or refimpl's static layers."""
import numpy as np
import pytest

from refimpl import fluid

from helpers import central_differences

L = fluid.layers


def _softmax(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


class _Numpy:
    activations = {"softmax": _softmax, "relu": lambda z: np.maximum(z, 0.0),
                   "tanh": np.tanh, "matmul": lambda z: z}
    matmul = staticmethod(np.matmul)
    mean = staticmethod(np.mean)

    def __init__(self, act, in_place):
        self.act = self.activations[act]
        self.in_place = in_place

    def loop(self, steps, fn, x):
        """x = fn(x) `steps` times; in place (profiles 1.8, 2.0) x itself ends with it."""
        start = x
        for _ in range(steps):
            x = fn(x)
        if self.in_place and isinstance(start, np.ndarray):   # a mean's float: not read
            np.copyto(start, x)
        return x

    def while_block(self, steps, fn, x):
        """Paddle 1.8's While: its body assigns fn(x) to x, in every profile."""
        for _ in range(steps):
            x = fn(x)
        return x

    @staticmethod
    def cond(pred, true_fn, false_fn):
        return true_fn() if pred else false_fn()


class _Static:
    matmul = staticmethod(L.matmul)
    mean = staticmethod(L.mean)

    def __init__(self, act):
        # "matmul": no activation, the values are matmul's outputs (its grad reads inputs)
        self.act = (lambda z: z) if act == "matmul" else getattr(L, act)

    @staticmethod
    def loop(steps, fn, x):
        """while_loop: x = fn(x) `steps` times; the final x (x itself when in place)."""
        i = L.fill_constant([1], "int64", 0)
        n = L.fill_constant([1], "int64", steps)
        return L.while_loop(lambda i, x: L.less_than(i, n),
                            lambda i, x: [L.increment(i), fn(x)], [i, x])[1]

    @staticmethod
    def while_block(steps, fn, x):
        """x = fn(x) `steps` times in a While's block on a copy of x (assigned to it: the
        copy ends with it; x's writer's grad op may read x, which a While, as Paddle's,
        would overwrite)."""
        x = L.assign(x)
        i = L.fill_constant([1], "int64", 0)
        n = L.fill_constant([1], "int64", steps)
        cond = L.less_than(i, n)
        with L.While(cond).block():
            L.assign(fn(x), x)
            L.increment(i, in_place=True)
            L.less_than(i, n, cond=cond)
        return x

    @staticmethod
    def cond(pred, true_fn, false_fn):
        return L.cond(L.fill_constant([1], "bool", pred), true_fn, false_fn)


def _in_a_branch(K, pred, img, w0, w1, c):
    """(a) the loop in a cond branch, on act's output of the enclosing block, which the
    branch reads before the loop."""
    p = K.act(K.matmul(img, w0))

    def taken():
        s = K.mean(p * p)
        return K.mean(K.loop(2, lambda q: K.act(K.matmul(q, w1)), p) * c) + s
    return K.cond(pred, taken, lambda: K.mean(p * c))


def _nested(K, pred, img, w0, w1, c):
    """An inner loop on the outer loop's variable, which the outer body reads before it."""
    def body(p):
        s = K.matmul(p, w1)
        return K.act(K.loop(2, lambda q: K.act(K.matmul(q, w1)), p) + s)
    return K.mean(K.loop(2, body, K.act(K.matmul(img, w0))) * c)


def _nested_in_a_while_block(K, pred, img, w0, w1, c):
    """The inner loop on the variable of a While (1.8's loop class) that its block reads
    before the loop and then assigns: the copy back of the loop's result is overwritten."""
    def body(p):
        s = K.matmul(p, w1)
        return K.act(K.loop(2, lambda q: K.act(K.matmul(q, w1)), p) + s)
    return K.mean(K.while_block(2, body, K.act(K.matmul(img, w0))) * c)


def _in_a_branch_in_a_body(K, pred, img, w0, w1, c):
    """(a) two levels: the loop in a cond branch inside an outer loop's body, on the outer
    loop's variable, which the body reads before the cond and the branch before the loop."""
    def body(p):
        s = p * c

        def taken():
            t = p * p
            return K.loop(2, lambda q: K.act(K.matmul(q, w1)), p) + t
        return K.cond(pred, taken, lambda: K.act(p)) + s
    return K.mean(K.loop(2, body, K.act(K.matmul(img, w0))) * c)


def _after_a_loop(K, pred, img, w0, w1, c):
    """(b) the loop on the output of an earlier while_loop, read in between."""
    q = K.loop(2, lambda q: K.act(K.matmul(q, w0)), K.act(K.matmul(img, w0)))
    s = K.mean(q * q)
    return K.mean(K.loop(2, lambda r: K.act(K.matmul(r, w1)), q) * c) + s


def _after_a_cond(K, pred, img, w0, w1, c):
    """(b) the loop on the output of a cond, read in between."""
    h = K.matmul(img, w0)
    r = K.cond(pred, lambda: K.act(h), lambda: K.act(h * h))
    s = K.mean(r * r)
    return K.mean(K.loop(2, lambda q: K.act(K.matmul(q, w1)), r) * c) + s


def _in_a_body(K, pred, img, w0, w1, c):
    """(a) the loop in another loop's body, on a variable of the enclosing block that the
    outer loop does not carry: in place, each outer step loops on what the last one left
    (the forward differs by profile); read before the outer loop, in the body before and
    after the loop (the variable itself, not the loop's result: by an op, and in a cond's
    branch) and after the outer loop."""
    p = K.act(K.matmul(img, w0))

    def body(acc):
        t = acc + K.mean(p * c)
        K.loop(2, lambda q: K.act(K.matmul(q, w1)), p)
        return t + K.mean(p * p) + K.cond(pred, lambda: K.mean(p * c), lambda: K.mean(p))
    return K.loop(2, body, K.mean(p * p)) + K.mean(p * c)


_CASES = {"in a branch": _in_a_branch, "nested": _nested, "in a body": _in_a_body,
          "nested in a While": _nested_in_a_while_block,
          "in a branch in a body": _in_a_branch_in_a_body, "after a loop": _after_a_loop,
          "after a cond": _after_a_cond}
_WITH_A_COND = {"in a branch", "in a body", "in a branch in a body", "after a cond"}


@pytest.mark.parametrize("profile", ["1.8", "2.0", "3"])
@pytest.mark.parametrize("act", ["softmax", "relu", "tanh", "matmul"])
@pytest.mark.parametrize("case, pred", [
    (case, pred) for case in sorted(_CASES) for pred in (True, False)
    if pred or case in _WITH_A_COND])
def test_in_place_loop_gradients_are_the_central_differences(paddle_version, profile, act,
                                                             case, pred):
    build = _CASES[case]
    rng = np.random.RandomState(7)
    feed = {"img": rng.randn(2, 3), "w0": rng.randn(3, 3), "w1": rng.randn(3, 3),
            "c": rng.randn(2, 3)}

    def forward(**values):
        return float(build(_Numpy(act, profile != "3"), pred, **values))

    with paddle_version(profile):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            inputs = {n: fluid.data(n, list(v.shape), "float64") for n, v in feed.items()}
            weights = [inputs["w0"], inputs["w1"]]
            for w in weights:
                w.stop_gradient = False
            loss = build(_Static(act), pred, **inputs)
            fluid.backward.append_backward(loss)
        out = fluid.Executor(fluid.CPUPlace()).run(
            main, feed=feed, fetch_list=[loss] + [w.grad_name for w in weights])
    np.testing.assert_allclose(np.asarray(out[0]).ravel()[0], forward(**feed), rtol=1e-10)
    for name, got in zip(("w0", "w1"), out[1:]):
        def f(v, name=name):
            return forward(**dict(feed, **{name: v}))
        np.testing.assert_allclose(got, central_differences(f, feed[name]), rtol=1e-5,
                                   atol=1e-9, err_msg=name)
