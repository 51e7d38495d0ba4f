"""Context-mixing statistics and their binary arithmetic coder.

The only package that knows numba. Each byte is coded as eight binary
decisions, most significant bit first; before each one, a set of models
predicts it from hashed contexts of the bytes before (orders 1-4 and 6, the
current word, and a match model that follows the last occurrence of the
latest 6 bytes, with more contexts from model 1 on), a logistic mixer weighs
their predictions in the stretched (logit) domain, and adaptive probability
maps (APMs) refine the result; then every part learns from the bit. This is
the scheme of Mahoney's lpaq1 and paq8 family, written anew: integer
arithmetic only, squash and stretch from integer tables, so any CPU computes
the same bits (no numeric profile is needed here, unlike the network).

The package keeps apart, as paq8px keeps its shared model parts apart from
its per-kind models (docs/statistics.md, "The code"):

- `parts`: every context's index and every part's bit (imports nothing);
- `models`: the table of models, each a set of parts, recorded in the
  archive by its number (one entry per model);
- `state`: every array of the state, and the fields inside them;
- `kernels`: squash and stretch, adaptive probabilities, the hash table's
  slots, the mixer's weight sets and the APMs, shared by every model;
- `coder`: the binary arithmetic coder and its check;
- `contexts`: the general contexts (orders, words, sparse, indirect);
  `records`: those of tables, records and arrays; a new kind of data
  brings a module of its own beside them;
- `predictor`: the per-bit prediction, mixing and learning, and the byte
  loops;
- `coding`: `Tables`, `encode_file` / `decode_file` (file order) and
  `Statistics` (the lockstep of the hybrid).

Importing this package loads neither numba nor the kernels: `parts`,
`models` and `state` are plain Python (fade.config reads them), and the
coding names below load `coding` when first used.
"""

from __future__ import annotations

from fade.statistics.models import MODEL_PARTS, MODELS, Model

_CODING = ("CHUNK", "SQUASH", "STRETCH", "Statistics", "Tables", "decode_file", "decode_prefix",
           "encode_file", "encode_file_marked", "network_weights")

__all__ = ["MODELS", "MODEL_PARTS", "Model", *_CODING]


def __getattr__(name: str):
    if name in _CODING:
        from fade.statistics import coding
        return getattr(coding, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
