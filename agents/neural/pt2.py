"""``.pt2`` policy files read without running anything from them.

``torch.export.load`` is not safe on a file from someone else: it unpickles parts of the archive (weights,
constants, sample inputs) without ``weights_only``, ``exec``-s the program's input guards, hands the graph's
symbolic expressions to ``sympy.sympify`` (an ``eval``), loads compiled AOTInductor libraries, and resolves a
node's target to any callable under ``torch``. A crafted file runs its payload on load.

:func:`read_program` reads the same files (those ``torch.export.save`` writes, the format of
:func:`agents.exported.export_policy` and ``belote-export --program``) another way:

- the archive is opened as a zip file and only these records are read: ``models/model.json`` (the graph, JSON),
  the weights' and constants' configs (JSON), their raw tensor bytes, and ``extra/*`` (text); nothing is
  unpickled (a weight or constant stored as a pickle, a custom object or an AOTInductor library is refused),
  nothing is compiled or evaluated (guards and symbolic expressions are ignored: the batch size is the only
  dynamic dimension, and the caller checks its inputs' shapes);
- :class:`Program` runs the graph node by node, each node an ATen operator (``torch.ops.aten.<op>.<overload>``);
  an operator that reads or writes a file is refused, and so is any other target (higher-order operators, Python
  callables), with the node named; a graph with in-place operators (``add_``: some libraries' exports keep them)
  runs on copies of its inputs and weights, so that a call changes nothing outside it;
- sizes are bounded (records, the graph, the tensors), so a hostile file is an error, not an exhausted machine.

Every refusal is a :class:`~agents.errors.AgentSpecError` naming the file and what was refused. A file that
``torch.export.load`` reads and this reader refuses can be loaded with torch by whoever trusts it, and exported
again with :func:`agents.exported.export_policy`.
"""

from __future__ import annotations

import json
import operator
import re
import sys
import zipfile
from pathlib import Path

from agents.errors import AgentSpecError

MAX_RECORDS = 10_000
MAX_BYTES = 2 << 30  # all records together, uncompressed
MAX_JSON_BYTES = 64 << 20  # the graph and each config
MAX_NODES = 100_000
MAX_DEPTH = 64  # of the graph's JSON

# schema.ScalarType, schema.Layout and schema.MemoryFormat of torch._export.serde (their numbers are the format)
_DTYPES = {1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "float16", 7: "float32", 8: "float64",
           12: "bool", 13: "bfloat16"}
_STRIDED = 7
_MEMORY_FORMATS = {1: "contiguous_format", 2: "channels_last", 3: "channels_last_3d", 4: "preserve_format"}
# Python operators a graph applies to sizes (a dynamic batch's arithmetic)
_OPERATORS = {f"_operator.{name}": getattr(operator, name) for name in (
    "getitem", "add", "sub", "mul", "floordiv", "truediv", "mod", "neg", "pow", "eq", "ne", "lt", "le", "gt", "ge")}
# ATen operators that touch files (their arguments name one) or the process; refused whatever their schema says
_DENIED = {"from_file", "save", "load", "_print", "warn"}
_SPECIAL_FLOATS = ("Infinity", "-Infinity", "NaN")  # how the format writes the floats JSON has no number for
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RECORD = re.compile(r"[A-Za-z0-9_.\-]+")


class _Refused(Exception):
    """Why a file is refused (turned into an AgentSpecError naming the file)."""


