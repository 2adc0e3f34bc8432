"""fastbits' operators on dask arrays: lazy results, computed block by block.

When an operand of an operator is a dask array, the operator returns a dask array whose blocks
are the eager operator applied to the operands' blocks (``dask.array.blockwise`` /
``map_blocks``).  Nothing is computed until the user asks.  The same spec checks as an eager
call run when the graph is built, on stand-ins of the dask operands that have their dtype and
shape and hold one element (:func:`_stand_in`), so a wrong type, shape, ``to`` or ``direction``
raises at once, with the eager call's error.

This module is the dask adapter of the dispatch point (:mod:`fastbits._dispatch`): the
implementations know nothing of it.  fastbits never imports dask: the dispatch point asks
:data:`ADAPTER` only once ``dask.array`` is imported.  Each task caps the threads of the
fastbits call it makes at the ``task_threads`` setting in force when the graph was built
(:func:`fastbits.set_config`): dask runs one task per core already.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Callable

import numpy as np

from . import _config, spec
from ._dispatch import Adapter
from .errors import ArgumentTypeError, ArgumentValueError

__all__ = ["ADAPTER", "bitcast", "cast", "dynamic_quantization", "elementwise", "pack", "product",
           "quantization", "unpack"]


def _is_dask(value: Any) -> bool:
    dask_array = sys.modules.get("dask.array")
    return dask_array is not None and isinstance(value, dask_array.Array)


def _task(func: Callable[..., Any], threads: int, *args: Any, **kwargs: Any) -> Any:
    """One block: ``func(*args, **kwargs)`` with this thread's fastbits calls capped at ``threads``."""
    previous = _config.set_local_threads(threads)
    try:
        return func(*args, **kwargs)
    finally:
        _config.set_local_threads(previous)


def _task_threads() -> int:
    return _config.get_config()["task_threads"]


def _stand_in(op: str, x: Any) -> np.ndarray:
    """A read-only array of the dtype and shape of dask array ``x`` that holds one element."""
    if any(math.isnan(size) for size in x.shape):
        raise ArgumentValueError(
            f"{op}: a dask array input has unknown chunk sizes (shape {x.shape}); fastbits "
            f"checks the shapes when it builds the graph: call x.compute_chunk_sizes() first"
        )
    return np.broadcast_to(np.empty((), x.dtype), x.shape)


def _refuse_out(op: str, out: Any) -> None:
    if out is not None:
        raise ArgumentTypeError(
            f"{op}: 'out' cannot be given with a dask array input: the result is a lazy dask "
            f"array whose blocks are computed where dask runs them; write it with "
            f"dask.array.store(result, out), or take result.compute()"
        )


def elementwise(func: Callable[..., Any], op: str, operands: tuple[Any, ...], out: Any,
                params: tuple[Any, ...] = (), order: Any = "K") -> Any:
    """``func(*blocks, *params)`` over the numpy-style broadcast of ``operands``, lazily.

    Parameters
    ----------
    func : callable
        The eager operator (:func:`fastbits.bitwise_and`, ...), run on each set of blocks.
    op : str
        The ONNX operator's name, for the spec checks and their messages.
    operands : tuple
        One or two operands, at least one a dask array; the others numpy arrays, array-likes
        or (one of two) a Python int, read as the eager operator reads them.
    out : None
        Refused unless None: a lazy result has no array to write into.
    params : tuple
        The arguments after the operands (BitShift's checked ``direction``).
    order : str
        The layout of each block's result (checked here, applied by ``func``).

    Returns
    -------
    dask.array.Array
        The broadcast shape, the operands' type in native byte order; its chunks are those of
        the operands, unified by dask.
    """
    import dask.array as da

    order = spec.check_order(op, order)
    _refuse_out(op, out)
    stand_ins = [_stand_in(op, v) if _is_dask(v) else v for v in operands]
    if len(operands) == 2:
        a, b, code = spec.check_operands(op, *stand_ins)
        checked = (a, b)
        ndim = len(spec.broadcast_shape(op, a.shape, b.shape))
    else:
        x, code = spec.check_operand(op, stand_ins[0])
        checked = (x,)
        ndim = x.ndim
    # The dask operands as given, the others as the checks read them (a Python int: a 0-d
    # array of the other operand's type); axes aligned at the last one, as numpy does.
    pairs = []
    for given, array in zip(operands, checked):
        pairs += [given if _is_dask(given) else array, tuple(range(ndim - array.ndim, ndim))]
    dtype = spec.numpy_dtype(code)
    return da.blockwise(
        _task, tuple(range(ndim)), func, None, _task_threads(), None, *pairs,
        *[item for param in params for item in (param, None)],
        dtype=dtype, meta=np.empty((0,) * ndim, dtype), token=op.lower(), order=order,
    )


