"""hash: X int32/int64 [..., D] -> Out int64 [..., num_hash, 1]; Out[..., j, 0] is the
XXH64 digest (seed j) of the row's D values as raw little-endian bytes, modulo mod_by.
XXH64 is written here from its public specification (github.com/Cyan4973/xxHash, doc/
xxhash_spec.md) in plain Python integers: rows are short ids, so speed is not a concern."""
import numpy as np

from .registry import OpDef, Sample, register, share_lod

_MASK = (1 << 64) - 1
_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5


def _rotl(value, bits):
    return ((value << bits) | (value >> (64 - bits))) & _MASK


def _round(acc, lane):
    return _rotl((acc + lane * _P2) & _MASK, 31) * _P1 & _MASK


def _merge(acc, lane):
    return ((acc ^ _round(0, lane)) * _P1 + _P4) & _MASK


def xxh64(data, seed=0):
    """The 64-bit XXH64 digest of the bytes `data`."""
    n, pos = len(data), 0
    word = lambda at, size: int.from_bytes(data[at:at + size], "little")
    if n >= 32:
        lanes = [(seed + _P1 + _P2) & _MASK, (seed + _P2) & _MASK, seed & _MASK,
                 (seed - _P1) & _MASK]
        while pos + 32 <= n:
            lanes = [_round(v, word(pos + 8 * i, 8)) for i, v in enumerate(lanes)]
            pos += 32
        acc = sum(_rotl(v, r) for v, r in zip(lanes, (1, 7, 12, 18))) & _MASK
        for v in lanes:
            acc = _merge(acc, v)
    else:
        acc = (seed + _P5) & _MASK
    acc = (acc + n) & _MASK
    while pos + 8 <= n:
        acc = (_rotl(acc ^ _round(0, word(pos, 8)), 27) * _P1 + _P4) & _MASK
        pos += 8
    if pos + 4 <= n:
        acc = (_rotl(acc ^ (word(pos, 4) * _P1 & _MASK), 23) * _P2 + _P3) & _MASK
        pos += 4
    for byte in data[pos:]:
        acc = _rotl(acc ^ (byte * _P5 & _MASK), 11) * _P1 & _MASK
    acc = (acc ^ (acc >> 33)) * _P2 & _MASK
    acc = (acc ^ (acc >> 29)) * _P3 & _MASK
    return acc ^ (acc >> 32)


@register
class Hash(OpDef):
    type = "hash"
    lod_outputs = {"Out": share_lod("X")}
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"num_hash": 1, "mod_by": 100000}

    def infer_shape(self, ctx):
        shape = ctx.input_shape("X")
        ctx.check_dtype("X", ("int32", "int64"))
        ctx.expect(len(shape) >= 1, "input X must be at least 1-D, got a scalar")
        ctx.expect(ctx.attr("num_hash") >= 1, "num_hash must be >= 1, got %r"
                   % ctx.attr("num_hash"))
        ctx.expect(ctx.attr("mod_by") >= 1, "mod_by must be >= 1, got %r" % ctx.attr("mod_by"))
        # Out has X's integer type, as Paddle's kernel writes it (values are < mod_by)
        ctx.set_output("Out", tuple(shape[:-1]) + (ctx.attr("num_hash"), 1),
                       ctx.input_var("X").dtype)

    @staticmethod
    def forward(x, num_hash=1, mod_by=100000):
        rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
        little = rows.astype(rows.dtype.newbyteorder("<"))
        out = np.array([[xxh64(row.tobytes(), seed) % mod_by for seed in range(num_hash)]
                        for row in little], dtype=np.int64)
        return out.astype(x.dtype).reshape(x.shape[:-1] + (num_hash, 1))

    def samples(self, rng):
        yield Sample({"X": rng.randint(0, 1000, size=(4, 1)).astype(np.int32)},
                     {"num_hash": 3, "mod_by": 97})
        yield Sample({"X": rng.randint(0, 10 ** 9, size=(3, 5)).astype(np.int64)},
                     {"num_hash": 2, "mod_by": 10 ** 6})
