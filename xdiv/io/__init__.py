"""Every file format xdiv reads or writes, and nothing else (see :mod:`xdiv.io.api`).

The public names of :mod:`xdiv.io.api` load on first use, so that importing one of the
lean modules of this package (the plain readers of the official-format commands) does
not load pandas, xarray or pyarrow.
"""

from importlib import import_module


def __getattr__(name: str):
    api = import_module(".api", __name__)
    if name == "__all__" or name in api.__all__:
        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(import_module(".api", __name__).__all__))
