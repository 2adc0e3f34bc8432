"""An onnx backend (:class:`onnx.backend.base.Backend`) that runs models with fastbits.

The module itself is the backend, as onnx's test harness expects::

    import onnx.backend.test, fastbits.onnx_backend
    onnx.backend.test.BackendTest(fastbits.onnx_backend, __name__)

Whole models run through :class:`onnx.reference.ReferenceEvaluator` with
:data:`fastbits.onnx_ops.OPS`: its thirteen operators (the bitwise ones, BitCast, Cast,
CastLike and the quantization operators) on fastbits' kernels, every other operator on
onnx's reference implementation.  CPU only.

>>> import numpy as np, onnx.helper as oh, fastbits.onnx_backend as backend
>>> node = oh.make_node("BitCast", ["x"], ["y"], to=6)
>>> backend.run_node(node, [np.array([1.0], np.float32)])[0]
array([1065353216], dtype=int32)
"""

from __future__ import annotations

import os
from typing import IO, Any, Sequence, Union

import numpy as np
from numpy.typing import NDArray

from . import onnx_ops  # before onnx: its ImportError names the extra to install

import onnx  # noqa: E402
import onnx.checker  # noqa: E402
import onnx.defs  # noqa: E402
import onnx.helper  # noqa: E402
import onnx.numpy_helper  # noqa: E402
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from .errors import ArgumentTypeError, ArgumentValueError  # noqa: E402

__all__ = [
    "FastbitsBackend",
    "FastbitsBackendRep",
    "is_compatible",
    "prepare",
    "run_model",
    "run_node",
    "supports_device",
]

#: A model as :meth:`FastbitsBackend.prepare` takes it: a ModelProto, its bytes, or a file
#: (a path or a binary file object, as ``onnx.load`` reads it).
_Model = Union[onnx.ModelProto, bytes, str, os.PathLike[str], IO[bytes]]

#: A model's or a node's inputs: a list or tuple in the graph's order, a dict by name, or one
#: array (or TensorProto) for a single input.
_Inputs = Union[list[Any], tuple[Any, ...], dict[str, Any], NDArray[Any], onnx.TensorProto]

#: Keyword arguments of ``prepare`` passed on to the ReferenceEvaluator; the
#: others (onnx's harness passes ``rtol``/``atol``) are accepted and ignored.
_EVALUATOR_KWARGS = ("verbose", "check_shape_annotations")


def _as_value(value: Any) -> Any:
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    return value


def _feeds(names: Sequence[str], inputs: Any) -> dict[str, Any]:
    if isinstance(inputs, dict):
        return {name: _as_value(value) for name, value in inputs.items()}
    if isinstance(inputs, (np.ndarray, onnx.TensorProto)):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)):
        raise ArgumentTypeError(
            f"inputs must be a list, a tuple or a dict of arrays, not {type(inputs).__name__}"
        )
    if len(inputs) != len(names):
        raise ArgumentValueError(
            f"the model takes {len(names)} input(s) {list(names)}, but {len(inputs)} "
            f"were given"
        )
    return {name: _as_value(value) for name, value in zip(names, inputs)}


class FastbitsBackendRep(BackendRep):
    """A prepared model: call :meth:`run` as often as needed."""

    def __init__(self, evaluator: ReferenceEvaluator, input_names: Sequence[str]):
        self.evaluator = evaluator
        self.input_names = list(input_names)
        self.output_names = list(evaluator.output_names)

    def run(self, inputs: _Inputs, **kwargs: Any) -> tuple[Any, ...]:
        """Run the model.

        Parameters
        ----------
        inputs : list, tuple or dict
            The inputs in the order of the graph's inputs (initializers
            excluded), or by name; a single array for a one-input model.
            TensorProto values are read with ``onnx.numpy_helper.to_array``.

        Returns
        -------
        tuple
            The outputs, in the graph's order; they can also be read by name.
        """
        outputs = self.evaluator.run(None, _feeds(self.input_names, inputs))
        return namedtupledict("Outputs", self.output_names)(*outputs)


def _check_device(device: str) -> None:
    if not FastbitsBackend.supports_device(device):
        raise ArgumentValueError(f"fastbits.onnx_backend runs on 'CPU' only, not {device!r}")


def _evaluator_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {key: kwargs[key] for key in _EVALUATOR_KWARGS if key in kwargs}


class FastbitsBackend(Backend):
    """The onnx backend; the module-level functions are its class methods."""

    @classmethod
    def is_compatible(cls, model: _Model, device: str = "CPU", **kwargs: Any) -> bool:
        """True when ``device`` is supported: the reference evaluator runs the rest."""
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model: _Model, device: str = "CPU", **kwargs: Any) -> FastbitsBackendRep:
        """Check ``model`` (a ModelProto, its bytes, or a path) and load it.

        Raises ``onnx.checker.ValidationError`` for a model the checker refuses.
        """
        _check_device(device)
        if isinstance(model, bytes):
            model = onnx.load_model_from_string(model)
        elif not isinstance(model, onnx.ModelProto):
            model = onnx.load(model)
        onnx.checker.check_model(model)
        evaluator = ReferenceEvaluator(
            model, new_ops=list(onnx_ops.OPS), **_evaluator_kwargs(kwargs)
        )
        initializers = {init.name for init in model.graph.initializer}
        initializers.update(init.values.name for init in model.graph.sparse_initializer)
        input_names = [i.name for i in model.graph.input if i.name not in initializers]
        return FastbitsBackendRep(evaluator, input_names)

    @classmethod
    def run_model(
        cls, model: _Model, inputs: _Inputs, device: str = "CPU", **kwargs: Any
    ) -> tuple[Any, ...]:
        """Prepare ``model`` and run it once."""
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: _Inputs,
        device: str = "CPU",
        outputs_info: Any = None,
        **kwargs: Any,
    ) -> tuple[Any, ...]:
        """Run one node; ``opset_version=`` picks the default domain's opset (latest)."""
        _check_device(device)
        super().run_node(node, inputs, device=device, outputs_info=outputs_info, **kwargs)
        opsets = {"": kwargs.get("opset_version", onnx.defs.onnx_opset_version())}
        if node.domain not in opsets:
            opsets[node.domain] = 1
        graph = onnx.helper.make_graph(
            [node],
            "fastbits_run_node",
            [onnx.helper.make_empty_tensor_value_info(name) for name in node.input if name],
            [onnx.helper.make_empty_tensor_value_info(name) for name in node.output if name],
        )
        evaluator = ReferenceEvaluator(
            graph, opsets=opsets, new_ops=list(onnx_ops.OPS), **_evaluator_kwargs(kwargs)
        )
        names = [name for name in node.input if name]
        return FastbitsBackendRep(evaluator, names).run(inputs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """True for ``"CPU"`` (and ``"CPU:n"``), False for anything else."""
        try:
            return Device(device).type == DeviceType.CPU
        except (AttributeError, ValueError, TypeError):
            return False


is_compatible = FastbitsBackend.is_compatible
prepare = FastbitsBackend.prepare
run_model = FastbitsBackend.run_model
run_node = FastbitsBackend.run_node
supports_device = FastbitsBackend.supports_device
