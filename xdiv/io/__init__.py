"""Every file format xdiv reads or writes, and nothing else (see :mod:`xdiv.io.api`).

The public names of :mod:`xdiv.io.api` load on first use, so that importing one of the
lean modules of this package (what the plain readers of the official-format commands
use) does not load pandas, xarray or pyarrow; so do the public names of the readers kept
apart (:data:`_ELSEWHERE`).
"""

from importlib import import_module

_ELSEWHERE = {"read_prels": ".prels"}
"""The public names of this package's modules other than :mod:`xdiv.io.api`, with their
module."""


def __getattr__(name: str):
    if name in _ELSEWHERE:
        value = getattr(import_module(_ELSEWHERE[name], __name__), name)
        globals()[name] = value
        return value
    api = import_module(".api", __name__)
    if name == "__all__":
        value = [*api.__all__, *_ELSEWHERE]
        globals()[name] = value
        return value
    if name in api.__all__:
        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(import_module(".api", __name__).__all__)
                  | set(_ELSEWHERE))
