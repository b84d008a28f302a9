"""Compare an implementation's arrays with the golden ones: shape, dtype, then values
within the case's (rtol, atol); report the worst absolute and relative error. Where the
case lists other arrays for the implementation's version profile, those are expected."""
import numpy as np

from .. import versions

__all__ = ["compare"]


def _fetched_flat(got, want, profile):
    """Paddle 2.0's fetch gives a tensor without elements as dims [0] (switch
    fetch_empty_flat): an implementation of that profile matches any empty golden so."""
    return want.size == 0 and got.shape == (0,) and profile is not None and \
        versions.SWITCHES["fetch_empty_flat"][profile]


def compare(case, expected, actual, profile=None):
    """{"status": "pass"|"fail", "max_abs", "max_rel", "message"} over the case's outputs
    and gradients (every golden array except its inputs and cotangents), as Paddle
    `profile` ('1.8', '2.0', '3'; None: the goldens' own) gives them, and the outputs'
    LoD (recursive sequence lengths, the case's "lods" "out", or its "profile_lods" for
    `profile`) where the run reports it."""
    rtol, atol = case["rtol"], case["atol"]
    prefix = case["key"] + "/"
    own = set(case.get("profiles", {}).get(profile, ()))
    max_abs = max_rel = 0.0
    problems = []
    for key in sorted(k for k in expected if k.startswith(prefix)):
        if key.split("/")[1] in ("in", "cot"):
            continue
        rest = key[len(prefix):]
        want = expected["%s@%s/%s" % (case["key"], profile, rest)] if rest in own else \
            expected[key]
        if key not in actual:
            problems.append("%s: not produced" % key)
            continue
        got = np.asarray(actual[key])
        if got.shape != want.shape and not _fetched_flat(got, want, profile):
            problems.append("%s: shape %s, expected %s" % (key, list(got.shape),
                                                           list(want.shape)))
            continue
        if got.dtype != want.dtype:
            problems.append("%s: dtype %s, expected %s" % (key, got.dtype, want.dtype))
            continue
        if want.size == 0:
            continue
        g, w = got.astype(np.float64), want.astype(np.float64)
        # equal values (infinities included) and NaN where NaN is expected count as exact
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        with np.errstate(invalid="ignore"):
            err = np.where(same, 0.0, np.abs(g - w))
        err = np.where(np.isnan(err), np.inf, err)
        abs_err = float(np.max(err))
        nonzero = (w != 0) & ~same        # an exact value (NaN included) has no error
        rel_err = float(np.max(err[nonzero] / np.abs(w[nonzero]))) if nonzero.any() else 0.0
        max_abs, max_rel = max(max_abs, abs_err), max(max_rel, rel_err)
        with np.errstate(invalid="ignore"):
            within = same | (err <= atol + rtol * np.abs(w))
        if not within.all():
            problems.append("%s: max abs err %.3g, max rel err %.3g (rtol %g, atol %g)"
                            % (key, abs_err, rel_err, rtol, atol))
    out_lods = case.get("profile_lods", {}).get(profile) or case.get("lods", {}).get("out", {})
    for slot, lods in out_lods.items():
        for j, want in enumerate(lods):
            key = "%s/lod/%s/%d" % (case["key"], slot, j)
            got = actual.get(key)
            if got is not None and got != want:
                problems.append("%s: LoD %s, expected %s" % (key, got, want))
    return {"status": "fail" if problems else "pass", "max_abs": max_abs, "max_rel": max_rel,
            "message": "; ".join(problems)}
