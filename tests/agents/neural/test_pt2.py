"""Policy files (.pt2) from strangers: read without running anything from them (agents.neural.pt2).

Each crafted file is a real export with one part replaced by a payload that, run, creates a marker file; every
loader of the project (make_agent, read_meta, belote-eval, train.py's agent specs) goes through the reader."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.errors import AgentActionError, AgentSpecError
from agents.exported import ExportedAgent, export_policy, read_meta
from agents.neural.pt2 import read_program
from agents.registry import make_agent
from belote_env.observation import OBS_SIZE
from belote_env.rules.actions import NUM_ACTIONS


def _net(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(OBS_SIZE, 16), torch.nn.ReLU(), torch.nn.Linear(16, NUM_ACTIONS))


@pytest.fixture(scope="module")
def policy(tmp_path_factory) -> Path:
    return export_policy(_net(), tmp_path_factory.mktemp("pt2") / "good.pt2", name="good")


def _records(path: Path) -> tuple[str, dict[str, bytes]]:
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        root = names[0].split("/", 1)[0] + "/"
        return root, {n[len(root):]: z.read(n) for n in names}


def _rewrite(src: Path, dst: Path, **changes) -> Path:
    """``src`` with records replaced (name -> bytes, or a function of the old bytes; None removes one)."""
    root, records = _records(src)
    for name, new in changes.items():
        name = name.replace("__", "/").replace("_DOT_", ".")
        if new is None:
            records.pop(name, None)
        else:
            records[name] = new(records[name]) if callable(new) else new
    with zipfile.ZipFile(dst, "w") as z:
        for name, data in records.items():
            z.writestr(root + name, data)
    return dst


class _Payload:
    """Unpickled, creates ``marker`` (what a crafted file would do with any command)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _pickle(marker: Path) -> bytes:
    buffer = io.BytesIO()
    torch.save({"x": _Payload(marker)}, buffer)
    return buffer.getvalue()


def _edit_json(fn):
    def edit(old: bytes) -> bytes:
        data = json.loads(old)
        fn(data)
        return json.dumps(data).encode()
    return edit


def _graph(data):
    return data["graph_module"]["graph"]


def _crafted(policy: Path, tmp_path: Path, marker: Path) -> dict[str, tuple[dict, str | None]]:
    """name -> (record changes, the refusal's words, or None where the file loads and plays safely)."""
    shell = f"__import__('pathlib').Path({str(marker)!r}).touch()"

    def pickled_weight(data):
        data["config"]["0.weight"]["use_pickle"] = True

    def guard(data):
        data["guards_code"] = [f"{shell} or True"]

    def expr(data):
        meta = _graph(data)["tensor_values"]["input"]
        meta["sizes"][0] = {"as_expr": {"expr_str": shell, "hint": {"as_int": 2}}}

    def target(data):
        node = _graph(data)["nodes"][0]
        node["target"] = "torch.os.system"
        node["inputs"] = [{"name": "command", "arg": {"as_string": f"touch {marker}"}, "kind": 1}]

    def from_file(data):
        node = _graph(data)["nodes"][0]
        node["target"] = "torch.ops.aten.from_file.default"
        node["inputs"] = [{"name": "filename", "arg": {"as_string": str(marker)}, "kind": 1}]

    def in_place(data):
        _graph(data)["nodes"][1]["target"] = "torch.ops.aten.relu_.default"

    def opaque(data):
        data["config"]["c"] = {"path_name": "opaque_obj_0", "is_param": False, "use_pickle": True,
                               "tensor_meta": None}

    def code_name(data):  # FX would write a get_attr of this name into the code it generates
        spec = data["graph_module"]["signature"]["input_specs"][0]["parameter"]
        spec["parameter_name"] = f'x"), {shell}, ("'

    return {
        "a pickled weight": ({"data__weights__weight_0": _pickle(marker),
                              "data__weights__model_weights_config_DOT_json": _edit_json(pickled_weight)}, "pickle"),
        "a pickle as sample inputs": ({"data__sample_inputs__model_DOT_pt": _pickle(marker)}, None),
        "code as an input guard": ({"models__model_DOT_json": _edit_json(guard)}, None),
        "code as a symbolic size": ({"models__model_DOT_json": _edit_json(expr)}, None),
        "a Python callable as a node": ({"models__model_DOT_json": _edit_json(target)}, "torch.os.system"),
        "an operator reading a file": ({"models__model_DOT_json": _edit_json(from_file)}, "from_file"),
        "an operator changing its input": ({"models__model_DOT_json": _edit_json(in_place)}, None),
        "a pickled constant": ({"data__constants__opaque_obj_0": _pickle(marker),
                                "data__constants__model_constants_config_DOT_json": _edit_json(opaque)}, "pickle"),
        "a compiled library": ({"data__aotinductor__model__model_DOT_so": b"\x7fELF"}, "AOTInductor"),
        "a name made of code": ({"models__model_DOT_json": _edit_json(code_name)}, "not among the stored tensors"),
        "the older format's one pickle": ({"data__weights__model_weights_config_DOT_json": None,
                                           "data__weights__model_DOT_pt": _pickle(marker)}, "one pickle"),
    }


