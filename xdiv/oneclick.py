r"""1CLICK evaluation: the nugget-based measures of a system's text output for a question
(Sakai, Kato & Song, "Click the search button and be happy: evaluating direct and
immediate information access", CIKM 2011), as NTCIREVAL's ``ntcir_eval 1click`` and its
1CLICK scripts compute them.

:func:`read_nuggets` reads the gold-standard nuggets of every question (the
``.nuggets`` file), :func:`read_matches` the match files of the runs (the nuggets each
output contains and where), and :func:`evaluate` scores every run on every question:
``score(metric, run, topic)``, the cube :func:`xdiv.evaluate` gives for ranked lists, so
that :func:`xdiv.summarize`, :func:`xdiv.compare` and the ``.xdiv`` accessors take it.

With nugget weights $w_i$ and vital string lengths $v_i$ ($N$ nuggets), the matched
nuggets $M$ at offsets $o_i$ in an output of $|X|$ characters, and $o^*_i$ the offset at
which nugget $i$ ends in the pseudo minimal output (every nugget's vital string, by
decreasing weight, ties by increasing length):

* ``Recall`` = $|M| / N$; ``W-recall`` = $\sum_{i \in M} w_i / \sum_i w_i$;
* ``S-measure`` (alias ``S``) = $\sum_{i \in M} w_i \max(0, L - o_i) /
  \sum_i w_i \max(0, L - o^*_i)$, with the patience $L$ (characters the user reads);
  ``S-flat`` = $\min(1, S)$;
* ``T-measure`` (alias ``T``) = $\sum_{i \in M} v_i / |X|$ (0 when $|X| = 0$);
  ``T-flat`` = $\min(1, T)$;
* ``F-flat`` = $(1 + \beta^2) T_\flat S_\flat / (\beta^2 T_\flat + S_\flat)$, 0 when
  both are 0.

The values agree with ``ntcir_eval 1click`` on every input it accepts (where the
S-measure's denominator is 0, because the heaviest nugget's vital string is at least
$L$ characters long, the S-measure is ``inf`` or NaN as there).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np
import xarray as xr

from .core.labels import object_strings, to_json
from .errors import InputError, MeasureError
from .io.oneclick import read_matches, read_nuggets
from .kernels.oneclick import matched
from .measures.oneclick import (ALIASES, BETA, MEASURES, ONECLICK, PATIENCE, parse_oneclick,
                                resolved)
from .measures.registry import Measure

__all__ = ["ALIASES", "MEASURES", "ONECLICK", "evaluate", "parse_oneclick", "read_matches",
           "read_nuggets"]

PathLike = str | os.PathLike


def _names(measures: str | Measure | Iterable[str | Measure] | None) -> list:
    if measures is None:
        return list(MEASURES)
    names = [measures] if isinstance(measures, (str, Measure)) else list(measures)
    if not names:
        raise MeasureError("no 1CLICK measure asked for")
    return names


def evaluate(nuggets: xr.Dataset | PathLike, matches: xr.Dataset | PathLike | Iterable[PathLike],
             measures: str | Iterable[str | Measure] | None = None, *, L: int | None = None,
             beta: float | None = None) -> xr.Dataset:
    """Score every run's output on every question with the 1CLICK measures.

    Parameters
    ----------
    nuggets : xarray.Dataset or path
        The gold nuggets (:func:`read_nuggets`) or their ``.nuggets`` file.
    matches : xarray.Dataset, path or list of paths
        The runs' matches (:func:`read_matches`, on these nuggets) or their files, read
        with the nuggets (``first_match="position"``; read them yourself for the other
        rule).
    measures : str or list of str, optional
        1CLICK measure names: ``Recall``, ``W-recall``,
        ``S-measure`` (``S``), ``S-flat``, ``T-measure`` (``T``), ``T-flat`` and
        ``F-flat``, with their parameters: ``L`` (S-measure, S-flat, F-flat) and
        ``beta`` (F-flat), e.g. ``"S-measure(L=1000)"``. By default the seven, in the
        order ``ntcir_eval 1click`` prints them.
    L : int, optional
        The patience of the measures that do not give theirs (``ntcir_eval -L``): the
        number of characters the user reads, a whole number >= 1 (NTCIREVAL's README
        takes 1000, what an average Japanese user reads in two minutes; its
        ``1CLICK-eval`` script sets 500). Required when such a measure is asked for.
    beta : float, optional
        F-flat's ``beta`` where the name does not give it (``ntcir_eval -beta``; 1 by
        default): beta > 1 favours S-flat.

    Returns
    -------
    xarray.Dataset
        ``score(metric, run, topic)`` (float64), each measure labelled by the name it
        was asked by, with the ``canonical(metric)`` coordinate its full name (the ``L``
        and ``beta`` it was computed with) and ``params(metric)`` its parameters as
        JSON; ``n_nuggets(topic)``, ``n_matched(run, topic)`` and ``length(run, topic)``,
        the counts ``ntcir_eval 1click`` prints first. Attributes: ``xdiv_kind =
        "scores"``, ``measures = "1click"``, ``nuggets`` and ``runs`` (the files read),
        ``first_match`` and ``topics_not_in_runs`` (JSON: the questions a run has no
        line for, scored as an empty output).

    Raises
    ------
    MeasureError
        A name that is not a 1CLICK measure, an unknown parameter (``Recall(L=5)``), a
        bad value (``L=0``, ``beta=-1``), a measure asked twice, or no patience for a
        measure that needs one.
    InputError
        Matches not read on these nuggets.

    Examples
    --------
    NTCIREVAL's sample (README.1click), with its ``1CLICK-eval``'s patience:

    >>> import pathlib, tempfile
    >>> import xdiv
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name)
    >>> _ = (path / "test.nuggets").write_text(
    ...     "1C0-0001 N0001 3 10\\n1C0-0001 N0002 1 5\\n1C0-0001 N0003 3 5\\n"
    ...     "1C0-0002 N0001 2 2\\n1C0-0002 N0002 6 5\\n1C0-0002 N0003 2 3\\n"
    ...     "1C0-0002 N0004 2 2\\n")
    >>> _ = (path / "1CLICKRUN-D-1").write_text(
    ...     "1C0-0001 syslen= 500\\n1C0-0001 N0001 100\\n1C0-0001 N0002 50\\n"
    ...     "1C0-0002 syslen= 10\\n1C0-0002 N0002 400\\n")
    >>> scores = xdiv.oneclick.evaluate(path / "test.nuggets", path / "1CLICKRUN-D-1",
    ...                                 L=500)
    >>> scores["score"].sel(run="1CLICKRUN-D-1").round(3).to_pandas()
    topic      1C0-0001  1C0-0002
    metric
    Recall        0.667     0.250
    W-recall      0.571     0.500
    S-measure     0.482     0.101
    S-flat        0.482     0.101
    T-measure     0.030     0.500
    T-flat        0.030     0.500
    F-flat        0.056     0.169
    >>> scores["canonical"].values.tolist()[2]
    'S-measure(L=500)'
    >>> folder.cleanup()
    """
    for param, value in ((PATIENCE, L), (BETA, beta)):
        if value is not None:
            param.parse(value, "xdiv.oneclick.evaluate")
    if not isinstance(nuggets, xr.Dataset):
        nuggets = read_nuggets(nuggets)
    if not isinstance(matches, xr.Dataset):
        matches = read_matches(matches, nuggets)
    _check_aligned(nuggets, matches)
    asked = _names(measures)
    parsed = [resolved(parse_oneclick(name), L, beta) for name in asked]
    labels = [name.strip() if isinstance(name, str) else name.name for name in asked]
    for k, label in enumerate(labels):
        if label in labels[:k] or parsed[k].name in [m.name for m in parsed[:k]]:
            raise MeasureError(f"{label}: asked for twice")
    weight = np.nan_to_num(nuggets["weight"].values, nan=0.0)
    vital = nuggets["vital"].values
    offset = matches["offset"].values
    length = matches["length"].values
    values = np.stack([m.definition.compute(weight, vital, offset, length, m)
                       for m in parsed]).astype(np.float64)
    cube = ("metric", "run", "topic")
    return xr.Dataset(
        {"score": (cube, values),
         "params": ("metric", object_strings([to_json(m.params) for m in parsed])),
         "n_nuggets": nuggets["n_nuggets"].astype(np.int64),
         "n_matched": (("run", "topic"), matched(offset).sum(axis=-1)),
         "length": matches["length"]},
        coords={"metric": object_strings(labels),
                "canonical": ("metric", object_strings([m.name for m in parsed])),
                "run": matches["run"].values, "topic": nuggets["topic"].values},
        attrs={"xdiv_kind": "scores", "measures": "1click",
               "nuggets": nuggets.attrs.get("source", ""), "runs": matches.attrs["runs"],
               "first_match": matches.attrs["first_match"],
               "topics_not_in_runs": matches.attrs["topics_not_in_runs"]})


def _check_aligned(nuggets: xr.Dataset, matches: xr.Dataset) -> None:
    """``matches`` were read on ``nuggets`` (the same questions and nuggets)."""
    if nuggets.attrs.get("xdiv_kind") != "nuggets":
        raise InputError("nuggets must be a path or the dataset of xdiv.oneclick.read_nuggets")
    if matches.attrs.get("xdiv_kind") != "matches":
        raise InputError("matches must be paths or the dataset of xdiv.oneclick.read_matches")
    same = (list(map(str, matches["topic"].values)) == list(map(str, nuggets["topic"].values))
            and np.array_equal(matches["nugget_id"].values.astype(str),
                               nuggets["nugget_id"].values.astype(str)))
    if not same:
        raise InputError(f"the matches were read on other nuggets "
                         f"({matches.attrs.get('nuggets', '')!r}, not "
                         f"{nuggets.attrs.get('source', '')!r}): read them with "
                         "read_matches(paths, nuggets)")