def read_program(path: str | Path) -> tuple["Program", dict[str, str]]:
    """The program of a ``.pt2`` file and its extra files (``extra/<name>`` records as text); an
    :class:`~agents.errors.AgentSpecError` naming the file and the reason for a file that cannot be read safely."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            return _Archive(archive).read()
    except _Refused as e:
        raise AgentSpecError(f"{str(path)!r} is not a policy this project reads: {e}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError) as e:
        raise AgentSpecError(f"{str(path)!r} is not a policy written by export_policy (not a .pt2 archive: "
                             f"{str(e)[:200] or type(e).__name__})") from None
    except OSError as e:
        raise AgentSpecError(f"{str(path)!r} cannot be read ({e.strerror or e})") from None


class _Archive:
    """The records of one ``.pt2`` zip file (one model, ``model``), read with bounds."""

    def __init__(self, archive: zipfile.ZipFile):
        infos = archive.infolist()
        if not infos:
            raise _Refused("an empty archive")
        if len(infos) > MAX_RECORDS:
            raise _Refused(f"{len(infos):,} records (at most {MAX_RECORDS:,})")
        if sum(i.file_size for i in infos) > MAX_BYTES:
            raise _Refused(f"more than {MAX_BYTES >> 30} GiB of records")
        root = infos[0].filename.split("/", 1)[0] + "/"
        self.archive = archive
        self.records = {i.filename[len(root):]: i for i in infos if i.filename.startswith(root)}

    def has(self, name: str) -> bool:
        return name in self.records

    def bytes(self, name: str, limit: int = MAX_BYTES) -> bytes:
        info = self.records.get(name)
        if info is None:
            raise _Refused(f"no record {name}")
        if info.file_size > limit:
            raise _Refused(f"record {name} holds {info.file_size:,} bytes (at most {limit:,})")
        data = self.archive.read(info)
        if len(data) > limit:
            raise _Refused(f"record {name} holds more than {limit:,} bytes")
        return data

    def json(self, name: str):
        try:
            return json.loads(self.bytes(name, MAX_JSON_BYTES))
        except (ValueError, RecursionError) as e:
            raise _Refused(f"record {name} is not JSON ({str(e)[:100]})") from None

    def read(self) -> tuple["Program", dict[str, str]]:
        if self.bytes("archive_format", 64).strip() != b"pt2":
            raise _Refused("not a torch.export archive (no archive_format pt2)")
        if self.has("byteorder") and self.bytes("byteorder", 64).decode("ascii", "replace").strip() != sys.byteorder:
            raise _Refused(f"tensors stored {self.bytes('byteorder', 64)!r}-endian; this machine is {sys.byteorder}")
        for name in self.records:
            if name.startswith("data/aotinductor/"):
                raise _Refused(f"it holds a compiled AOTInductor library ({name}), which is code")
        models = [n for n in self.records if n.startswith("models/") and n.endswith(".json")]
        if models != ["models/model.json"]:
            raise _Refused(f"one model, models/model.json, was expected; the archive has {models[:5]}")
        model = self.json("models/model.json")
        _check_depth(model)
        tensors = {}
        for kind, config in (("weights", "data/weights/model_weights_config.json"),
                             ("constants", "data/constants/model_constants_config.json")):
            if not self.has(config):
                if kind == "weights" and self.has("data/weights/model.pt"):
                    raise _Refused("its weights are one pickle (an older torch.export format), which is never "
                                   "unpickled here")
                if kind == "weights":
                    raise _Refused(f"no record {config}")
                continue
            tensors.update(self._tensors(kind, self.json(config)))
        extra = {}
        for name in self.records:
            if name.startswith("extra/") and not name.endswith("/"):
                try:
                    extra[name[len("extra/"):]] = self.bytes(name, MAX_JSON_BYTES).decode("utf-8")
                except UnicodeDecodeError:
                    raise _Refused(f"record {name} is not UTF-8 text") from None
        return Program(model, tensors), extra

    def _tensors(self, kind: str, config) -> dict:
        """The tensors a weights or constants config describes, read from their raw bytes."""
        import torch

        if not isinstance(config, dict) or not isinstance(config.get("config"), dict):
            raise _Refused(f"the {kind} config is not a mapping of names to tensors")
        out, storages = {}, {}
        for fqn, payload in config["config"].items():
            if not isinstance(payload, dict):
                raise _Refused(f"{kind} entry {fqn!r} is not a mapping")
            record = payload.get("path_name")
            if payload.get("use_pickle") or not isinstance(record, str) or not record.startswith(("weight_", "tensor_")):
                raise _Refused(f"{kind} entry {fqn!r} is stored as a pickle or an object ({record!r}), which is "
                               "never unpickled here")
            if not _RECORD.fullmatch(record):
                raise _Refused(f"{kind} entry {fqn!r} names the record {record!r}")
            meta = payload.get("tensor_meta")
            dtype, sizes, strides, offset = _tensor_meta(meta, f"{kind} entry {fqn!r}")
            if record not in storages:
                data = self.bytes(f"data/{kind}/{record}")
                size = torch.empty((), dtype=dtype).element_size()
                if len(data) % size:
                    raise _Refused(f"record {record} holds {len(data)} bytes, not a whole number of {dtype}")
                storages[record] = (torch.frombuffer(bytearray(data), dtype=dtype) if data
                                    else torch.empty(0, dtype=dtype))
            flat = storages[record]
            if flat.dtype != dtype:
                raise _Refused(f"record {record} is read as {flat.dtype} and {dtype}")
            needed = offset + sum((n - 1) * s for n, s in zip(sizes, strides)) + 1 if all(sizes) else 0
            if needed > flat.numel():
                raise _Refused(f"{kind} entry {fqn!r} reaches element {needed - 1} of a record of {flat.numel()}")
            out[fqn] = torch.as_strided(flat, sizes, strides, offset) if all(sizes) else torch.empty(sizes, dtype=dtype)
        return out


def _check_depth(value, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise _Refused(f"the graph is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        for v in value.values():
            _check_depth(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check_depth(v, depth + 1)


def _ints(values, what: str) -> list[int]:
    if not isinstance(values, list) or any(not (isinstance(v, dict) and isinstance(v.get("as_int"), int))
                                           or isinstance(v.get("as_int"), bool) for v in values):
        raise _Refused(f"{what}: sizes must be whole numbers")
    return [v["as_int"] for v in values]


def _tensor_meta(meta, what: str):
    """(dtype, sizes, strides, storage offset) of a stored tensor's metadata."""
    import torch

    if not isinstance(meta, dict):
        raise _Refused(f"{what} has no tensor metadata")
    dtype = _DTYPES.get(meta.get("dtype"))
    if dtype is None:
        raise _Refused(f"{what} has a dtype this reader does not know ({meta.get('dtype')!r})")
    if meta.get("layout", _STRIDED) != _STRIDED:
        raise _Refused(f"{what} is not a dense (strided) tensor")
    sizes, strides = _ints(meta.get("sizes"), what), _ints(meta.get("strides"), what)
    offset = _ints([meta.get("storage_offset", {"as_int": 0})], what)[0]
    if len(sizes) != len(strides) or len(sizes) > 16 or min([offset, *sizes, *strides]) < 0:
        raise _Refused(f"{what} has sizes {sizes}, strides {strides} and offset {offset}")
    return getattr(torch, dtype), sizes, strides, offset