CASES = ["a pickled weight", "a pickle as sample inputs", "code as an input guard", "code as a symbolic size",
         "a Python callable as a node", "an operator reading a file", "an operator changing its input",
         "a pickled constant", "a compiled library", "a name made of code", "the older format's one pickle"]


@pytest.mark.parametrize("case", CASES)
def test_a_crafted_policy_file_runs_nothing_on_load_or_play(policy, tmp_path, case):
    marker = tmp_path / "marker"
    changes, refusal = _crafted(policy, tmp_path, marker)[case]
    path = _rewrite(policy, tmp_path / "crafted.pt2", **changes)
    rng = np.random.default_rng(0)
    obs = rng.random((3, OBS_SIZE), dtype=np.float32)
    mask = np.ones((3, NUM_ACTIONS), dtype=np.int8)
    if refusal is None:  # the payload sits in a part that is never read: the file plays as the good one
        agent = make_agent(str(path))
        assert agent.act_batch(obs, mask, None).tolist() == make_agent(str(policy)).act_batch(obs, mask, None).tolist()
    else:
        for load in (make_agent, read_meta):
            with pytest.raises(AgentSpecError, match=refusal) as e:
                load(str(path))
            assert str(path) in str(e.value) and len(str(e.value).splitlines()) == 1
    assert not marker.exists()


