"""The package's layers, written down as tests: imports only go down the layers, no
private name crosses a module, and option vocabularies are spelled once."""

from __future__ import annotations

import ast
import pathlib
import typing

import xdiv
import xdiv.typing as vocabularies

ROOT = pathlib.Path(xdiv.__file__).parent

# bottom-up; a module may import its own layer and the ones below
LAYERS = [
    ("foundations", ["errors", "typing", "options", "_warnings", "_version"]),
    ("kernels", ["kernels"]),
    ("measures", ["measures"]),
    ("core", ["core"]),
    ("io", ["io"]),
    ("engine", ["engine"]),
    ("analysis", ["analysis"]),
    ("outputs and entry points", ["formats", "plot", "report", "accessors", "datasets",
                                  "meta", "risk", "design", "stats", "udm", "plots",
                                  "official", "reports", "imine", "hierarchy", "pools", "repro",
                                  "oneclick"]),
    ("integrations with other tools", ["integrations"]),
    ("command line", ["cli"]),
    ("package", ["__init__", "_lazy"]),
]
RANK = {part: rank for rank, (_, parts) in enumerate(LAYERS) for part in parts}


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        yield path, parts


def _imports(path: pathlib.Path, parts: tuple[str, ...]):
    """``(line, imported xdiv module parts, names)`` of every import, at any depth."""
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - (node.level - 1)])
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "xdiv":
                target = node.module.split(".")[1:]
            else:
                continue
            yield node.lineno, tuple(target), [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "xdiv":
                    yield node.lineno, tuple(alias.name.split(".")[1:]), []


def _rank(parts: tuple[str, ...], names=()) -> int:
    if not parts:  # "from .. import x": the package's submodule x
        return min((RANK[n] for n in names if n in RANK), default=RANK["__init__"])
    return RANK[parts[0]]


def test_every_module_has_a_layer():
    assert [p for _, p in _modules() if p[0] not in RANK] == []


def test_imports_go_down_the_layers():
    upward = []
    for path, parts in _modules():
        mine = _rank(parts)
        for line, target, names in _imports(path, parts):
            theirs = _rank(target, names)
            if theirs > mine:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports "
                              f"xdiv.{'.'.join(target) or names} ({LAYERS[theirs][0]} "
                              f"above {LAYERS[mine][0]})")
    assert upward == []


def test_no_private_name_crosses_a_module():
    leaks = [f"{path.relative_to(ROOT)}:{line} {name}"
             for path, parts in _modules() for line, _, names in _imports(path, parts)
             for name in names if name.startswith("_") and not name.startswith("__")]
    assert leaks == []


def test_the_model_reads_no_file():
    readers = [f"{path.relative_to(ROOT)}:{line}" for path, parts in _modules()
               if parts[0] == "core" for line, target, names in _imports(path, parts)
               if target[:1] == ("io",) or "io" in names]
    assert readers == []


def test_option_vocabularies_are_spelled_once():
    """A tuple, list or set of two or more strings of one vocabulary, or a Literal of
    strings, is spelled only in xdiv/typing.py."""
    sets = [set(typing.get_args(value)) for value in vars(vocabularies).values()
            if typing.get_origin(value) is typing.Literal]
    spelled = []
    for path, parts in _modules():
        if parts == ("typing",):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
                strings = {v for v in values if isinstance(v, str)}
                if len(strings) >= 2 and len(values) == len(node.elts) and any(
                        strings <= vocabulary for vocabulary in sets):
                    spelled.append(f"{path.relative_to(ROOT)}:{node.lineno} {sorted(strings)}")
            elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                  and node.value.id == "Literal"):
                spelled.append(f"{path.relative_to(ROOT)}:{node.lineno} Literal[...]")
    assert spelled == []


def test_kernels_keep_no_module_state():
    """The numpy kernels are pure: no module-level dict, list or set (caches are passed
    in by their callers)."""
    mutable = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
    state = []
    for path, parts in _modules():
        if parts[0] != "kernels":
            continue
        for node in ast.parse(path.read_text()).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, mutable) or (
                    isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                    and value.func.id in ("dict", "list", "set", "OrderedDict")):
                state.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert state == []


def test_data_is_checked_once_at_the_entry_point(monkeypatch):
    """xdiv.evaluate (and the ndeval layout built on it) checks runs and collection once,
    then hands the checked data down."""
    import warnings

    import xdiv.core.collection as collection_model
    import xdiv.core.judge as judge_model
    from xdiv.official.ndeval_tool.report import ndeval_report

    collection, runs = xdiv.datasets.synthetic(n_topics=5, n_runs=2, depth=10, seed=0)
    calls = []
    for module, name in ((collection_model, "check_collection"), (judge_model, "check_runs")):
        real = getattr(module, name)

        def counted(*args, real=real, name=name, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)

        for loaded in [m for n, m in list(__import__("sys").modules.items())
                       if n.startswith("xdiv") and getattr(m, name, None) is real]:
            monkeypatch.setattr(loaded, name, counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ndeval_report(collection, runs)
    assert sorted(calls) == ["check_collection", "check_runs"]