def bitcast(func: Callable[..., Any], x: Any, to: Any, copy: bool) -> Any:
    """``func(block, to, copy=copy)`` on each block of dask array ``x``: each block a view or a
    copy as the eager call makes it; ``copy`` already checked."""
    import dask.array as da

    _, dst = spec.check_bitcast(x.dtype, to)  # the shape may be unknown: blocks keep theirs
    dtype = spec.numpy_dtype(dst)
    return da.map_blocks(_task, func, _task_threads(), x, dst, copy=copy, dtype=dtype,
                         meta=np.empty((0,) * x.ndim, dtype), token="bitcast")


def cast(func: Callable[..., Any], x: Any, to: Any, saturate: Any, round_mode: Any, out: Any, order: Any,
         op: str = spec.CAST) -> Any:
    """``func(block, to, saturate=..., round_mode=...)`` on each block of dask array ``x`` (Cast
    is elementwise: any chunks work); the attributes checked first, as the eager call does."""
    import dask.array as da

    _refuse_out(op, out)
    spec.check_order(op, order)
    saturate, round_mode = spec.check_saturate(op, saturate), spec.check_round_mode(op, round_mode)
    _, dst = spec.check_cast(op, x.dtype, to)
    dtype = spec.numpy_dtype(dst)
    target = dst if op == spec.CAST else np.empty(0, dtype)  # CastLike's eager call reads a dtype
    return da.map_blocks(_task, func, _task_threads(), x, target, saturate=saturate, round_mode=round_mode,
                         dtype=dtype, meta=np.empty((0,) * x.ndim, dtype), token=op.lower())


def _group(code: spec.DataType) -> tuple[int, int, str]:
    """The smallest whole group of packed bytes of sub-byte type ``code``: its elements, its
    bytes, and how a message says so (2 elements to a byte; 4 elements into 3 bytes)."""
    bits = spec.bit_width(code)
    per = 8 // math.gcd(8, bits)  # elements that fill whole bytes
    nbytes = per * bits // 8
    said = f"{per} elements to a byte" if nbytes == 1 else f"{per} elements into {nbytes} bytes"
    return per, nbytes, f"{spec.type_string(code)} packs {said}"