class Program:
    """A torch.export graph run node by node on ATen operators (:func:`read_program`).

    ``inputs``: one (name, dtype, shape) per user input, ``None`` in a shape for a dynamic size. Calling the
    program with one tensor per input returns its outputs as a tuple."""

    def __init__(self, model: dict, tensors: dict):
        module = model.get("graph_module") if isinstance(model, dict) else None
        graph = module.get("graph") if isinstance(module, dict) else None
        signature = module.get("signature") if isinstance(module, dict) else None
        if not isinstance(graph, dict) or not isinstance(signature, dict):
            raise _Refused("models/model.json has no graph_module with a graph and a signature")
        self.constants: dict[str, object] = {}  # graph input name -> stored tensor
        self.user_inputs: list[str] = []
        for spec in _list(signature.get("input_specs"), "input_specs"):
            kind, body = _one(spec, "an input spec")
            if kind == "user_input":
                self.user_inputs.append(_tensor_name(body.get("arg"), "a user input"))
                continue
            key = {"parameter": "parameter_name", "buffer": "buffer_name",
                   "tensor_constant": "tensor_constant_name"}.get(kind)
            if key is None:
                raise _Refused(f"an input of kind {kind!r} (only parameters, buffers, tensor constants and tensors)")
            arg = body.get("arg")
            name = arg.get("name") if isinstance(arg, dict) else None
            if not isinstance(name, str) or body.get(key) not in tensors:
                raise _Refused(f"the {kind} {body.get(key)!r} is not among the stored tensors")
            self.constants[name] = tensors[body[key]]
        self.outputs = []
        for spec in _list(signature.get("output_specs"), "output_specs"):
            kind, body = _one(spec, "an output spec")
            if kind != "user_output":
                raise _Refused(f"an output of kind {kind!r} (a policy only returns tensors)")
            self.outputs.append(_argument(body.get("arg"), "the graph's outputs"))
        values = graph.get("tensor_values") if isinstance(graph.get("tensor_values"), dict) else {}
        self.inputs = [(name, *_input_meta(values.get(name), name)) for name in self.user_inputs]
        nodes = _list(graph.get("nodes"), "nodes")
        if len(nodes) > MAX_NODES:
            raise _Refused(f"{len(nodes):,} nodes (at most {MAX_NODES:,})")
        self.nodes = [_node(n, i) for i, n in enumerate(nodes)]
        self.mutates = any(getattr(op, "_schema", None) is not None and op._schema.is_mutable for op, *_ in self.nodes)

    def __call__(self, *inputs):
        if len(inputs) != len(self.user_inputs):
            raise ValueError(f"the program takes {len(self.user_inputs)} inputs, got {len(inputs)}")
        if self.mutates:  # an in-place operator: on copies, so that neither the caller's tensors nor the weights change
            env = {k: v.clone() for k, v in self.constants.items()}
            env.update((k, v.clone()) for k, v in zip(self.user_inputs, inputs))
        else:
            env = dict(self.constants)
            env.update(zip(self.user_inputs, inputs))
        for op, args, kwargs, outputs, where in self.nodes:
            try:
                result = op(*[_value(a, env) for a in args], **{k: _value(a, env) for k, a in kwargs.items()})
            except _Refused as e:
                raise ValueError(f"{where}: {e}") from None
            _bind(outputs, result, env, where)
        return tuple(_value(o, env) for o in self.outputs)


