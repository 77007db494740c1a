"""Kernels for intent hierarchies (Wang et al., IEEE TKDE 2018): node selections, weights and types.
``covers`` is ``(..., N, I)``: node n is intent i's leaf or one of its ancestors."""

from __future__ import annotations

import numpy as np


def has_relevant(node_qrels: np.ndarray) -> np.ndarray:
    """Whether each node has a relevant judged document (``(..., D)`` input)."""
    return (node_qrels > 0).any(axis=-1)


def normalise(weights: np.ndarray, selected: np.ndarray) -> np.ndarray:
    """Weights of the selected nodes rescaled to sum to 1 (last axis); 0 elsewhere."""
    w = np.where(selected, weights, 0.0)
    total = w.sum(axis=-1, keepdims=True)
    return np.divide(w, total, out=np.zeros_like(w), where=total > 0)


def layered_weights(weights, exists, layer, layer_weight):
    """``w_{layer(n)} W(n) / sum_{m in layer(n)} W(m)``: node weights renormalised within
    each layer and scaled by the layer weights (HD-measures' global gain)."""
    height = layer_weight.shape[-1]
    out = np.zeros(np.broadcast_shapes(weights.shape, exists.shape))
    for h in range(1, height + 1):
        in_layer = exists & (layer == h)
        out = out + normalise(weights, in_layer) * layer_weight[..., h - 1:h]
    return out


def node_types(intent_type: np.ndarray, covers: np.ndarray, leaf: np.ndarray) -> np.ndarray:
    """``"nav"`` for leaves of navigational intents, ``"inf"`` for every other node."""
    nav = (covers & (intent_type == "nav")[..., None, :]).any(axis=-1) & leaf
    return np.where(nav, "nav", "inf").astype(object)


def weighted_layers(values: np.ndarray, layer_weight: np.ndarray) -> np.ndarray:
    """``sum_h w_h M_h`` (layers on the last axis of both), NaN-free where w_h = 0."""
    terms = np.where(layer_weight > 0, np.nan_to_num(values) * layer_weight, 0.0)
    defined = ~np.isnan(values) | (layer_weight == 0)
    return np.where(defined.all(axis=-1) & (layer_weight > 0).any(axis=-1),
                    terms.sum(axis=-1), np.nan)