def pack(func: Callable[..., Any], x: Any) -> Any:
    """``func(block)`` on each block of dask array ``x``: the packed bytes, one chunk per block.

    pack reads the elements in C order, so a block's elements must be one run of that order
    (only the first axis split into chunks) that starts on a whole group of packed bytes (every
    chunk before the last non-empty one holds a multiple of the elements of a group: 2 nibbles,
    4 crumbs, 4 six-bit elements).  Otherwise the error says how to rechunk.
    """
    import dask.array as da

    _, code = spec.check_pack(_stand_in(spec.PACK, x))
    per, _, packs = _group(code)
    if x.ndim == 0:
        x = x.reshape(1)
    split = [axis for axis in range(1, x.ndim) if x.numblocks[axis] > 1]
    if split:
        raise ArgumentValueError(
            f"{spec.PACK}: input 'x' is a dask array split into chunks along axis {split[0]}; "
            f"pack reads the elements in C order, so only the first axis may be split: rechunk "
            f"first, x.rechunk({{{', '.join(f'{axis}: -1' for axis in split)}}})"
        )
    row = 1
    for size in x.shape[1:]:
        row *= size
    counts = [chunk * row for chunk in x.chunks[0]]
    last = max((i for i, count in enumerate(counts) if count), default=0)
    if any(count % per for count in counts[:last]):
        step = per // math.gcd(per, row)  # the rows that fill whole groups
        example = max(step, x.chunks[0][0] // step * step)
        raise ArgumentValueError(
            f"{spec.PACK}: input 'x' is a dask array whose chunks hold {tuple(counts)} elements; "
            f"{packs}, so every chunk but the last must hold a multiple of {per}: rechunk its "
            f"first axis into multiples of {step} first, for example x.rechunk({{0: {example}}})"
        )
    sizes = tuple(spec.packed_size(code, count) for count in counts)
    return da.map_blocks(_task, func, _task_threads(), x, chunks=(sizes,),
                         drop_axis=list(range(1, x.ndim)), dtype=np.uint8,
                         meta=np.empty((0,), np.uint8), token="pack")


def _held(code: spec.DataType, nbytes: int) -> int:
    """The elements ``nbytes`` packed bytes hold whole: their padding bits make none."""
    return nbytes * 8 // spec.bit_width(code)


def _unpack_block(func: Callable[..., Any], block: np.ndarray, code: spec.DataType) -> np.ndarray:
    """Every element a block of packed bytes holds, the padding of the last byte included."""
    return func(block, code, (_held(code, block.shape[0]),))


def unpack(func: Callable[..., Any], data: Any, to: Any, shape: Any) -> Any:
    """The elements of dask array ``data`` (packed bytes), block by block, then cut to ``shape``.

    Every block of whole groups of packed bytes unpacks by itself: any chunks work for the 4-
    and 2-bit types (a group is a byte); for the 6-bit ones every chunk but the last non-empty
    one must hold a multiple of 3 bytes (otherwise the error says how to rechunk).  The last
    block's padding is cut off and the result reshaped (lazily, by dask).
    """
    import dask.array as da

    _, code, dims = spec.check_unpack(_stand_in(spec.UNPACK, data), to, shape)
    _, nbytes, packs = _group(code)
    sizes = data.chunks[0]
    last = max((i for i, size in enumerate(sizes) if size), default=0)
    if any(size % nbytes for size in sizes[:last]):
        example = max(nbytes, sizes[0] // nbytes * nbytes)
        raise ArgumentValueError(
            f"{spec.UNPACK}: input 'data' is a dask array whose chunks hold {tuple(sizes)} bytes; "
            f"{packs}, so every chunk but the last must hold a multiple of {nbytes}: rechunk it "
            f"into multiples of {nbytes} first, for example data.rechunk({{0: {example}}})"
        )
    count = 1
    for size in dims:
        count *= size
    dtype = spec.numpy_dtype(code)
    flat = da.map_blocks(_task, _unpack_block, _task_threads(), func, data, code,
                         chunks=(tuple(_held(code, size) for size in sizes),), dtype=dtype,
                         meta=np.empty((0,), dtype), token="unpack")
    return flat[:count].reshape(dims)


def _quant_block(block: np.ndarray, func: Callable[..., Any], threads: int, scale: np.ndarray,
                 zero: np.ndarray | None, c: spec.Quantization, kwargs: dict[str, Any],
                 block_info: Any = None) -> np.ndarray:
    """One block of QuantizeLinear or DequantizeLinear: the eager call on the block with the
    scales (and zero points) of the elements it holds."""
    if c.kind != "tensor":
        where = [slice(start, stop) for start, stop in block_info[0]["array-location"]]
        start, stop = where[c.axis].start, where[c.axis].stop
        if c.kind == "axis":
            where = [slice(start, stop)]
        else:  # whole blocks: the chunks along the axis start on a block (checked)
            where[c.axis] = slice(start // c.block, -(-stop // c.block))
        scale = scale[tuple(where)]
        zero = None if zero is None else zero[tuple(where)]
    return _task(func, threads, block, scale, zero, **kwargs)


def quantization(func: Callable[..., Any], name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """QuantizeLinear or DequantizeLinear with dask arrays: a lazy result over the chunks of
    ``x``, each block with the scales of its elements.  The scale and the zero point (the scale's
    size, a fraction of the input's) are read when the graph is built; the eager call's checks
    run then too.  Blocked scales need the chunks of ``x`` along the axis to start on a block
    (every chunk but the last a multiple of ``block_size``); otherwise the error says how to
    rechunk."""
    import dask.array as da

    x, scale, zero = (*args, None)[:3]
    scale, zero = _small(scale), _small(zero)
    if not _is_dask(x):
        return func(x, scale, zero, **kwargs)
    if name == "quantize_linear":
        op = spec.QUANTIZE
        options = {key: kwargs.get(key, default) for key, default in spec.SIGNATURES[name][1].items()}
        _, scale, zero, c = spec.check_quantize(_stand_in(op, x), scale, zero, **options)
    else:
        op = spec.DEQUANTIZE
        options = {key: kwargs.get(key, default) for key, default in spec.SIGNATURES[name][1].items()}
        _, scale, zero, c = spec.check_dequantize(_stand_in(op, x), scale, zero, **options)
    if c.kind == "blocked":
        sizes = x.chunks[c.axis]
        if any(size % c.block for size in sizes[:-1]):
            raise ArgumentValueError(
                f"{op}: input 'x' is a dask array whose chunks along axis {c.axis} hold {sizes} elements; "
                f"blocks of {c.block} must not straddle two chunks, so every chunk but the last must hold a "
                f"multiple of {c.block}: rechunk first, for example x.rechunk({{{c.axis}: "
                f"{max(c.block, sizes[0] // c.block * c.block)}}})")
    dtype = spec.numpy_dtype(c.y)
    return da.map_blocks(_quant_block, x, func, _task_threads(), scale, zero, c, options, dtype=dtype,
                         meta=np.empty((0,) * x.ndim, dtype), token=op.lower())


def _small(value: Any) -> Any:
    """A scale or zero point as an array: a dask one computed when the graph is built (it is a
    fraction of the input's size)."""
    return None if value is None else np.asarray(value.compute() if _is_dask(value) else value)


def dynamic_quantization(func: Callable[..., Any], x: Any) -> Any:
    """DynamicQuantizeLinear of dask array ``x``: lazy y, scale and zero point.  The scale and
    the zero point come from x's min and max (dask's reductions) by the text's formulas
    (:func:`fastbits.spec.range_parameters`), and each block of y is the QuantizeLinear
    of ``func``'s own path by them: what the eager call computes, bit for bit."""
    import dask
    import dask.array as da

    op = spec.DYNAMIC_QUANTIZE
    spec.check_dynamic_quantize(_stand_in(op, x))
    if x.size == 0:  # no min or max to reduce: the eager call's result
        return tuple(da.from_array(part) for part in func(np.empty(x.shape, np.float32)))
    quantize = sys.modules[func.__module__].quantize_linear
    params = dask.delayed(spec.range_parameters, nout=2, pure=True)(x.min(), x.max())
    scale = da.from_delayed(params[0], (), np.float32)
    zero = da.from_delayed(params[1], (), np.uint8)
    index = tuple(range(x.ndim))
    y = da.blockwise(_task, index, quantize, None, _task_threads(), None, x, index, scale, (), zero, (),
                     dtype=np.uint8, meta=np.empty((0,) * x.ndim, np.uint8), token=op.lower())
    return y, scale, zero


def _cut(value: Any, where: tuple[np.ndarray, ...]) -> Any:
    """A scale or zero point shaped to broadcast against the product (aligned to its last axes),
    cut to the block whose positions along each axis of the product are ``where``."""
    if value is None or value.ndim == 0:
        return value
    lead = len(where) - value.ndim
    for d, size in enumerate(value.shape):
        if size != 1:
            value = np.take(value, where[lead + d], axis=d)
    return value


def _product_block(a: np.ndarray, b: np.ndarray, *where: np.ndarray, eager: Callable[..., Any], threads: int,
                   args: tuple[Any, ...], roles: str) -> np.ndarray:
    """One block of a product: ``eager`` on the block's rows of a and columns of b (every column
    of a, every row of b), with the other arguments (scales, zero points) cut to the block and
    given the rank of the operand they belong to (``roles``: "a" and "b" the operands, "A" and
    "B" their scales and zero points, "y" the result's)."""
    call = []
    for role, value in zip(roles, args):
        if role in "ab":
            value = a if role == "a" else b
        elif role in "AB" and value is not None and value.ndim:
            value = _cut(value, where)
            value = value.reshape((1,) * ((a if role == "A" else b).ndim - value.ndim) + value.shape)
        call.append(value)
    return _task(eager, threads, *call)


def product(func: Callable[..., Any], op: str, args: tuple[Any, ...], roles: str,
            spread: Callable[..., list[Any]]) -> Any:
    """MatMulInteger or QLinearMatMul with dask arrays: each block of the result is the eager call
    on the rows of a and the columns of b it needs (every chunk of the contracted axis at once).
    The scales and zero points (a fraction of the operands' size) are read when the graph is
    built, with the eager call's checks (``spread``, which shapes them to broadcast against the
    product), and each block gets the ones of its rows and columns."""
    import dask.array as da

    values = [v if role in "ab" else _small(v) for role, v in zip(roles, args)]
    a, b = args[roles.index("a")], args[roles.index("b")]
    if not (_is_dask(a) or _is_dask(b)):  # a dask scale or zero point alone: the eager call on its values
        return func(*values)
    small = spread(*[_stand_in(op, v) if _is_dask(v) else v for v in values])
    a2, b2 = da.asarray(a), da.asarray(b)
    a2 = a2[None, :] if a2.ndim == 1 else a2  # 2-D operands: the product's axes i and j
    b2 = b2[:, None] if b2.ndim == 1 else b2
    batch = len(np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]))
    out = tuple(f"batch{d}" for d in range(batch)) + ("i", "j")
    a_index = out[batch - (a2.ndim - 2):batch] + ("i", "k")
    b_index = out[batch - (b2.ndim - 2):batch] + ("k", "j")
    shape = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]) + (a2.shape[-2], b2.shape[-1])
    positions: list[Any] = []
    for d, letter in enumerate(out):  # each axis's positions, chunked as the product is
        chunks = a2.chunks[-2] if letter == "i" else b2.chunks[-1] if letter == "j" else next(
            x.chunks[x.ndim - len(out) + d] for x in (a2, b2)
            if x.ndim - len(out) + d >= 0 and x.shape[x.ndim - len(out) + d] == shape[d])
        positions += [da.arange(shape[d], chunks=(chunks,)), (letter,)]
    dtype = np.dtype(np.int32) if op == spec.MATMUL_INTEGER else np.asarray(values[-1]).dtype
    result = da.blockwise(_product_block, out, a2, a_index, b2, b_index, *positions, concatenate=True, dtype=dtype,
                          meta=np.empty((0,) * len(out), dtype), token=op.lower(), eager=func,
                          threads=_task_threads(), args=tuple(small), roles=roles)
    if np.ndim(a) == 1:
        result = result[..., 0, :]
    if np.ndim(b) == 1:
        result = result[..., 0]
    return result