def _list(value, what: str) -> list:
    if not isinstance(value, list):
        raise _Refused(f"the graph's {what} is not a list")
    return value


def _one(spec, what: str) -> tuple[str, dict]:
    """The one set field of a serialized union (``{"parameter": {...}}``)."""
    if not isinstance(spec, dict) or len(spec) != 1:
        raise _Refused(f"{what} is not one tagged value")
    (kind, body), = spec.items()
    if not isinstance(body, dict):
        raise _Refused(f"{what} of kind {kind!r} is not a mapping")
    return kind, body


def _tensor_name(arg, what: str) -> str:
    if isinstance(arg, dict) and isinstance(arg.get("as_tensor"), dict) and isinstance(arg["as_tensor"].get("name"), str):
        return arg["as_tensor"]["name"]
    raise _Refused(f"{what} that is not a tensor")


def _input_meta(meta, name: str):
    """(dtype, shape with None for dynamic sizes) of a user input, from the graph's tensor values."""
    import torch

    if not isinstance(meta, dict):
        return None, None
    dtype = _DTYPES.get(meta.get("dtype"))
    sizes = meta.get("sizes")
    shape = None
    if isinstance(sizes, list) and all(isinstance(s, dict) for s in sizes):
        shape = tuple(s["as_int"] if isinstance(s.get("as_int"), int) else None for s in sizes)
    return (getattr(torch, dtype) if dtype else None), shape


def _operator(target, where: str):
    """The callable of a node's target: an ATen operator without side effects, or a Python operator on sizes."""
    import torch

    if target in _OPERATORS:
        return _OPERATORS[target]
    parts = target.split(".") if isinstance(target, str) else []
    if len(parts) != 5 or parts[:3] != ["torch", "ops", "aten"] or not all(_NAME.fullmatch(p) for p in parts[3:]):
        raise _Refused(f"{where} calls {str(target)[:100]!r}; only ATen operators (torch.ops.aten.<op>.<overload>) "
                       "are run")
    name, overload = parts[3:]
    if name in _DENIED or name.startswith("_nnapi"):
        raise _Refused(f"{where} calls {target!r}, which is refused (it reads or writes outside the program)")
    try:
        op = getattr(getattr(torch.ops.aten, name), overload)
    except (AttributeError, RuntimeError):
        raise _Refused(f"{where} calls {target!r}, which this torch does not have") from None
    schema = op._schema
    if any(a.name in ("filename", "path", "file") for a in schema.arguments):
        raise _Refused(f"{where} calls {target!r}, which reads or writes a file")
    return op


def _node(node, index: int):
    """(operator, positional args, keyword args, outputs, description) of a serialized node, checked."""
    if not isinstance(node, dict):
        raise _Refused(f"node {index} is not a mapping")
    where = f"node {index} ({str(node.get('name') or node.get('target'))[:60]})"
    op = _operator(node.get("target"), where)
    args, kwargs = [], {}
    for item in _list(node.get("inputs"), f"inputs of {where}"):
        if not isinstance(item, dict):
            raise _Refused(f"an input of {where} is not a mapping")
        arg = _argument(item.get("arg"), where)
        if item.get("kind", 1) == 2:
            if not isinstance(item.get("name"), str) or not _NAME.fullmatch(item["name"]):
                raise _Refused(f"a keyword input of {where} has no name")
            kwargs[item["name"]] = arg
        else:
            if kwargs:
                raise _Refused(f"{where} has a positional input after a keyword one")
            args.append(arg)
    outputs = [_output(o, where) for o in _list(node.get("outputs"), f"outputs of {where}")]
    return op, args, kwargs, outputs, where


