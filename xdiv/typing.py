"""The option vocabularies of xdiv, each spelled once as a :data:`~typing.Literal` type
with the tuple of its values (as xarray's ``core/types.py`` does): signatures, checks
and command-line choices all read them from here."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "ADHOC_METHODS", "AdhocMethod", "COMPARE_CIS", "COMPARE_CORRECTIONS",
    "COMPARE_FAMILIES", "COMPARE_TESTS", "CompareCI", "CompareCorrection", "CompareFamily",
    "CompareTest", "CUBE_KINDS", "CUTOFF_RULES", "CubeKind", "CutoffRule",
    "DESIGN_TESTS", "DUPLICATES", "DesignTest", "Duplicates", "EQRELS_FORMAT", "EqrelsFormat",
    "FIRST_MATCHES", "FirstMatch", "HIERARCHY_KINDS",
    "HierarchyKind", "IMINE_LEVELS", "ImineLevels", "LEVEL_RANGE", "MAX_CUTOFF", "MAXT_CORRECTIONS",
    "META_TESTS", "MISSING",
    "MetaTest",
    "Missing", "TIES", "Ties", "NODE_WEIGHTS", "NodeWeights", "ORDERS", "ORDER_HELP", "Order",
    "PROBABILITY_SCHEMES", "QRELS_FORMATS", "QrelsFormat", "RANK_CORRELATIONS", "RankCorrelation",
    "PAIR_VARIANCES", "PairVariance", "ProbabilityScheme", "PVALUE_RULES", "PValueRule",
    "RESAMPLING_TESTS",
    "SCORE_FORMATS", "ScoreFormat",
    "STANDARDISE_METHODS", "StandardiseMethod",
    "TABLE_FORMATS", "TOOLS", "TableFormat", "Tool",
    "MIXED_ADJUSTMENTS", "MIXED_SCALES", "MixedAdjustment", "MixedScale",
]

Order = Literal["score-docno-desc", "score-docno-asc", "rank"]
"""How a run's documents are ranked: by score with ties by docno descending (trec_eval,
the default) or ascending, or by the rank column (ndeval)."""
ORDERS: tuple[Order, ...] = get_args(Order)
ORDER_HELP = ("ranking of a run's documents: by score, ties by docno descending (trec_eval, "
              "gdeval, ndeval -traditional), by score with ties by docno ascending "
              "(pyndeval), or by the rank column (ndeval's default), ties by score")
"""The ranking conventions in one sentence, for help texts."""

Duplicates = Literal["error", "first"]
"""What a document listed twice for a topic in one run does: refuse the run, or keep its
first (best-ranked) occurrence."""
DUPLICATES: tuple[Duplicates, ...] = get_args(Duplicates)

FirstMatch = Literal["position", "text"]
"""Which of a nugget's matches in a 1CLICK match file counts: the one at the smallest
offset, or the one whose offset comes first as text (as NTCIREVAL's 1CLICK-splitmatch
sorts them: 30 before 7)."""
FIRST_MATCHES: tuple[FirstMatch, ...] = get_args(FirstMatch)

AdhocMethod = Literal["max", "count"]
"""One level per document from diversity qrels: its highest over the intents, or the
number of intents it is relevant to."""
ADHOC_METHODS: tuple[AdhocMethod, ...] = get_args(AdhocMethod)

Missing = Literal["zero", "nan"]
"""The score of a run on a judged topic it retrieved nothing for."""
MISSING: tuple[Missing, ...] = get_args(Missing)

Ties = Literal["expected", "range"]
"""How :func:`xdiv.evaluate` scores runs with tied scores over the orders of their tie
groups: the expectation, or the lowest and highest score."""
TIES: tuple[Ties, ...] = get_args(Ties)

ProbabilityScheme = Literal["uniform", "nonuniform"]
"""Intent probabilities by name: uniform, or Sakai & Song's non-uniform scheme."""
PROBABILITY_SCHEMES: tuple[ProbabilityScheme, ...] = get_args(ProbabilityScheme)

QrelsFormat = Literal["trec", "ntcir"]
"""The file format of qrels: TREC's, or NTCIREVAL's (Dqrels and Iprob/DINprob files)."""
QRELS_FORMATS: tuple[QrelsFormat, ...] = get_args(QrelsFormat)
EqrelsFormat = Literal["ntcir-eqrels"]
"""NTCIREVAL's eqrels (adhoc qrels with equivalence classes), which :func:`xdiv.read_qrels`
reads besides :data:`QRELS_FORMATS`."""
EQRELS_FORMAT: EqrelsFormat = get_args(EqrelsFormat)[0]

CutoffRule = Literal["required", "optional", "none"]
"""Whether a measure's name takes a cutoff ``@l``."""
CUTOFF_RULES: tuple[CutoffRule, ...] = get_args(CutoffRule)
LEVEL_RANGE = (-127, 127)
"""The qrels levels a collection holds (int8, :func:`xdiv.build_collection`); the plain
readers of the official-format commands take no other."""
MAX_CUTOFF = 100_000
"""The largest cutoff a name may give (far past the depth of TREC and NTCIR runs); ndeval's
measures build arrays as long as the cutoff."""

Tool = Literal["trec_eval", "ir_measures"]
"""Other tools whose measure names xdiv reads."""
TOOLS: tuple[Tool, ...] = get_args(Tool)

HierarchyKind = Literal["OIH", "EIH"]
"""An intent hierarchy as given (original) or extended so every leaf is deepest."""
HIERARCHY_KINDS: tuple[HierarchyKind, ...] = get_args(HierarchyKind)

