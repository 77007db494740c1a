"""Intent hierarchies (Wang, Wen, Dou, Sakai & Zhang, IEEE TKDE 2018) as extra variables
of a collection.

A hierarchy is a tree per topic whose root is the query, whose leaves are the topic's
(atomic) intents and whose inner nodes are broader intents. :func:`attach_hierarchy`
adds, on a ``node`` dimension (node labels, unioned over topics like intents):

===================================  ===================================================
``node_exists(topic, node)``         the node is in the topic's tree
``node_parent(topic, node)``         parent label (``""`` for children of the root)
``node_layer(topic, node)``          1 for children of the root, 2 below, ... (0: absent)
``node_leaf(topic, node)``           the node is a leaf (an atomic intent)
``node_intent(topic, node)``         the intent a leaf stands for (``""`` otherwise)
``nodechecked_weight(topic, node)``         W(n) under the chosen weighting scheme
``node_covers(topic, node, intent)`` the node is the leaf of the intent or an ancestor
``node_level(topic, node, doc)``     relevance propagated upwards: max over children
``layerchecked_weight(topic, layer)``       w_h of the layer-aware measures (uniform default)
===================================  ===================================================

A flat collection is the height-1 hierarchy (:func:`flat_hierarchy`), with the intent
probabilities as node weights, so every hierarchical measure reduces to its flat
counterpart there.

Weights satisfy Property 6 in the form that every scheme of the paper fulfils: the root
weighs 1 and a parent weighs the *sum* of its children (so each layer of an extended
hierarchy sums to 1). The paper prints the parent as the *mean* of its
children, which neither UT nor NT can satisfy (UT gives each child W(p)/|C(p)|, whose
mean is W(p)/|C(p)|, not W(p)); UB and NB therefore aggregate by sum here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from .collection import check_collection
from ..errors import InputError, XdivWarning
from .labels import natural_sorted, object_strings, preview, to_json
from .._warnings import warn
from ..typing import HIERARCHY_KINDS, NODE_WEIGHTS, HierarchyKind, NodeWeights

Kind = HierarchyKind
Scheme = NodeWeights

__all__ = ["attach_hierarchy", "flat_hierarchy", "hierarchy_frame"]

_ROOTS = {"", "-", "nan", "None"}


def checked_weight(value, where: str, *, missing_ok: bool = False) -> float:
    """``value`` as a node weight: a non-negative finite number, or NaN (no weight) when
    ``missing_ok``; otherwise an :class:`InputError` starting with ``where``."""
    try:
        weight = float(value)
    except (TypeError, ValueError):
        weight = None
    if weight is None or weight < 0 or np.isinf(weight) or (np.isnan(weight)
                                                            and not missing_ok):
        raise InputError(f"{where}: weight {value!r} is not a non-negative finite number")
    return weight


def hierarchy_frame(tree: Mapping) -> pd.DataFrame:
    """A tidy hierarchy frame from nested plain dicts.

    ``{topic: {node: children}}`` where ``children`` is a dict of the same form, a leaf is
    ``None`` or an intent label (str), and a node may be a ``(label, weight)`` tuple.
    """
    rows = []

    def walk(topic, parent, children):
        for key, sub in children.items():
            label, weight = key if isinstance(key, tuple) else (key, np.nan)
            intent = sub if isinstance(sub, str) else ""
            rows.append((str(topic), str(label), parent, float(weight), intent))
            if isinstance(sub, Mapping):
                walk(topic, str(label), sub)

    for topic, children in tree.items():
        walk(topic, "", children)
    return pd.DataFrame(rows, columns=["topic", "node", "parent", "weight", "intent"])


class _Tree:
    """One topic's tree, validated: parent of every node, children, leaves, layers.

    ``source`` is the file the tree was read from (``None`` for a frame or dict); error
    messages start with :attr:`where`, which names it.
    """

    def __init__(self, topic: str, frame: pd.DataFrame, source: str | None = None):
        self.topic = topic
        self.where = (f"{source}: " if source else "") + f"hierarchy of topic {topic}"
        self.parent: dict[str, str] = {}
        self.weight: dict[str, float] = {}
        self.intent: dict[str, str] = {}
        for node, parent, weight, intent in frame[["node", "parent", "weight",
                                                   "intent"]].itertuples(index=False):
            node, parent = str(node), "" if str(parent) in _ROOTS else str(parent)
            if node in self.parent:
                raise InputError(f"{self.where}: node {node} is listed twice "
                                 f"(parents {self.parent[node] or 'root'} and {parent or 'root'})")
            self.parent[node] = parent
            self.weight[node] = checked_weight(weight, f"{self.where}: node {node}", missing_ok=True)
            self.intent[node] = str(intent) if isinstance(intent, str) and intent else ""
        for node, parent in self.parent.items():
            if parent and parent not in self.parent:
                raise InputError(f"{self.where}: node {node} has unknown parent {parent}")
        for node in self.parent:
            seen, cur = set(), node
            while cur:
                if cur in seen:
                    raise InputError(f"{self.where}: cycle through node {node}")
                seen.add(cur)
                cur = self.parent[cur]
        self._index()
        self.original_leaves = set(self.leaves)

    def _index(self):
        self.children: dict[str, list[str]] = {n: [] for n in [""] + list(self.parent)}
        for node, parent in self.parent.items():
            self.children[parent].append(node)
        self.layer = {}
        for node in self.parent:
            depth, cur = 0, node
            while cur:
                depth, cur = depth + 1, self.parent[cur]
            self.layer[node] = depth
        self.leaves = [n for n in self.parent if not self.children[n]]

    def leaf_intent(self, leaf: str) -> str:
        return self.intent[leaf] or leaf

    def extend(self) -> None:
        """OIH -> EIH: chains of single children bring every leaf to the deepest layer."""
        deepest = max(self.layer[n] for n in self.leaves)
        for leaf in list(self.leaves):
            cur = leaf
            for step in range(1, deepest - self.layer[leaf] + 1):
                child = f"{leaf}+{step}"
                self.parent[child], self.weight[child] = cur, self.weight[leaf]
                self.intent[child] = ""
                cur = child
            if cur != leaf:
                self.intent[cur], self.intent[leaf] = self.leaf_intent(leaf), ""
        self._index()

    def weights(self, scheme: Scheme) -> dict[str, float]:
        top_down = scheme.endswith("T")  # UT, NT top-down; UB, NB bottom-up
        out: dict[str, float] = {"": 1.0}
        if top_down:
            order = sorted(self.parent, key=lambda n: self.layer[n])
            for node in order:
                parent = self.parent[node]
                siblings = self.children[parent]
                if scheme == "UT":
                    out[node] = out[parent] / len(siblings)
                else:
                    given = np.array([self.weight[s] for s in siblings])
                    if np.isnan(given).any() or given.sum() <= 0:  # negatives: _weight
                        raise InputError(f"{self.where}: NT needs a weight for every node "
                                         f"(children of {parent or 'root'})")
                    out[node] = self.weight[node] * out[parent] / given.sum()
        else:
            if scheme == "UB":
                leaf = {n: 1.0 / len(self.leaves) for n in self.leaves}
            else:
                given = np.array([self.weight[n] for n in self.leaves])
                if np.isnan(given).any() or given.sum() <= 0:  # negatives: _weight
                    raise InputError(f"{self.where}: NB needs a weight for every leaf")
                leaf = {n: self.weight[n] / given.sum() for n in self.leaves}
            for node in sorted(self.parent, key=lambda n: -self.layer[n]):
                out[node] = leaf[node] if node in leaf else sum(out[c] for c in
                                                                 self.children[node])
        out.pop("")
        self._check_property_6(out, scheme)
        return out

    def _check_property_6(self, weight: dict[str, float], scheme: str) -> None:
        """Root weight 1 and every parent the sum of its children, else an error."""
        for parent, children in self.children.items():
            if not children:
                continue
            total = sum(weight[c] for c in children)
            expected = 1.0 if parent == "" else weight[parent]
            if not np.isclose(total, expected, rtol=1e-9, atol=1e-12):
                raise InputError(f"{self.where}: {scheme} weights violate "
                                 f"Property 6 below {parent or 'the root'} (children sum to "
                                 f"{total:.6g}, expected {expected:.6g})")


def attach_hierarchy(collection: xr.Dataset, hierarchy: pd.DataFrame | Mapping, *,
                     kind: Kind = "EIH", weights: Scheme = "UB",
                     layer_weights: Sequence[float] | None = None,
                     source: str | None = None) -> xr.Dataset:
    """Add intent hierarchies to a collection.

    Parameters
    ----------
    collection : xarray.Dataset
    hierarchy : DataFrame or dict
        Tidy ``topic node parent [weight] [intent]`` rows (:func:`xdiv.hierarchy.read_hierarchy`), or
        nested dicts (:func:`hierarchy_frame`). Leaves stand for the intents of the
        collection (their ``intent``, else their own label). Topics without a tree get the
        flat (height-1) hierarchy; trees of topics the collection lacks (a file covering
        several years) are left out with an :class:`~xdiv.XdivWarning` naming them.
    kind : {"OIH", "EIH"}
        Keep the hierarchy as given, or extend it so every leaf is in the deepest layer.
    weights : {"UT", "UB", "NT", "NB"}
        Uniform/non-uniform, top-down/bottom-up node weights (NT needs every node's
        weight, NB every leaf's).
    layer_weights : sequence of float, optional
        w_1, w_2, ... of the layer-aware measures (default uniform); renormalised over each
        topic's layers.
    source : str, optional
        The file the hierarchy was read from, named in messages
        (:func:`xdiv.hierarchy.attach_hierarchy` reads files).

    Raises
    ------
    InputError
        Cycles, a node listed twice (two parents), unknown parents, leaves that are not
        intents of the topic, intents with relevant documents missing from the tree, node
        weights that are negative or infinite (under every scheme). The messages start
        with the file name when ``hierarchy`` is a path.
    """
    check_collection(collection, "attach_hierarchy")
    return _attached(collection, hierarchy, kind, weights, layer_weights, source)


def _attached(collection, hierarchy, kind, weights, layer_weights, source) -> xr.Dataset:
    """:func:`attach_hierarchy` on a collection checked already."""
    if kind not in HIERARCHY_KINDS:
        raise InputError(f"kind must be 'OIH' or 'EIH', not {kind!r}")
    if weights not in NODE_WEIGHTS:
        raise InputError(f"weights must be one of UT, UB, NT, NB, not {weights!r}")
    frame = tidy_hierarchy(hierarchy)
    trees, removed = {}, {}
    topics = [str(t) for t in collection["topic"].values]
    given = natural_sorted(frame["topic"])
    unknown = natural_sorted(set(given) - set(topics))
    where = f"{source}: " if source else ""
    if given and len(unknown) == len(given):
        raise InputError(f"{where}none of the hierarchy's topics ({preview(given)}) is in the "
                         f"collection (its topics: {preview(topics)})")
    if unknown:
        warn(f"{where}hierarchies of {len(unknown)} topic(s) not in the collection "
                      f"are not used: {preview(unknown)}", XdivWarning)
    for topic in topics:
        valid = {str(i) for i, ok in zip(collection["intent"].values,
                                          collection["intent_valid"].sel(topic=topic).values)
                 if ok}
        exists = {str(i) for i, ok in zip(collection["intent"].values,
                                           collection["intent_exists"].sel(topic=topic).values)
                  if ok}
        rows = frame[frame["topic"] == topic]
        if rows.empty:
            rows = pd.DataFrame({"node": sorted(valid), "parent": "", "weight": np.nan,
                                 "intent": ""})
        tree = _Tree(topic, rows, source)
        leaf_list = [tree.leaf_intent(n) for n in tree.leaves]
        twice = sorted({i for i in leaf_list if leaf_list.count(i) > 1})
        if twice:
            raise InputError(f"{tree.where}: intents {twice} have more than one leaf")
        leaf_intents = set(leaf_list)
        strange = sorted(leaf_intents - exists)
        if strange:
            raise InputError(f"{tree.where}: leaves {strange} are not intents of the topic")
        missing = sorted(valid - leaf_intents)
        if missing:
            raise InputError(f"{tree.where}: intents {missing} (with relevant documents) are "
                             "missing from the tree")
        inner_intents = [n for n in tree.parent if tree.intent[n] and tree.children[n]]
        if inner_intents:
            raise InputError(f"{tree.where}: inner nodes {inner_intents} are given intents; "
                             "only leaves stand for intents")
        removed[topic] = _prune(tree, valid)
        if kind == "EIH" and tree.leaves:
            tree.extend()
        trees[topic] = tree
    return _as_variables(collection, trees, kind, weights, layer_weights, removed)


def extend_hierarchy(hierarchy: pd.DataFrame | Mapping, *,
                     source: str | None = None) -> pd.DataFrame:
    """OIH -> EIH without a collection: every topic's leaves are brought to its deepest
    layer by chains of single children (``leaf+1``, ``leaf+2``, ...), each leaf's intent
    moving to the new bottom node and its weight copied down the chain.

    Returns the tidy ``topic node parent weight intent`` frame (parent ``""`` = root).
    """
    frame = tidy_hierarchy(hierarchy)
    rows = []
    for topic, group in frame.groupby("topic", sort=False):
        tree = _Tree(str(topic), group, source)
        if tree.leaves:
            tree.extend()
        leaves = set(tree.leaves)
        rows += [(str(topic), n, tree.parent[n], tree.weight[n],
                  tree.leaf_intent(n) if n in leaves else "") for n in tree.parent]
    return pd.DataFrame(rows, columns=["topic", "node", "parent", "weight", "intent"])


def tidy_hierarchy(hierarchy: pd.DataFrame | Mapping) -> pd.DataFrame:
    """A tidy hierarchy frame from nested dicts or a frame (missing columns filled)."""
    if isinstance(hierarchy, Mapping):
        frame = hierarchy_frame(hierarchy)
    else:
        frame = hierarchy.copy()
    lacking = {"topic", "node", "parent"} - set(frame.columns)
    if lacking:
        raise InputError(f"a hierarchy frame needs the column(s) {sorted(lacking)}")
    for column, default in (("weight", np.nan), ("intent", "")):
        if column not in frame.columns:
            frame[column] = default
    frame["topic"] = frame["topic"].astype(str)
    frame["parent"] = ["" if str(p) in _ROOTS else str(p) for p in frame["parent"]]
    frame["intent"] = [i if isinstance(i, str) else "" for i in frame["intent"]]
    return frame


def _prune(tree: _Tree, valid: set[str]) -> list[str]:
    """Drop leaves whose intent has no relevant document, then inner nodes left without
    children (they stand for no intent); returns the removed node labels."""
    removed = []
    while True:
        gone = [n for n in tree.leaves
                if n not in tree.original_leaves or tree.leaf_intent(n) not in valid]
        if not gone:
            return removed
        for n in gone:
            removed.append(n)
            del tree.parent[n]
        tree._index()


def flat_hierarchy(collection: xr.Dataset) -> xr.Dataset:
    """The height-1 hierarchy of a flat collection: one leaf per valid intent, weighted by
    the intent probabilities (NT with W° = Pr(i|q))."""
    check_collection(collection, "flat_hierarchy")
    rows = [(str(t), str(i), "", float(p), str(i))
            for t, per_t, per_p in zip(collection["topic"].values,
                                       collection["intent_valid"].values,
                                       collection["intent_prob"].values)
            for i, ok, p in zip(collection["intent"].values, per_t, per_p) if ok]
    frame = pd.DataFrame(rows, columns=["topic", "node", "parent", "weight", "intent"])
    return _attached(collection, frame, "OIH", "NT", None, None)


def _as_variables(collection, trees, kind, scheme, layer_weights, removed) -> xr.Dataset:
    topics = [str(t) for t in collection["topic"].values]
    nodes = natural_sorted({n for tree in trees.values() for n in tree.parent}) or ["-"]
    intents = [str(i) for i in collection["intent"].values]
    n_index, i_index = {n: k for k, n in enumerate(nodes)}, {i: k for k, i in
                                                            enumerate(intents)}
    shape = (len(topics), len(nodes))
    exists = np.zeros(shape, dtype=bool)
    leaf = np.zeros(shape, dtype=bool)
    layer = np.zeros(shape, dtype=np.int64)
    weight = np.zeros(shape)
    parent = np.full(shape, "", dtype=object)
    intent = np.full(shape, "", dtype=object)
    covers = np.zeros(shape + (len(intents),), dtype=bool)
    height = max([max(t.layer.values(), default=0) for t in trees.values()] + [1])
    lw = np.zeros((len(topics), height))
    for t, topic in enumerate(topics):
        tree = trees[topic]
        w = tree.weights(scheme) if tree.parent else {}
        for node, par in tree.parent.items():
            k = n_index[node]
            exists[t, k], parent[t, k], layer[t, k] = True, par, tree.layer[node]
            weight[t, k] = w[node]
            if node in tree.leaves:
                leaf[t, k] = True
                intent[t, k] = tree.leaf_intent(node)
                cur = node
                while cur:
                    covers[t, n_index[cur], i_index[intent[t, k]]] = True
                    cur = tree.parent[cur]
        h = max(tree.layer.values(), default=0)
        if h:
            given = np.ones(h) if layer_weights is None else np.asarray(layer_weights[:h], float)
            if len(given) < h or (given < 0).any() or given.sum() <= 0:
                raise InputError(f"layer_weights need {h} non-negative values for topic {topic}")
            lw[t, :h] = given / given.sum()
    level = collection["level"].values  # (topic, intent, doc)
    node_level = (covers[..., None] * level[:, None, :, :]).max(axis=2).astype(np.int8)
    return collection.assign_coords(node=object_strings(nodes),
                                    layer=np.arange(1, height + 1)).assign(
        node_exists=(("topic", "node"), exists),
        node_parent=(("topic", "node"), parent),
        node_layer=(("topic", "node"), layer),
        node_leaf=(("topic", "node"), leaf),
        node_intent=(("topic", "node"), intent),
        node_weight=(("topic", "node"), weight),
        node_covers=(("topic", "node", "intent"), covers),
        node_level=(("topic", "node", "doc"), node_level),
        layer_weight=(("topic", "layer"), lw),
    ).assign_attrs(hierarchy=kind, hierarchy_weights=scheme,
                   removed_nodes=to_json({t: v for t, v in removed.items() if v}))