def _argument(arg, where: str):
    """A serialized argument as a small tree: ("ref", name), ("refs", [names]), ("sym", name or int), or a
    constant value; checked here so that running the program only looks values up."""
    import torch

    if not isinstance(arg, dict) or len(arg) != 1:
        raise _Refused(f"an argument of {where} is not one tagged value")
    (kind, value), = arg.items()
    plain = {"as_int": int, "as_float": (int, float), "as_bool": bool, "as_string": str}
    if kind == "as_none":
        return ("const", None)
    if kind == "as_float" and value in _SPECIAL_FLOATS:
        return ("const", float(value))
    if kind in plain:
        if not isinstance(value, plain[kind]) or (kind == "as_int" and isinstance(value, bool)):
            raise _Refused(f"an argument {kind} of {where} is {type(value).__name__}")
        return ("const", float(value) if kind == "as_float" else value)
    if kind in ("as_ints", "as_floats", "as_bools", "as_strings"):
        item = plain[kind[:-1]]
        if kind == "as_floats" and isinstance(value, list):
            value = [float(v) if v in _SPECIAL_FLOATS else v for v in value]
        if not isinstance(value, list) or not all(isinstance(v, item) for v in value):
            raise _Refused(f"an argument {kind} of {where} is not a list of {kind[3:]}")
        return ("const", [float(v) for v in value] if kind == "as_floats" else list(value))
    if kind == "as_tensor":
        return ("ref", _tensor_name(arg, f"an argument of {where}"))
    if kind == "as_tensors":
        return ("list", [("ref", _tensor_name({"as_tensor": v}, f"an argument of {where}")) for v in _list(value, where)])
    if kind == "as_optional_tensors":
        return ("list", [("const", None) if isinstance(v, dict) and "as_none" in v else
                         ("ref", _tensor_name(v, f"an argument of {where}")) for v in _list(value, where)])
    if kind == "as_optional_tensor":
        return ("const", None) if isinstance(value, dict) and "as_none" in value else (
            "ref", _tensor_name(value, f"an argument of {where}"))
    if kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
        return _symbol(value, where)
    if kind in ("as_sym_ints", "as_sym_floats", "as_sym_bools"):
        return ("list", [_symbol(v, where) for v in _list(value, where)])
    if kind == "as_scalar_type":
        if value not in _DTYPES:
            raise _Refused(f"{where} names a dtype this reader does not know ({value!r})")
        return ("const", getattr(torch, _DTYPES[value]))
    if kind == "as_memory_format":
        if value not in _MEMORY_FORMATS:
            raise _Refused(f"{where} names a memory format this reader does not know ({value!r})")
        return ("const", getattr(torch, _MEMORY_FORMATS[value]))
    if kind == "as_layout":
        if value != _STRIDED:
            raise _Refused(f"{where} asks for a layout other than dense tensors")
        return ("const", torch.strided)
    if kind == "as_device":
        return ("const", torch.device("cpu"))  # policies run on the CPU here, wherever they were exported
    raise _Refused(f"{where} has an argument of kind {kind!r}, which this reader does not run")


def _symbol(value, where: str):
    if isinstance(value, dict) and len(value) == 1:
        (kind, v), = value.items()
        if kind == "as_name" and isinstance(v, str):
            return ("ref", v)
        if kind in ("as_int", "as_float", "as_bool") and isinstance(v, (int, float)):
            return ("const", v)
    raise _Refused(f"a symbolic argument of {where} is neither a name nor a number")


def _output(out, where: str):
    """Where a node's result goes: a name, a list of names, or None (an output nobody reads)."""
    if not isinstance(out, dict) or len(out) != 1:
        raise _Refused(f"an output of {where} is not one tagged value")
    (kind, value), = out.items()
    if kind == "as_tensor":
        return _tensor_name(out, f"an output of {where}")
    if kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
        ref = _symbol(value, where)
        return ref[1] if ref[0] == "ref" else None
    if kind == "as_tensors":
        return [_tensor_name({"as_tensor": v}, f"an output of {where}") for v in _list(value, where)]
    if kind == "as_none":
        return None
    raise _Refused(f"{where} has an output of kind {kind!r}, which this reader does not run")


def _value(arg, env: dict):
    kind, value = arg
    if kind == "const":
        return value
    if kind == "ref":
        if value not in env:
            raise _Refused(f"it reads {value!r} before any node wrote it")
        return env[value]
    return [_value(a, env) for a in value]  # "list"


def _bind(outputs: list, result, env: dict, where: str) -> None:
    if len(outputs) == 1 and not isinstance(outputs[0], list):
        if outputs[0] is not None:
            env[outputs[0]] = result
        return
    results = result if isinstance(result, (tuple, list)) else (result,)
    if len(outputs) == 1:  # one output that is a list of tensors
        outputs, results = outputs[0], list(results)
    if len(outputs) != len(results):
        raise ValueError(f"{where} returned {len(results)} values for {len(outputs)} outputs")
    for name, r in zip(outputs, results):
        if isinstance(name, list):
            _bind([name], r, env, where)
        elif name is not None:
            env[name] = r


__all__ = ["Program", "read_program"]