def _matmul_integer_spread(*values: Any) -> list[Any]:
    """MatMulInteger's zero points as its check shapes them (None at the operands' places)."""
    _, _, za, zb, _ = spec.check_matmul_integer(*values)
    return [None, None, za, zb]


def _qlinear_spread(*values: Any) -> list[Any]:
    """QLinearMatMul's scales and zero points as its check shapes them."""
    c = spec.check_qlinear_matmul(*values)
    return [None, c.a_scale, c.a_zero, None, c.b_scale, c.b_zero, c.y_scale, c.y_zero]


#: The public operators' ONNX names, for the elementwise ones' checks and messages.
_ELEMENTWISE = {"bitwise_and": spec.BITWISE_AND, "bitwise_or": spec.BITWISE_OR, "bitwise_xor": spec.BITWISE_XOR,
                "bitwise_not": spec.BITWISE_NOT, "bitshift": spec.BITSHIFT}


def call(name: str, func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Public operator ``name`` on ``args`` (one a dask array), as the dispatch point hands it
    over: a lazy result whose blocks ``func``, the eager operator, computes."""
    if name == "bitshift":
        direction = spec.check_direction(args[2])
        return elementwise(func, spec.BITSHIFT, args[:2], kwargs.get("out"), (direction,), kwargs.get("order", "K"))
    if name in _ELEMENTWISE:
        return elementwise(func, _ELEMENTWISE[name], args, kwargs.get("out"), order=kwargs.get("order", "K"))
    if name == "bitcast":
        return bitcast(func, *args, spec.check_copy(spec.BITCAST, kwargs.get("copy", False)))
    if name in ("cast", "cast_like"):
        x, to = args
        op = spec.CAST
        if name == "cast_like":  # the target's dtype: a dask array's, or any array's
            op, to = spec.CAST_LIKE, spec.as_array(spec.CAST_LIKE, to, "target_type", spec.CAST_T).dtype
        return cast(func, x, to, kwargs.get("saturate", True), kwargs.get("round_mode", "up"), kwargs.get("out"),
                    kwargs.get("order", "K"), op)
    if name in ("quantize_linear", "dequantize_linear"):
        return quantization(func, name, args, kwargs)
    if name == "dynamic_quantize_linear":
        return dynamic_quantization(func, *args)
    if name == "matmul_integer":
        return product(func, spec.MATMUL_INTEGER, (*args, None, None)[:4], "abAB", _matmul_integer_spread)
    if name == "qlinear_matmul":
        return product(func, spec.QLINEAR_MATMUL, args, "aAAbBByy", _qlinear_spread)
    if name == "pack":
        return pack(func, *args)
    return unpack(func, *args)


#: dask's arrays for the dispatch point (:func:`fastbits._dispatch.register`).
ADAPTER = Adapter("dask.array", "Array", call)