def test_in_place_operators_change_nothing_outside_a_call(policy, tmp_path):
    """Some libraries' exports keep in-place operators (RLlib's: add_ on an intermediate); one aimed at the
    observation or a weight changes neither: the graph runs on copies."""

    class InPlace(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(OBS_SIZE, NUM_ACTIONS)

        def forward(self, x):
            y = self.linear(x)
            y.add_(1.0)
            return y

    torch.manual_seed(2)
    module = InPlace()
    path = export_policy(module, tmp_path / "in_place.pt2")
    agent = make_agent(str(path))
    x = np.random.default_rng(1).random((4, OBS_SIZE), dtype=np.float32)
    with torch.no_grad():
        assert torch.equal(agent.net(torch.from_numpy(x))[0], module(torch.from_numpy(x)))

    def aim_at(name):  # a first node doubling, in place, the observation or the first weight
        def edit(data):
            ref = {"as_tensor": {"name": name}}
            _graph(data)["nodes"].insert(0, {
                "target": "torch.ops.aten.add_.Tensor", "name": "doubled", "metadata": {},
                "inputs": [{"name": "self", "arg": ref, "kind": 1}, {"name": "other", "arg": ref, "kind": 1}],
                "outputs": [{"as_tensor": {"name": "doubled"}}]})
        return edit

    for name in (agent.net.user_inputs[0], next(iter(agent.net.constants))):  # the observation, the first weight
        hostile = make_agent(str(_rewrite(path, tmp_path / f"aim_{name}.pt2",
                                          models__model_DOT_json=_edit_json(aim_at(name)))))
        obs = x.copy()
        weights = {k: v.clone() for k, v in hostile.net.constants.items()}
        first = hostile.net(torch.from_numpy(obs))
        again = hostile.net(torch.from_numpy(obs))
        assert np.array_equal(obs, x) and all(torch.equal(v, weights[k]) for k, v in hostile.net.constants.items())
        assert all(torch.equal(a, b) for a, b in zip(first, again)), name


def test_the_reader_gives_torchs_outputs_bit_for_bit(tmp_path):
    """A graph with a dynamic batch's arithmetic, views, splits, a buffer and a multi-output operator."""

    class Odd(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(OBS_SIZE, 2 * NUM_ACTIONS)
            self.norm = torch.nn.LayerNorm(NUM_ACTIONS)
            self.register_buffer("shift", torch.arange(NUM_ACTIONS, dtype=torch.float32))

        def forward(self, x):
            b = x.shape[0]
            first, second = self.linear(x).view(b, 2, NUM_ACTIONS).unbind(1)
            z = self.norm(torch.cat([first, second], 1).reshape(2 * b, NUM_ACTIONS)).softmax(-1)
            z = z.reshape(b, 2, NUM_ACTIONS).sum(1) + 0.01 * self.shift
            left, right = torch.split(z, [56, 56], dim=1)
            return torch.cat([right, left.clamp(max=0.5)], 1) * x[:, :1]

    torch.manual_seed(1)
    path = export_policy(Odd(), tmp_path / "odd.pt2")
    program, extra = read_program(path)
    assert json.loads(extra["belote_env.json"])["name"] == "policy"
    x = torch.rand(5, OBS_SIZE)
    with torch.inference_mode():
        assert torch.equal(program(x)[0], torch.export.load(path).module()(x))


def _export_raw(module, path: Path, example, meta: dict | None = None) -> Path:
    """A torch.export file of ``module`` with a description of our format (what a careless exporter writes)."""
    from agents.exported import policy_meta, save_program

    program = torch.export.export(module, example)
    with open(path, "wb") as f:
        save_program(program, f, meta if meta is not None else policy_meta("raw", "test"))
    return path


class _Tuple(torch.nn.Module):
    def __init__(self, width=NUM_ACTIONS, out_tuple=False):
        super().__init__()
        self.linear = torch.nn.Linear(OBS_SIZE, width)
        self.out_tuple = out_tuple

    def forward(self, x):
        y = self.linear(x)
        return (y, y) if self.out_tuple else y


class _Reshaped(_Tuple):
    def forward(self, x):
        return self.linear(x.reshape(x.shape[0], -1))


def test_malformed_policies_are_one_line_naming_what_is_wrong(tmp_path):
    x = (torch.zeros(2, OBS_SIZE),)
    cases = {
        "logits111": (_Tuple(111), x, None, r"first output is torch.float32 of shape \[2, 111\]"),
        "small_input": (torch.nn.Linear(100, NUM_ACTIONS), (torch.zeros(2, 100),), None,
                        r"observations of shape \[2, 100\]"),
        "double_input": (torch.nn.Linear(OBS_SIZE, NUM_ACTIONS).double(), (torch.zeros(2, OBS_SIZE).double(),),
                         None, "observations of torch.float64"),
        "list_description": (_Tuple(), x, [], "no belote_env.json"),
        "two_inputs_listed": (_Tuple(), x, {"format": "belote_env.policy/1", "inputs": ["observation", "action_mask"]},
                              "takes 1 inputs"),
    }
    for name, (module, example, meta, words) in cases.items():
        path = _export_raw(module, tmp_path / f"{name}.pt2", example, meta)
        with pytest.raises(AgentSpecError, match=words) as e:
            make_agent(str(path))
        assert len(str(e.value).splitlines()) == 1, name
    fixed = _export_raw(_Reshaped(), tmp_path / "fixed_batch.pt2", x)  # no dynamic batch: its view is of 2 rows
    with pytest.raises(AgentSpecError, match="batch of 3 observations"):
        make_agent(str(fixed))
    tuple_path = _export_raw(_Tuple(out_tuple=True), tmp_path / "tuple.pt2", x)
    assert isinstance(make_agent(str(tuple_path)), ExportedAgent)  # logits first, anything after
    (tmp_path / "empty.pt2").write_bytes(b"")
    for junk in (tmp_path / "empty.pt2", _rewrite(tuple_path, tmp_path / "nograph.pt2", models__model_DOT_json=None),
                 _rewrite(tuple_path, tmp_path / "badjson.pt2", models__model_DOT_json=b"{")):
        with pytest.raises(AgentSpecError) as e:
            make_agent(str(junk))
        assert len(str(e.value).splitlines()) == 1


def test_logits_that_choose_nothing(tmp_path):
    class Constant(torch.nn.Module):
        def __init__(self, value):
            super().__init__()
            self.value = value

        def forward(self, x):
            return torch.full((x.shape[0], NUM_ACTIONS), self.value) + 0 * x[:, :1]

    mask = np.zeros((2, NUM_ACTIONS), dtype=np.int8)
    mask[0, [5, 9]] = 1
    mask[1, 40] = 1
    obs = np.zeros((2, OBS_SIZE), np.float32)
    minus_inf = make_agent(str(export_policy(Constant(float("-inf")), tmp_path / "inf.pt2")))
    assert minus_inf.act_batch(obs, mask, None).tolist() == [5, 40]  # the lowest legal action, never action 0
    nan = make_agent(str(export_policy(Constant(float("nan")), tmp_path / "nan.pt2")))
    with pytest.raises(AgentActionError, match="NaN logits"):
        nan.act_batch(obs, mask, None)