NodeWeights = Literal["UB", "UT", "NB", "NT"]
"""Uniform or non-uniform, top-down or bottom-up node weights of a hierarchy."""
NODE_WEIGHTS: tuple[NodeWeights, ...] = get_args(NodeWeights)

ImineLevels = Literal["ntcir", "raw"]
"""How NTCIR IMine relevance labels are read: NTCIR's L0-L4 mapping, or as written."""
IMINE_LEVELS: tuple[ImineLevels, ...] = get_args(ImineLevels)

CubeKind = Literal["scores", "meta"]
"""The kinds of result file that :func:`xdiv.open_cube` reads."""
CUBE_KINDS: tuple[CubeKind, ...] = get_args(CubeKind)

MetaTest = Literal["bootstrap", "tukey", "both"]
"""The significance tests of the discriminative-power meta-evaluation."""
META_TESTS: tuple[MetaTest, ...] = get_args(MetaTest)
RankCorrelation = Literal["kendall", "tau_ap", "tau_ap_sym", "tau_ap_b"]
"""The rank correlation coefficients of :func:`xdiv.meta.rank_correlation`."""
RANK_CORRELATIONS: tuple[RankCorrelation, ...] = get_args(RankCorrelation)

DesignTest = Literal["paired-t", "anova", "ci"]
"""The tests that topic-set-size design targets."""
DESIGN_TESTS: tuple[DesignTest, ...] = get_args(DesignTest)

PairVariance = Literal["pooled", "pair"]
"""The variance a pairwise design uses: pooled over the runs, or each pair's own."""
PAIR_VARIANCES: tuple[PairVariance, ...] = get_args(PairVariance)

TableFormat = Literal["table", "tsv", "csv"]
"""Text layouts of a result table."""
TABLE_FORMATS: tuple[TableFormat, ...] = get_args(TableFormat)

ScoreFormat = Literal["table", "tsv", "csv", "ndeval", "lines"]
"""Text layouts of a score cube: the result tables, ndeval's CSV layout and
``measure<TAB>topic<TAB>value`` lines (the columns of ``trec_eval -q``)."""
SCORE_FORMATS: tuple[ScoreFormat, ...] = get_args(ScoreFormat)

CompareTest = Literal["t", "wilcoxon", "sign", "permutation", "bootstrap", "tukey"]
"""The paired significance tests of :func:`xdiv.compare`: Student's t, Wilcoxon's
signed-rank test, the sign test, Fisher's randomisation (sign-flip permutation) test, the
paired bootstrap test and the randomised Tukey HSD test."""
COMPARE_TESTS: tuple[CompareTest, ...] = get_args(CompareTest)

CompareCorrection = Literal["bonferroni", "holm", "fdr_bh", "fdr_by", "maxt",
                            "maxt-stepdown"]
"""The multiple-comparison corrections of :func:`xdiv.compare`: statsmodels'
``multipletests`` methods, and Westfall & Young's permutation MaxT, single step or step
down."""
COMPARE_CORRECTIONS: tuple[CompareCorrection, ...] = get_args(CompareCorrection)
MAXT_CORRECTIONS: tuple[CompareCorrection, ...] = COMPARE_CORRECTIONS[-2:]
"""The corrections computed by resampling (Westfall & Young's MaxT)."""
RESAMPLING_TESTS: tuple[CompareTest, ...] = COMPARE_TESTS[3:]
"""The tests of :func:`xdiv.compare` computed by resampling (they need B and a seed)."""

CompareFamily = Literal["metric", "all"]
"""The family a correction of :func:`xdiv.compare` adjusts over: the comparisons of each
metric, or every metric's comparisons together."""
COMPARE_FAMILIES: tuple[CompareFamily, ...] = get_args(CompareFamily)

CompareCI = Literal["t", "bca"]
"""The confidence interval of a mean difference in :func:`xdiv.compare`: Student's t, or
the bootstrap's bias-corrected and accelerated (BCa) percentiles."""
COMPARE_CIS: tuple[CompareCI, ...] = get_args(CompareCI)

PValueRule = Literal["plus-one", "share"]
"""How a p-value is read off B random resamples of which ``c`` reach the observed
statistic: ``(c + 1) / (B + 1)`` (Phipson & Smyth, Statistical Applications in Genetics and
Molecular Biology 2010; never 0, the observed data counting as one resample) or the
share ``c / B`` (the ASL of Sakai, SIGIR 2006)."""
PVALUE_RULES: tuple[PValueRule, ...] = get_args(PValueRule)

StandardiseMethod = Literal["z", "cdf", "std-ab"]
"""How :func:`xdiv.stats.standardise` standardises a score per topic: the z-score against
the reference runs, its standard normal distribution function (Webber, Moffat & Zobel,
SIGIR 2008), or Sakai's linear map ``A z + B`` (ICTIR 2016)."""
STANDARDISE_METHODS: tuple[StandardiseMethod, ...] = get_args(StandardiseMethod)

MixedScale = Literal["linear", "logit"]
"""The scales :func:`xdiv.stats.mixed` models the scores on: as they are, or their logits
(the logit-normal model of bounded scores)."""
MIXED_SCALES: tuple[MixedScale, ...] = get_args(MixedScale)

MixedAdjustment = Literal["tukey", "bonferroni", "holm", "fdr_bh", "fdr_by", "none"]
"""The multiplicity adjustments of :func:`xdiv.stats.mixed`'s pairwise contrasts: the
single-step Tukey adjustment (as emmeans' ``adjust = "tukey"``), the ``multipletests``
corrections of :func:`xdiv.compare` (its MaxT corrections resample paired t statistics,
which a model has not), or none."""
MIXED_ADJUSTMENTS: tuple[MixedAdjustment, ...] = get_args(MixedAdjustment)
