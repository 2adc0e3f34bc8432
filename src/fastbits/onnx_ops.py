"""fastbits' kernels as operators of onnx's reference evaluator.

>>> import onnx.reference, fastbits.onnx_ops
>>> sess = onnx.reference.ReferenceEvaluator(model, new_ops=fastbits.onnx_ops.OPS)  # doctest: +SKIP

The evaluator then runs every ``BitwiseAnd``, ``BitwiseOr``, ``BitwiseXor``,
``BitwiseNot``, ``BitShift``, ``BitCast``, ``Cast``, ``CastLike``,
``QuantizeLinear``, ``DequantizeLinear``, ``DynamicQuantizeLinear``,
``MatMulInteger`` and ``QLinearMatMul`` node of the default domain with
fastbits' kernels, and every other node with its own
(a Cast from or to string goes to onnx's own Cast: fastbits leaves strings to
onnx). It matches ``new_ops`` to nodes by ``(op_domain, class name)`` only,
whatever the model's opset, so the classes check the opset themselves: a node
is refused, with an :class:`~fastbits.OpsetError` (a ``ValueError``), when the operator does not exist in the
model's opset (BitCast before 26, the Bitwise operators before 18, BitShift
before 11, Cast before 6, CastLike before 15, QuantizeLinear,
DequantizeLinear, MatMulInteger and QLinearMatMul before 10, DynamicQuantizeLinear before 11) or when the installed onnx knows
a later version of it than the ones fastbits implements. In a model whose
opset is 11 to 27, BitShift is BitShift-11, which refuses signed types
(:class:`~fastbits.TypeConstraintError`); Cast and CastLike refuse a type
their version in the model does not take (float 8 before opset 19, int4 before
21, float4e2m1 before 23, float8e8m0 before 24, int2 before 25, the float 6
types before 28); QuantizeLinear and DequantizeLinear refuse what their version
does not take likewise (a per-axis scale before 13, blocks before 21), and
QLinearMatMul-10 the float 8 types and scales other than float32.

Errors are fastbits' own (:mod:`fastbits.errors`), of the class the function
raised: :class:`~onnx.reference.op_run.OpRun` would wrap every ``TypeError``
into a generic one, so the classes hand back fastbits' error instead, its
message followed by a line that names the node (by its name when it has one)
and the graph's tensors behind the inputs the message names, the node's
attributes it names (``the node's attribute 'to' is 99``), or the graph's tensor
of the output when the result cannot be allocated::

    BitwiseAnd: input 'A' has dtype float32 (tensor(float)), which is not in T; ...
      in node 'low_nibble' (BitwiseAnd): input 'A' is the graph's tensor 'weights'

BitCast returns a new array, as an ONNX operator does (onnx's Identity
copies too): the output never shares memory with the input.

The kernels are looked up in :mod:`fastbits._ops` at each call, so they are
whichever path ``fastbits.BACKEND`` names.

onnx 1.21's evaluator appends its optimized operators to the ``new_ops``
list it is given (1.23 does not): pass ``list(OPS)`` to keep :data:`OPS`
as it is.

:class:`ReferenceEvaluator` is onnx's evaluator with :data:`OPS` by default and the model's
initializers read by :func:`fastbits.onnx_tensors.to_array`.

Importing this module needs onnx >= 1.21 (the first with BitCast-26):
``pip install 'fastbits[onnx]'``.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, NamedTuple

_EXTRA = "pip install 'fastbits[onnx]'"

try:
    import onnx
    import onnx.defs
    import onnx.helper
    from onnx.reference.op_run import OpRun
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    raise ImportError(
        f"fastbits.onnx_ops needs the onnx package, which is not installed ({exc}); "
        f"install it with: {_EXTRA}"
    ) from exc

import numpy as np  # noqa: E402
import onnx.external_data_helper  # noqa: E402
import onnx.numpy_helper  # noqa: E402
import onnx.reference  # noqa: E402
from onnx.reference.ops.op_cast import cast_to as _onnx_cast_to  # noqa: E402

from . import _ops, onnx_tensors, spec  # noqa: E402
from .errors import ArgumentTypeError, ArgumentValueError, FastbitsError, OpsetError  # noqa: E402

__all__ = ["OPS", "ReferenceEvaluator", "BitCast", "BitShift", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "Cast",
           "CastLike", "DequantizeLinear", "DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul", "QuantizeLinear"]


def _schema(op: str, since: int | None = None) -> Any:
    since = spec.SINCE_VERSION[op] if since is None else since
    try:
        schema = onnx.defs.get_schema(op, since, "")
    except onnx.defs.SchemaError:
        schema = None
    if schema is None or schema.since_version != since:
        raise ImportError(
            f"fastbits.onnx_ops needs an onnx that defines {op}-{since}; onnx "
            f"{onnx.__version__} does not (fastbits needs onnx>=1.21, the first with "
            f"BitCast-26): {_EXTRA}"
        )
    return schema


def _attribute_value(attribute: Any) -> Any:
    """A node attribute's value as Python reads it: a string attribute as str, not bytes."""
    value = onnx.helper.get_attribute_value(attribute)
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


