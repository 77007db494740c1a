"""xdiv's measures inside ir_measures (and so inside PyTerrier's ``pt.Experiment``).

Importing this module registers :data:`provider`, an ir_measures provider named
``"xdiv"``, in ir_measures' registry of providers (``ir_measures.providers.registry``)
and appends it to ``ir_measures.DefaultPipeline``, the pipeline behind
``ir_measures.calc_aggregate``, ``iter_calc``, ``calc`` and ``evaluator`` (and behind
PyTerrier's ``pt.Experiment``, Macdonald & Tonellotto, ICTIR 2020). ir_measures
(MacAvaney, Macdonald & Ounis, ECIR 2022) documents no plugin mechanism for third-party
providers (no entry point; version 0.4.3 builds ``DefaultPipeline`` from a fixed list),
so registering on import is the mechanism. Importing :mod:`xdiv` does not import this
module, nor ir_measures.

The provider computes

* **ir_measures' own diversity measures**, those its pyndeval provider supports
  (``alpha_DCG``, ``alpha_nDCG``, ``ERR_IA``, ``nERR_IA``, ``NRBP``, ``nNRBP``, ``AP_IA``,
  ``P_IA``, ``StRecall``, with ``cutoff``, ``alpha``, ``beta``), each translated by
  :func:`xdiv.measures.names.translate` to the registry measure with ndeval's definition
  (``alpha_nDCG@20`` is ``alpha-nDCG@20``, ``StRecall@20`` is ``I-rec@20``). Their ``rel``
  and ``judged_only`` parameters are honoured as pyndeval's provider honours them:
  ``rel=r`` reads levels >= r as relevant and the others as non-relevant (the qrels are
  made binary at r), ``judged_only=True`` drops the documents without a qrels line for
  the topic from the run before ranking it, as that provider filters the run (a document
  whose levels are all negative stays, where ``xdiv.evaluate(..., judged_only=True)``,
  like trec_eval ``-J``, drops it as unjudged). Measures
  ir_measures puts before xdiv in its pipeline keep their provider: with pyndeval
  installed, ``ir_measures.calc_aggregate`` still computes these through pyndeval; ask
  :data:`provider` (or ``ir_measures.providers.registry["xdiv"]``) directly for xdiv's
  numbers, e.g. for cutoffs above 20, which pyndeval refuses;
* **every measure of xdiv's registry** as an ir_measures measure object made by
  :func:`xdiv_measure` (``xdiv_measure("D#-nDCG@10")``, ``xdiv_measure("alpha-nDCG(
  ndeval=False)@20")``) or taken from this module's attributes (``Dsharp_nDCG@10``,
  ``D_nDCG``, ``I_rec``, ``DINsharp_nDCG``, ``PplusQ``, ``nDCG_IA``, ...: the registry
  name with ``#`` spelled ``sharp``, ``+`` ``plus`` and ``-`` ``_``). Such an object
  prints as its registry name (``str(m) == "D#-nDCG(gamma=0.7)@10"``); where the registry
  name is also an ir_measures measure name with another definition (``nDCG``, ``AP``,
  ``P``, ``RR``, ``ERR``, ``RBP``, ``NRBP``, ...) it prints with the prefix ``xdiv.``
  (``xdiv.nDCG@10``), since ir_measures tells measures apart by their printed name.
  ``m.registry_measure()`` gives the registry measure, for :func:`xdiv.evaluate`.

Inputs, read **by label**, never by position: qrels and runs in any form ir_measures
accepts (a pandas DataFrame with ``query_id``, ``doc_id``, ``relevance`` and the
subtopic as ``iteration``, or ``subtopic_id`` as ir_datasets names it; a dict of dicts;
an iterable of ``ir_measures.Qrel`` / ``ScoredDoc`` namedtuples such as
``ir_measures.read_trec_qrels`` and ``read_trec_run`` give), and runs likewise with
``query_id``, ``doc_id``, ``score``. ir_measures' diversity qrels carry the subtopic in
``iteration`` (its pyndeval provider reads it as the subtopic id); a TREC diversity qrels
file read by ``ir_measures.read_trec_qrels`` has it there. Qrels without a subtopic (a
dict of dicts, adhoc qrels) give one intent per topic, and the provider warns once, as
pyndeval's does (the :class:`~xdiv.errors.SingleIntentWarning` of
:func:`xdiv.evaluate`). Labels are compared as strings (query ids ``1`` and ``"1"`` are one
topic); the metrics carry the qrels' own query ids.

Conventions, those of ir_measures:

* **Ranking.** A run is ranked by score, descending. Ties are broken by docno
  *ascending* for ir_measures' measures, as its pyndeval provider ranks them (ndeval's C
  code sorts ties by docno; ``translate(...).order``), and by docno *descending* for
  xdiv's own measures, as :func:`xdiv.read_runs` ranks by default (trec_eval's order).
  ``XdivProvider(order=...)`` imposes one order on all measures.
* **Topics.** Every topic of the qrels is scored, in every run: a topic the run lacks
  scores 0 (``trec_eval -c``), a topic of the run that is not in the qrels is ignored. A
  topic without any relevant document scores 0 (ir_measures' providers do; pyndeval
  gives 0 too, except NaN for nNRBP), where :func:`xdiv.evaluate` gives NaN; so means
  over topics are ir_measures' means.
* ``calc_aggregate`` is the mean of the per-topic values ``iter_calc`` yields.

What ir_measures' qrels and runs do not carry is given to a provider of one's own:
``XdivProvider(topics="wt09.topics.full.xml")`` (intent types, for Ef-P, DIN-*, P+Q),
``probabilities="nonuniform"`` (intent probabilities), ``doc_lengths=...`` (the
U-measures, which otherwise stop with an error saying so) or ``prepare=`` (any function
of the collection, e.g. ``lambda c: xdiv.attach_hierarchy(c, "hierarchy.txt")``);
call its ``calc_aggregate``, ``iter_calc`` or ``evaluator`` directly.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import ir_measures
import pandas as pd
import xarray as xr
from ir_measures.measures import Measure as IrMeasure
from ir_measures.measures import ParamInfo
from ir_measures.providers import Evaluator, Provider, PyNdEvalProvider
from ir_measures.util import Metric, QrelsConverter, RunConverter

from ..accessors import frame_to_collection, frame_to_runs
from ..core.labels import from_json
from ..engine import evaluate
from ..errors import InputError, MeasureError, SingleIntentWarning
from ..io.api import set_doc_lengths
from ..io.topics import read_topics
from ..measures.names import TREC, translate
from ..measures.registry import (SINGLE_INTENT_FAMILY, Measure, format_value, parse_measure,
                                  registry)
from ..typing import ORDERS

__all__ = [
    "IR_MEASURES_NAMES", "XdivEvaluator", "XdivMeasure", "XdivProvider", "provider",
    "register", "xdiv_measure",
    # registry measures as ir_measures measure objects (no cutoff: add one with @k)
    "D_Q", "D_nDCG", "DIN_Q", "DIN_nDCG", "DINsharp_Q", "DINsharp_nDCG", "Dsharp_Q",
    "Dsharp_nDCG", "Ef_P", "I_rec", "PplusQ", "PplusQsharp", "Q_IA", "nDCG_IA",
]

IR_MEASURES_NAMES = frozenset(m.NAME for m in PyNdEvalProvider.SUPPORTED_MEASURES)
"""The ir_measures measures (``NAME``) the provider computes: those of ir_measures'
pyndeval provider, the diversity measures ir_measures has."""

PREFIX = "xdiv."
"""What an xdiv measure object's printed name starts with when its registry name is also
an ir_measures measure name (``xdiv.nDCG@10``)."""

RUN_LABEL = "run"
"""The run label of the runs built from one ir_measures run."""


# ------------------------------------------------------------------ measures

class XdivMeasure(IrMeasure):
    """A measure of xdiv's registry as an ir_measures measure.

    One subclass per registry measure (made by :func:`xdiv_measure`); its parameters are
    the registry measure's and ``cutoff`` (``@k``). It prints as the registry's canonical
    name, with the prefix :data:`PREFIX` where that name is also an ir_measures measure
    name. Only the provider of this module computes it.
    """

    REGISTRY_NAME: ClassVar[str] = ""
    PREFIXED: ClassVar[bool] = False
    SUPPORTED_PARAMS: ClassVar[dict[str, ParamInfo]] = {}

    def spelling(self) -> str:
        """The registry spelling of this measure (``D#-nDCG(gamma=0.7)@10``), unchecked."""
        parts = [f"{k}={format_value(v)}" for k, v in self.params.items() if k != "cutoff"]
        text = self.REGISTRY_NAME + (f"({','.join(parts)})" if parts else "")
        cutoff = self.params.get("cutoff")
        return text + (f"@{cutoff}" if cutoff is not None else "")

    def registry_measure(self) -> Measure:
        """The registry measure (:func:`xdiv.parse_measure`), for :func:`xdiv.evaluate`.

        Raises
        ------
        MeasureError
            Unknown parameter, bad value, a missing or unwanted cutoff.
        """
        return parse_measure(self.spelling())

    def validate_params(self) -> None:
        """Check the parameters as the registry does (raises
        :class:`~xdiv.errors.MeasureError`, e.g. ``D#-nDCG needs a cutoff``)."""
        if not self.validated:
            self.registry_measure()
            self.validated = True

    def __repr__(self) -> str:
        # ir_measures hashes and compares measures by their repr, often: computed once
        # (ir_measures never changes a measure's params; __call__ and @ make new ones)
        shown = self.__dict__.get("_shown")
        if shown is None or shown[0] != self.params:
            try:
                name = self.registry_measure().name
            except MeasureError:
                name = self.spelling()
            shown = (dict(self.params), (PREFIX + name) if self.PREFIXED else name)
            self.__dict__["_shown"] = shown
        return shown[1]


_CLASSES: dict[str, type[XdivMeasure]] = {}


def _measure_class(base: str) -> type[XdivMeasure]:
    """The :class:`XdivMeasure` subclass of registry measure ``base`` (made once)."""
    if base not in _CLASSES:
        definition = registry()[base]
        params = {p.name: ParamInfo(default=p.default, desc=p.doc) for p in definition.params}
        if definition.cutoff != "none":
            params["cutoff"] = ParamInfo(dtype=int, required=definition.cutoff == "required",
                                         desc="ranking cutoff threshold")
        prefixed = base in frozenset(ir_measures.measures.registry)
        shown = (PREFIX if prefixed else "") + base
        _CLASSES[base] = type(f"XdivMeasure[{base}]", (XdivMeasure,), {
            "REGISTRY_NAME": base, "PREFIXED": prefixed, "NAME": shown, "__name__": shown,
            "SUPPORTED_PARAMS": params, "PRETTY_NAME": base,
            "SHORT_DESC": definition.summary, "__doc__": definition.doc,
            "__module__": __name__})
    return _CLASSES[base]


def xdiv_measure(name: str | Measure) -> XdivMeasure:
    """An xdiv registry measure as an ir_measures measure object.

    Parameters
    ----------
    name : str or Measure
        A registry name, with or without its cutoff: ``"D#-nDCG@10"``,
        ``"alpha-nDCG(ndeval=False)@20"``, ``"I-rec"`` (then ``xdiv_measure("I-rec")@20``,
        as with ir_measures' own objects).

    Returns
    -------
    XdivMeasure
        Usable wherever ir_measures takes a measure (``ir_measures.calc_aggregate``,
        ``pt.Experiment(eval_metrics=...)``) once this module is imported; ``str()`` is
        the registry name (see the module docstring for the ``xdiv.`` prefix).

    Raises
    ------
    MeasureError
        Unknown measure, parameter or value.
    """
    cutoff_given = True
    if isinstance(name, Measure):
        parsed = name
    else:
        try:
            parsed = parse_measure(name)
        except MeasureError as exc:
            if not isinstance(name, str) or "@" in name:
                raise
            try:  # a measure that needs a cutoff, asked without one: its family object
                parsed = parse_measure(f"{name}@1")
            except MeasureError:
                raise exc from None
            cutoff_given = False
    values: dict[str, Any] = {k: v for (k, v), p in zip(parsed.values, parsed.definition.params)
                              if v != p.default}
    if cutoff_given and parsed.cutoff is not None:
        values["cutoff"] = parsed.cutoff
    return _measure_class(parsed.definition.name)(**values)


D_nDCG = xdiv_measure("D-nDCG")
Dsharp_nDCG = xdiv_measure("D#-nDCG")
D_Q = xdiv_measure("D-Q")
Dsharp_Q = xdiv_measure("D#-Q")
DIN_nDCG = xdiv_measure("DIN-nDCG")
DINsharp_nDCG = xdiv_measure("DIN#-nDCG")
DIN_Q = xdiv_measure("DIN-Q")
DINsharp_Q = xdiv_measure("DIN#-Q")
PplusQ = xdiv_measure("P+Q")
PplusQsharp = xdiv_measure("P+Q#")
I_rec = xdiv_measure("I-rec")
Ef_P = xdiv_measure("Ef-P")
nDCG_IA = xdiv_measure("nDCG-IA")
Q_IA = xdiv_measure("Q-IA")


# ------------------------------------------------------------------ the provider

@dataclass(frozen=True)
class _Plan:
    """How one ir_measures measure is computed: a registry measure, the ranking order, the
    relevance threshold and whether unjudged documents are dropped first."""

    measure: Measure
    order: str
    rel: int
    judged_only: bool


class XdivProvider(Provider):
    """An ir_measures provider computing xdiv's measures (see the module docstring).

    Parameters
    ----------
    order : {"score-docno-desc", "score-docno-asc"}, optional
        One tie order for every measure; by default ir_measures' measures rank ties by
        docno ascending (as its pyndeval provider) and xdiv's by docno descending (as
        :func:`xdiv.read_runs`).
    topics : path-like or DataFrame, optional
        A TREC Web Track topic file (or :func:`xdiv.read_topics`' frame): the intent types
        (``nav``/``inf``) of Ef-P, DIN-* and P+Q; without it every intent is informational
        (xdiv warns).
    probabilities : {"uniform", "nonuniform"}, path-like or DataFrame
        Intent probabilities, as :func:`xdiv.read_qrels` takes them (default uniform).
    doc_lengths : path-like or DataFrame, optional
        Document lengths for the U-measures (:func:`xdiv.set_doc_lengths`).
    default_length : float, optional
        The length of relevant documents missing from ``doc_lengths``.
    prepare : callable, optional
        ``prepare(collection) -> collection``, applied last to the collection built from
        ir_measures' qrels (e.g. to attach an intent hierarchy).

    Raises
    ------
    InputError
        ``order`` is not a score order (ir_measures' runs have no rank column).
    """

    NAME = "xdiv"
    SUPPORTED_MEASURES: ClassVar[list] = []  # supports() is overridden: see IR_MEASURES_NAMES

    def __init__(self, *, order: str | None = None, topics=None,
                 probabilities="uniform", doc_lengths=None,
                 default_length: float | None = None,
                 prepare: Callable[[xr.Dataset], xr.Dataset] | None = None):
        super().__init__()
        if order is not None and (order not in ORDERS or not order.startswith("score")):
            raise InputError(f"order must be a score order of {ORDERS}, not {order!r} "
                             "(ir_measures' runs have no rank column)")
        self.order = order
        self.topics = read_topics(topics) if isinstance(topics, (str, os.PathLike)) else topics
        self.probabilities = probabilities
        self.doc_lengths = doc_lengths
        self.default_length = default_length
        self.prepare = prepare

    def supports(self, measure) -> bool:
        """Whether this provider computes ``measure`` (an :class:`XdivMeasure`, or one of
        :data:`IR_MEASURES_NAMES` with parameters xdiv translates)."""
        measure.validate_params()
        try:
            self.plan(measure)
        except MeasureError:
            return False
        return True

    def plan(self, measure) -> _Plan:
        """How ``measure`` is computed (raises :class:`~xdiv.errors.MeasureError` when this
        provider does not compute it, saying why)."""
        if isinstance(measure, XdivMeasure):
            return _Plan(measure.registry_measure(), self.order or TREC, 1, False)
        if getattr(measure, "NAME", None) not in IR_MEASURES_NAMES:
            raise MeasureError(f"the xdiv provider computes ir_measures' "
                               f"{', '.join(sorted(IR_MEASURES_NAMES))} and xdiv_measure() "
                               f"objects, not {measure}")
        params = dict(measure.params)
        rel = params.pop("rel", 1)
        judged_only = params.pop("judged_only", False)
        resolved = translate(type(measure)(**params))
        return _Plan(resolved.measure, self.order or resolved.order or TREC, int(rel),
                     bool(judged_only))

    def collection(self, qrels: pd.DataFrame) -> xr.Dataset:
        """The collection of a qrels frame (``query_id doc_id relevance iteration``), with
        this provider's topics, probabilities, document lengths and ``prepare``."""
        collection = frame_to_collection(qrels, topics=self.topics,
                                         probabilities=self.probabilities)
        if self.doc_lengths is not None:
            collection = set_doc_lengths(collection, self.doc_lengths,
                                         default=self.default_length)
        return self.prepare(collection) if self.prepare is not None else collection

    def _evaluator(self, measures, qrels) -> XdivEvaluator:
        measures = list(dict.fromkeys(measures))
        return XdivEvaluator(self, measures, [self.plan(m) for m in measures],
                             qrels_frame(qrels))

    def qrel_inputs(self, measures) -> list[str]:
        """The qrels fields read: ir_measures' three and the subtopic (``iteration``)."""
        return ["query_id", "doc_id", "relevance", "iteration"]

    def install_instructions(self) -> str:
        return "pip install xdiv"


class XdivEvaluator(Evaluator):
    """Scores runs against one set of qrels (built once) with :func:`xdiv.evaluate`."""

    def __init__(self, provider: XdivProvider, measures: list, plans: list[_Plan],
                 qrels: pd.DataFrame):
        self.query_ids = {str(q): q for q in qrels["query_id"].drop_duplicates().tolist()}
        super().__init__(measures, set(self.query_ids.values()))
        self.groups: dict[tuple[str, int, bool], dict[str, tuple[Measure, list]]] = {}
        for measure, plan in zip(measures, plans):
            group = self.groups.setdefault((plan.order, plan.rel, plan.judged_only), {})
            group.setdefault(plan.measure.name, (plan.measure, []))[1].append(measure)
        self.collections: dict[int, xr.Dataset] = {}
        self.warned = False
        """Whether xdiv.evaluate was asked for a diversity measure (and so gave its
        warning about qrels with one intent per topic, if it applies) by this evaluator."""
        self.lines = pd.MultiIndex.from_arrays([qrels["query_id"].astype(str),
                                                qrels["doc_id"]])
        if not self.query_ids:
            return
        for rel in {key[1] for key in self.groups}:
            frame = qrels if rel == 1 else qrels.assign(
                relevance=(qrels["relevance"] >= rel).astype("int64"))
            self.collections[rel] = provider.collection(frame)

    def _iter_calc(self, run) -> Iterator[Metric]:
        if not self.query_ids:
            return
        frame = run_frame(run, self.query_ids)
        if frame.empty:
            return  # every topic gets ir_measures' default, 0
        runs: dict[tuple[str, bool], xr.Dataset | None] = {}
        for (order, rel, judged_only), members in self.groups.items():
            if (order, judged_only) not in runs:
                # judged_only as ir_measures' pyndeval provider reads it: the documents
                # with a qrels line for the topic, whatever its level
                kept = frame[pd.MultiIndex.from_arrays(
                    [frame["query_id"], frame["doc_id"]]).isin(self.lines)] \
                    if judged_only else frame
                runs[order, judged_only] = None if kept.empty else \
                    frame_to_runs(kept, name=RUN_LABEL, order=order)
            if runs[order, judged_only] is None:  # no document left: ir_measures' default
                yield from (Metric(query_id=query_id, measure=measure, value=measure.DEFAULT)
                            for _, asked in members.values() for measure in asked
                            for query_id in self.query_ids.values())
                continue
            measures = [measure for measure, _ in members.values()]
            try:
                with warnings.catch_warnings():
                    if self.warned:  # xdiv.evaluate's warning about one intent, given once
                        warnings.simplefilter("ignore", SingleIntentWarning)
                    scores = evaluate(runs[order, judged_only], self.collections[rel],
                                      measures)
                self.warned = self.warned or any(
                    m.definition.family != SINGLE_INTENT_FAMILY for m in measures)
            except MeasureError as exc:
                raise MeasureError(f"{exc} (through ir_measures, give the collection what "
                                   "ir_measures' qrels lack with XdivProvider(topics=..., "
                                   "doc_lengths=..., prepare=...))") from None
            table = scores["score"].sel(run=RUN_LABEL).to_pandas()
            without = set(from_json(scores.attrs.get("topics_without_relevant", "[]")))
            for label, (_, asked) in members.items():
                row = table.loc[label]
                for topic, query_id in self.query_ids.items():
                    value = float(row[topic])
                    for measure in asked:
                        score = measure.DEFAULT if math.isnan(value) and topic in without \
                            else value
                        yield Metric(query_id=query_id, measure=measure, value=score)


# ------------------------------------------------------------------ inputs

def qrels_frame(qrels) -> pd.DataFrame:
    """ir_measures qrels of any form as a frame ``query_id doc_id relevance iteration``
    (``iteration``: the subtopic, from ``iteration`` or ``subtopic_id``; ``"0"`` if
    neither is given).

    Raises
    ------
    InputError
        A column is lacking, or the frame holds both ``iteration`` and ``subtopic_id``.
    ValueError
        ir_measures cannot read ``qrels`` (its own message).
    """
    frame = qrels if isinstance(qrels, pd.DataFrame) else \
        QrelsConverter(qrels).as_pd_dataframe()
    lacking = [c for c in ("query_id", "doc_id", "relevance") if c not in frame.columns]
    if lacking:
        raise InputError(f"ir_measures qrels need the field(s) {lacking}; they have "
                         f"{list(frame.columns)}")
    intents = [c for c in ("iteration", "subtopic_id") if c in frame.columns]
    if len(intents) > 1:
        raise InputError("ir_measures qrels have both 'iteration' and 'subtopic_id'; keep "
                         "the one holding the subtopic")
    relevance = frame["relevance"]
    if pd.api.types.is_float_dtype(relevance) and (relevance % 1 == 0).all():
        relevance = relevance.astype("int64")  # e.g. 1.0 from a frame with missing values
    return pd.DataFrame({
        "query_id": frame["query_id"].to_numpy(), "doc_id": frame["doc_id"].astype(str),
        "relevance": relevance.to_numpy(),
        "iteration": frame[intents[0]].astype(str) if intents else "0"})


def run_frame(run, query_ids: Iterable[str]) -> pd.DataFrame:
    """An ir_measures run of any form as a frame ``query_id doc_id score`` (labels as
    strings), restricted to the topics ``query_ids``.

    Raises
    ------
    InputError
        A column is lacking.
    ValueError
        ir_measures cannot read ``run`` (its own message).
    """
    frame = run if isinstance(run, pd.DataFrame) else RunConverter(run).as_pd_dataframe()
    lacking = [c for c in ("query_id", "doc_id", "score") if c not in frame.columns]
    if lacking:
        raise InputError(f"an ir_measures run needs the field(s) {lacking}; it has "
                         f"{list(frame.columns)}")
    out = pd.DataFrame({"query_id": frame["query_id"].astype(str).to_numpy(dtype=object),
                        "doc_id": frame["doc_id"].astype(str).to_numpy(dtype=object),
                        "score": frame["score"].to_numpy()})
    return out[out["query_id"].isin(set(query_ids))].reset_index(drop=True)


# ------------------------------------------------------------------ registration

provider = XdivProvider()
"""The provider registered in ir_measures (``ir_measures.providers.registry["xdiv"]``)."""


def register(instance: XdivProvider | None = None) -> XdivProvider:
    """Register ``instance`` (default :data:`provider`) in ir_measures: in its registry of
    providers under ``"xdiv"`` and last in ``ir_measures.DefaultPipeline``, replacing an
    earlier xdiv provider there (idempotent). Done on import of this module."""
    instance = provider if instance is None else instance
    ir_measures.providers.register(instance)
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [p for p in pipeline if getattr(p, "NAME", None) != instance.NAME]
    pipeline.append(instance)
    return instance


register()