class _Attributes(NamedTuple):
    """The attributes of one version of an operator, from onnx's schema."""

    names: frozenset[str]
    #: The optional ones, with their default values (None where the schema gives none).
    defaults: dict[str, Any]
    required: frozenset[str]


@functools.cache
def _attributes(op: str, domain: str, version: int) -> _Attributes:
    """The attributes of ``op``-``version``: read from onnx's schema once per version, not once
    per node."""
    attributes = onnx.defs.get_schema(op, version, domain).attributes
    undefined = onnx.AttributeProto.UNDEFINED
    defaults = {name: None if a.default_value.type == undefined else _attribute_value(a.default_value)
                for name, a in attributes.items() if not a.required}
    return _Attributes(frozenset(attributes), defaults, frozenset(attributes.keys() - defaults.keys()))


@functools.cache
def _active_version(op: str, domain: str, opset: int) -> int | None:
    """The version of ``op`` that ``opset`` of ``domain`` has (None before its first): looked up
    once per operator and opset, not once per node."""
    try:
        return int(onnx.defs.get_schema(op, opset, domain).since_version)
    except onnx.defs.SchemaError:
        return None


class _FastbitsOp(OpRun):
    """What the operators share: the opset check and unwrapped errors."""

    op_domain = ""
    #: The versions of the operator fastbits implements (the schema's, unless a class says more).
    versions: tuple[int, ...] = ()
    #: The operator's name and the versions fastbits implements (set for each class).
    _op: str
    _implemented: tuple[int, ...]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._op = cls.op_schema.name
        cls._implemented = cls.versions or (cls.op_schema.since_version,)

    def __init__(self, onnx_node: onnx.NodeProto, run_params: dict[str, Any], schema: Any = None) -> None:
        opset = run_params.get("opsets", {}).get(self.op_domain)
        #: The operator's version in this model (the latest when the model says nothing).
        self.version = self._check_opset(int(opset)) if opset is not None else self.op_schema.since_version
        self._attributes = _attributes(self._op, self.op_domain, self.version)
        #: The dtypes, shapes and attributes of the last call whose version checks passed.
        self._checked: tuple[Any, ...] | None = None
        self._check_attributes(onnx_node)
        super().__init__(onnx_node, run_params, schema)

    def _unchecked(self, args: tuple[Any, ...], options: dict[str, Any]) -> tuple[Any, ...] | None:
        """The key of a call whose version checks are to run, or None where the node's last call
        whose checks passed had the same one: its inputs' dtypes and shapes and its attributes,
        all the checks read.  So a model's node, given the same layouts run after run, runs them
        once (the function still runs its own).  The caller records the key once they pass
        (``self._checked``); an input that is no ndarray gives a key that matches nothing."""
        key = (tuple(None if v is None else (v.dtype, v.shape) if type(v) is np.ndarray else object()
                     for v in args), tuple(options.items()))
        return None if key == self._checked else key

    def _check_attributes(self, node: onnx.NodeProto) -> None:
        """Refuse an attribute the node's version of the operator does not have (Cast-13's
        ``saturate``, QuantizeLinear-19's ``block_size``), as onnx's checker does: a later
        version's meaning would otherwise be given to a model that cannot mean it."""
        op = self._op
        names = self._attributes.names
        for attribute in node.attribute:
            if attribute.name in names:
                continue
            since = [v for v in self._implemented if attribute.name in _attributes(op, self.op_domain, v).names]
            came = f"it came with {op}-{min(since)}" if since else f"no version of {op} has it"
            which = f"node {node.name!r}" if node.name else "a node with no name"
            raise OpsetError(f"{op}: {which} has attribute '{attribute.name}', which {op}-{self.version} (the "
                             f"model's version) does not have; {came}")

    def _load_attributes(self) -> None:
        """OpRun's, with the defaults of the node's version read once per version: OpRun parses
        every default of the schema again for each node, which is most of a node's set-up.  The
        operators' attributes are integers and strings, read as OpRun reads them; a node with an
        attribute linked to a function's, or without a required one, goes to OpRun's own."""
        given, attributes = self.onnx_node.attribute, self._attributes
        names = {a.name for a in given} if given else set()
        if not attributes.required <= names or any(a.ref_attr_name for a in given):
            super()._load_attributes()
            return
        self.has_linked_attribute = False
        for name, value in attributes.defaults.items():
            setattr(self, name, value)
        for attribute in given:
            setattr(self, attribute.name, _attribute_value(attribute))
        self.attributes_names_ = names | attributes.defaults.keys()

    @classmethod
    def _check_opset(cls, opset: int) -> int:
        op, versions = cls._op, cls._implemented
        active = _active_version(op, cls.op_domain, opset)
        if active in versions:
            return active
        if active is None:
            reason = f"{op} does not exist before opset {min(versions)}"
        else:
            reason = f"that opset has {op}-{active}, which fastbits does not implement"
        implemented = " and ".join(f"{op}-{v}" for v in versions)
        raise OpsetError(
            f"{op}: the model imports opset {opset} of the default domain, but "
            f"{reason}; fastbits implements {implemented} (opsets {min(versions)} and later, "
            f"up to the next version of {op})"
        )

    def run(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().run(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            # OpRun.run turns every TypeError raised by _run into a generic "Issues with types
            # ...": give the caller fastbits' error back, of its own class, saying which node
            # of the graph raised it.
            error = exc.__cause__ if isinstance(exc.__cause__, FastbitsError) else exc
            if not isinstance(error, FastbitsError):
                raise
            located = type(error)(f"{error}\n{self._where(str(error))}")
            raise located.with_traceback(error.__traceback__) from None

    def _where(self, message: str) -> str:
        """The node (by name when it has one) and what of it ``message`` is about: the graph's
        tensors behind the inputs it names, the node's attributes it names, the graph's tensor
        of the output when it is about the result; behind every input when it names none."""
        node = self.onnx_node
        inputs = list(zip((p.name for p in self.op_schema.inputs), node.input))
        parts = [f"input '{formal}' is the graph's tensor {tensor!r}"
                 for formal, tensor in inputs if f"'{formal}'" in message]
        # An attribute is named as "attribute 'to'": its value is the node's, not a tensor's.
        parts += [f"the node's attribute '{a.name}' is {_attribute_value(a)!r}"
                  for a in node.attribute if f"attribute '{a.name}'" in message]
        # "the result" (of shape ..., which cannot be allocated) is the node's output.
        if "the result of shape" in message:
            outputs = zip((p.name for p in self.op_schema.outputs), node.output)
            parts += [f"output '{formal}' is the graph's tensor {tensor!r}" for formal, tensor in outputs]
        if not parts:
            parts = [f"input '{formal}' is the graph's tensor {tensor!r}" for formal, tensor in inputs]
        which = f"node {node.name!r}" if node.name else "a node with no name"
        return f"  in {which} ({node.op_type}): {'; '.join(parts)}"


class BitwiseAnd(_FastbitsOp):
    """ONNX BitwiseAnd-18 with :func:`fastbits.bitwise_and`.

    Both inputs must have the same type among the eight integer types; bool
    is refused (onnx's own evaluator computes it), either byte order is read
    by value, and the output is a new array in native byte order.
    """

    op_schema = _schema(spec.BITWISE_AND)

    def _run(self, a: Any, b: Any) -> tuple[Any]:  # type: ignore[override]
        return (_ops.bitwise_and(a, b),)


class BitwiseOr(_FastbitsOp):
    """ONNX BitwiseOr-18 with :func:`fastbits.bitwise_or` (as :class:`BitwiseAnd`)."""

    op_schema = _schema(spec.BITWISE_OR)

    def _run(self, a: Any, b: Any) -> tuple[Any]:  # type: ignore[override]
        return (_ops.bitwise_or(a, b),)


class BitwiseXor(_FastbitsOp):
    """ONNX BitwiseXor-18 with :func:`fastbits.bitwise_xor` (as :class:`BitwiseAnd`)."""

    op_schema = _schema(spec.BITWISE_XOR)

    def _run(self, a: Any, b: Any) -> tuple[Any]:  # type: ignore[override]
        return (_ops.bitwise_xor(a, b),)


class BitwiseNot(_FastbitsOp):
    """ONNX BitwiseNot-18 with :func:`fastbits.bitwise_not`."""

    op_schema = _schema(spec.BITWISE_NOT)

    def _run(self, x: Any) -> tuple[Any]:  # type: ignore[override]
        return (_ops.bitwise_not(x),)


def _bitshift_schema() -> Any:
    """BitShift-28 where the installed onnx has it (1.23 and later), else BitShift-11."""
    try:
        return _schema(spec.BITSHIFT)
    except ImportError:
        return _schema(spec.BITSHIFT, 11)


class BitShift(_FastbitsOp):
    """ONNX BitShift-28 (and BitShift-11 in models of opsets 11 to 27) with :func:`fastbits.bitshift`.

    ``direction`` is the node's attribute.  BitShift-28 takes the eight integer types, shifts
    a signed type right arithmetically and defines out-of-range amounts (0, or -1 for a right
    shift of a negative value); BitShift-11 takes the unsigned types only.
    """

    op_schema = _bitshift_schema()
    versions = (11, 28) if op_schema.since_version == 28 else (11,)

    def _run(self, x: Any, y: Any, direction: Any = None) -> tuple[Any]:  # type: ignore[override]
        result = _ops.bitshift(x, y, direction)
        spec.check_bitshift_version(self.version, spec.datatype_of(result.dtype))
        return (result,)


class BitCast(_FastbitsOp):
    """ONNX BitCast-26 with :func:`fastbits.bitcast`.

    ``to`` is the node's attribute, an ONNX data type code.  The ONNX bit
    widths must match (int4 -> uint8 is refused with
    :class:`~fastbits.BitWidthError`), strings are refused, big-endian input
    is read as the value it holds, and an unknown code raises
    :class:`~fastbits.UnknownDataTypeError`.
    """

    op_schema = _schema(spec.BITCAST)

    def _run(self, x: Any, to: Any = None) -> tuple[Any]:  # type: ignore[override]
        return (_ops.bitcast(x, to, copy=True),)


def _latest_schema(op: str, implemented: tuple[int, ...]) -> Any:
    """The latest version of ``op`` in the installed onnx, among the ones fastbits implements."""
    schema = onnx.defs.get_schema(op, max(implemented), "")
    if schema.since_version not in implemented:
        raise ImportError(f"fastbits.onnx_ops: onnx {onnx.__version__} has {op}-{schema.since_version}, "
                          f"which fastbits does not implement: {_EXTRA}")
    return schema


#: The versions of Cast and CastLike (their since-versions in onnx 1.23) fastbits implements.
_CAST_VERSIONS = (6, 9, 13, 19, 21, 23, 24, 25, 28)
_CAST_LIKE_VERSIONS = (15, 19, 21, 23, 24, 25)
_CAST_SCHEMA = _latest_schema(spec.CAST, _CAST_VERSIONS)
_CAST_LIKE_SCHEMA = _latest_schema(spec.CAST_LIKE, _CAST_LIKE_VERSIONS)
_ONNX_CAST_TAKES_ROUND_MODE = "round_mode" in inspect.signature(_onnx_cast_to).parameters


def _cast(node: _FastbitsOp, x: Any, to: Any, like: Any, saturate: Any, round_mode: Any) -> Any:
    """Cast (``like`` None) or CastLike of one node: fastbits' for every type but string,
    onnx's own Cast where the input or the target is a string."""
    op = node.op_schema.name
    saturate = spec.check_saturate(op, 1 if saturate is None else saturate)  # ONNX's 1 and 0 as bools
    round_mode = "up" if round_mode is None else round_mode
    x = spec.as_array(op, x, "input", spec.CAST_T)
    if like is not None:
        like = spec.as_array(op, like, "target_type", spec.CAST_T)
        to = like.dtype
    if x.dtype.kind in "OSU" or (like is not None and like.dtype.kind in "OSU") or to == spec.DataType.STRING:
        code = int(spec.resolve_to(to, op, spec.CAST_T | {spec.DataType.STRING}))
        args = (round_mode,) if _ONNX_CAST_TAKES_ROUND_MODE else ()
        return _onnx_cast_to(x, code, bool(saturate), *args)
    src, dst = spec.check_cast(op, x.dtype, to)
    spec.check_cast_version(op, node.version, src, dst)
    if like is not None:
        return _ops.cast_like(x, like, saturate=saturate, round_mode=round_mode)
    return _ops.cast(x, to, saturate=saturate, round_mode=round_mode)


class Cast(_FastbitsOp):
    """ONNX Cast (Cast-6 to Cast-28) with :func:`fastbits.cast`.

    ``to``, ``saturate`` and ``round_mode`` are the node's attributes.  A type the model's Cast
    version does not take is refused (:class:`~fastbits.TypeConstraintError`); a string input
    or target runs onnx's own Cast.
    """

    op_schema = _CAST_SCHEMA
    versions = tuple(v for v in _CAST_VERSIONS if v <= _CAST_SCHEMA.since_version)

    def _run(self, x: Any, saturate: Any = None, to: Any = None, round_mode: Any = None) -> tuple[Any]:  # type: ignore[override]
        return (_cast(self, x, to, None, saturate, round_mode),)


class CastLike(_FastbitsOp):
    """ONNX CastLike (CastLike-15 to CastLike-25) with :func:`fastbits.cast_like` (as :class:`Cast`)."""

    op_schema = _CAST_LIKE_SCHEMA
    versions = tuple(v for v in _CAST_LIKE_VERSIONS if v <= _CAST_LIKE_SCHEMA.since_version)

    def _run(self, x: Any, target_type: Any, saturate: Any = None, round_mode: Any = None) -> tuple[Any]:  # type: ignore[override]
        return (_cast(self, x, None, target_type, saturate, round_mode),)


#: The versions of QuantizeLinear and DequantizeLinear (their since-versions in onnx 1.23)
#: fastbits implements.
_QUANT_VERSIONS = (10, 13, 19, 21, 23, 24, 25, 28)
_QUANTIZE_SCHEMA = _latest_schema(spec.QUANTIZE, _QUANT_VERSIONS)
_DEQUANTIZE_SCHEMA = _latest_schema(spec.DEQUANTIZE, _QUANT_VERSIONS)


def _quant_check(node: _FastbitsOp, x: Any, scale: Any, y: Any, kind: str) -> None:
    """What the node's version of QuantizeLinear or DequantizeLinear does not take: a type, a
    scale of more than one value before version 13.  (An attribute of a later version, blocks
    before 21 among them, is refused when the node is built.)"""
    op = node.op_schema.name
    spec.check_quantize_version(op, node.version, spec.datatype_of(x.dtype), spec.datatype_of(scale.dtype), y)
    if node.version < 13 and kind != "tensor":
        raise ArgumentValueError(f"{op}: {op}-10 takes one scale; input '{node.op_schema.inputs[1].name}' "
                                      f"has shape {scale.shape}")


def _type_attribute(value: Any) -> Any:
    return None if value in (None, 0) else value


class QuantizeLinear(_FastbitsOp):
    """ONNX QuantizeLinear (versions 10 to 28) with :func:`fastbits.quantize_linear`.

    ``axis``, ``block_size``, ``output_dtype``, ``saturate`` and ``precision`` are the node's
    attributes; a type, a per-axis scale or a block size the model's version does not take is
    refused.
    """

    op_schema = _QUANTIZE_SCHEMA
    versions = tuple(v for v in _QUANT_VERSIONS if v <= _QUANTIZE_SCHEMA.since_version)

    def _run(self, x: Any, y_scale: Any, y_zero_point: Any = None, axis: Any = None, block_size: Any = None,  # type: ignore[override]
             output_dtype: Any = None, saturate: Any = None, precision: Any = None) -> tuple[Any]:
        args = (x, y_scale, y_zero_point)
        options = {"axis": 1 if axis is None else axis, "block_size": block_size or 0,
                   "output_dtype": _type_attribute(output_dtype),  # ONNX's 1 and 0 as the function's bools
                   "saturate": spec.check_saturate(spec.QUANTIZE, 1 if saturate is None else saturate),
                   "precision": _type_attribute(precision)}
        key = self._unchecked(args, options)
        if key is not None:
            x, scale, _, c = spec.check_quantize(*args, **options)
            _quant_check(self, x, scale, c.y, c.kind)
            self._checked = key
        return (_ops.quantize_linear(*args, **options),)


class DequantizeLinear(_FastbitsOp):
    """ONNX DequantizeLinear (versions 10 to 28) with :func:`fastbits.dequantize_linear`
    (as :class:`QuantizeLinear`)."""

    op_schema = _DEQUANTIZE_SCHEMA
    versions = tuple(v for v in _QUANT_VERSIONS if v <= _DEQUANTIZE_SCHEMA.since_version)

    def _run(self, x: Any, x_scale: Any, x_zero_point: Any = None, axis: Any = None, block_size: Any = None,  # type: ignore[override]
             output_dtype: Any = None) -> tuple[Any]:
        args = (x, x_scale, x_zero_point)
        options = {"axis": 1 if axis is None else axis, "block_size": block_size or 0,
                   "output_dtype": _type_attribute(output_dtype)}
        key = self._unchecked(args, options)
        if key is not None:
            x, scale, _, c = spec.check_dequantize(*args, **options)
            _quant_check(self, x, scale, c.y, c.kind)
            self._checked = key
        return (_ops.dequantize_linear(*args, **options),)


class DynamicQuantizeLinear(_FastbitsOp):
    """ONNX DynamicQuantizeLinear-11 with :func:`fastbits.dynamic_quantize_linear`: y, its scale
    and its zero point."""

    op_schema = _schema(spec.DYNAMIC_QUANTIZE, 11)

    def _run(self, x: Any) -> tuple[Any, Any, Any]:  # type: ignore[override]
        return _ops.dynamic_quantize_linear(x)


class MatMulInteger(_FastbitsOp):
    """ONNX MatMulInteger-10 with :func:`fastbits.matmul_integer`.

    A zero point of A may be one per row, as the operator's text says (onnx's reference
    subtracts a 1-D one along A's columns instead).
    """

    op_schema = _schema(spec.MATMUL_INTEGER, 10)

    def _run(self, a: Any, b: Any, a_zero_point: Any = None, b_zero_point: Any = None) -> tuple[Any]:  # type: ignore[override]
        return (_ops.matmul_integer(a, b, a_zero_point, b_zero_point),)


class QLinearMatMul(_FastbitsOp):
    """ONNX QLinearMatMul (10 and 21) with :func:`fastbits.qlinear_matmul`; version 10 refuses
    the float 8 types and float16 and bfloat16 scales.  Each result is the exact quotient rounded
    once (onnx's reference rounds the scales' quotient to float32 first, and reads a float 8
    operand as integers)."""

    op_schema = _latest_schema(spec.QLINEAR_MATMUL, tuple(spec.QLINEAR_MATMUL_VERSIONS))
    versions = tuple(spec.QLINEAR_MATMUL_VERSIONS)

    def _run(self, a: Any, a_scale: Any, a_zero_point: Any, b: Any, b_scale: Any, b_zero_point: Any,  # type: ignore[override]
             y_scale: Any, y_zero_point: Any) -> tuple[Any]:
        args = (a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
        key = self._unchecked(args, {})
        if key is not None:
            call = spec.check_qlinear_matmul(*args)
            spec.check_qlinear_matmul_version(self.version, *(spec.datatype_of(v.dtype) for v in (
                call.a, call.b, call.y_zero, call.a_scale)))
            self._checked = key
        return (_ops.qlinear_matmul(*args),)


#: The classes to pass as ``ReferenceEvaluator(..., new_ops=OPS)``.
OPS: list[type[OpRun]] = [BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot, BitShift, BitCast, Cast, CastLike,
                          QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul]


#: The installed onnx's evaluator's parameters: 1.21's has ``optimized`` and not
#: ``check_shape_annotations``, 1.23's the other way round.
_EVALUATOR_PARAMETERS = inspect.signature(onnx.reference.ReferenceEvaluator).parameters


class ReferenceEvaluator(onnx.reference.ReferenceEvaluator):
    """onnx's ``ReferenceEvaluator``, with fastbits inside: :data:`OPS` run their nodes, and the
    model's initializers (those of its subgraphs too) are read by
    :func:`fastbits.onnx_tensors.to_array`, strict on malformed data and fast on the packed
    types.  It changes nothing in onnx's own modules.

    The parameters are onnx's, by name and default: ``proto, opsets=None, functions=None,
    verbose=0, new_ops=None``, and ``check_shape_annotations=False`` (onnx 1.22 and later) and
    ``optimized=True`` (onnx 1.21), each passed on where the installed onnx's evaluator has it;
    where it has not, only its default is taken.  ``new_ops`` runs before
    :data:`OPS`: a class of its with the name and domain of one of fastbits' replaces fastbits'.
    A node with an attribute its operator's version does not have (Cast-13's ``saturate``,
    QuantizeLinear-19's ``block_size``) is refused when the evaluator is built, with an
    :class:`~fastbits.OpsetError` naming the node, the attribute and the version it came with.

    ``cache_constants=True`` (fastbits' own, keyword-only) trades memory for time: the outputs
    of fastbits' nodes whose inputs are all constants (initializers that are not graph inputs,
    or such nodes' outputs: a weight's DequantizeLinear, a Cast of a constant) are computed at
    the first run and kept, read-only, for the later runs.  They stay in memory as long as the
    evaluator (a float32 weight takes 4 times its int8 bytes, 8 times its int4 ones).  A feed
    that names an initializer such a node reads is then refused.  By default nothing is kept across runs,
    as in onnx's evaluator.

    Examples
    --------
    >>> import numpy as np
    >>> from onnx import helper, TensorProto
    >>> from fastbits.onnx_ops import ReferenceEvaluator
    >>> w = helper.make_tensor("w", TensorProto.INT4, [3], [1, -2, 7])
    >>> node = helper.make_node("Cast", ["w"], ["y"], to=TensorProto.FLOAT)
    >>> graph = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])], [w])
    >>> model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    >>> ReferenceEvaluator(model).run(None, {})
    [array([ 1., -2.,  7.], dtype=float32)]
    """

    def __init__(self, proto: Any, opsets: dict[str, int] | None = None,
                 functions: list[onnx.reference.ReferenceEvaluator | onnx.FunctionProto] | None = None,
                 verbose: int = 0, new_ops: list[type[OpRun]] | None = None,
                 check_shape_annotations: bool = False, optimized: bool = True, *,
                 cache_constants: bool = False) -> None:
        if not isinstance(cache_constants, bool):
            raise ArgumentTypeError(f"ReferenceEvaluator: cache_constants must be a bool, not "
                                    f"{type(cache_constants).__name__}")
        self.cache_constants = cache_constants
        #: The initializers the kept nodes read (cache_constants): a feed may not name one.
        self._kept_from: frozenset[str] = frozenset()
        given = list(new_ops or [])
        names = {(getattr(op, "op_domain", ""), op.__name__) for op in given}
        ops = given + [op for op in OPS if (op.op_domain, op.__name__) not in names]
        options = {}
        for name, value, default in (("check_shape_annotations", check_shape_annotations, False),
                                     ("optimized", optimized, True)):
            if name in _EVALUATOR_PARAMETERS:
                options[name] = value
            elif value != default:
                raise ArgumentValueError(f"ReferenceEvaluator: {name}={value!r} needs an onnx whose evaluator has "
                                         f"it; onnx {onnx.__version__}'s has not")
        super().__init__(proto, opsets, functions, verbose, ops, **options)

    def _init(self) -> None:
        # onnx's _init reads every initializer with numpy_helper.to_array before it loads the
        # nodes: it runs on none, then fastbits reads them (external data as onnx does, for a
        # model container holds them in memory).
        initializers, self.inits_ = self.inits_, []
        try:
            super()._init()
        finally:
            self.inits_ = initializers
        for init in initializers:
            if not isinstance(init, onnx.TensorProto):  # a sparse initializer: onnx's way
                self.rt_inits_[init.name] = onnx.numpy_helper.to_array(init)
            elif onnx.external_data_helper.uses_external_data(init):
                self.rt_inits_[init.name] = self.retrieve_external_data(init)
            else:
                self.rt_inits_[init.name] = onnx_tensors.to_array(init)
        if self.cache_constants:
            self._keep_constant_nodes()

    def _keep_constant_nodes(self) -> None:
        """Give each of fastbits' nodes whose inputs are all constants a run that keeps its
        outputs (cache_constants)."""
        graph_inputs = set(self.input_names)
        initializers = {name for name in self.rt_inits_ if name not in graph_inputs}
        constants, read = set(initializers), set()
        for node in self.rt_nodes_:
            if (isinstance(node, _FastbitsOp) and not node.has_linked_attribute
                    and all(name in constants or name == "" for name in node.input)):
                node.run = _Kept(node.run)  # type: ignore[method-assign]
                constants.update(name for name in node.output if name)
                read.update(initializers.intersection(node.input))
        self._kept_from = frozenset(read)

    def run(self, output_names: Any, feed_inputs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        """onnx's ``run``; with ``cache_constants=True``, a feed may not name a constant whose
        node's outputs are kept."""
        overridden = self._kept_from.intersection(feed_inputs) if self._kept_from else ()
        if overridden:
            raise ArgumentValueError(f"ReferenceEvaluator: feed {sorted(overridden)[0]!r} names an initializer that is "
                                     "not a graph input, which cache_constants=True keeps constant")
        return super().run(output_names, feed_inputs, *args, **kwargs)


class _Kept:
    """The run of a node whose inputs are constants (ReferenceEvaluator's ``cache_constants``):
    the first call's outputs, made read-only, are every later call's."""

    __slots__ = ("outputs", "run")

    def __init__(self, run: Any) -> None:
        self.run, self.outputs = run, None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.outputs is None:
            outputs = self.run(*args, **kwargs)
            for output in outputs:
                if isinstance(output, np.ndarray):
                    output.flags.writeable = False
            self.outputs = outputs
        return self.outputs
