"""Fit the firewall's second opinion (openclaw_mem/safety/meaning.py): a logistic regression
on the local sentence encoder's embedding of a text and the reading of parts' score.

    python bench/firewall_fit.py          # cross-validated figures, then write the weights
    python bench/firewall_fit.py --cv     # the figures only

Trained only on parts that were looked at: the tuning and development pairs
(tests/fixtures/injections/payloads.json, dev_payloads.json: orders; benign.json,
dev_benign.json: look-alike notes) and ordinary notes (tests/fixtures/secrets/ordinary.json
and the lines of tests/fixtures/crosslingual/workspace). L2 regularisation LAMBDA and
THRESHOLD were chosen by five-fold cross-validation on these (folds drawn with a fixed seed),
among LAMBDA in 0.05, 0.1, 0.2, 0.3, 1 and THRESHOLD in 0.6 to 0.9: the most orders caught
among texts that the reading scores from GATE up to its own threshold (the grey zone the
model is asked about) with at most one look-alike note in 50 flagged there. Newton's method
from zero weights: the same data give the same weights. The held-out pairs are not read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OUT = ROOT / "openclaw_mem" / "safety" / "meaning_weights.json"
LAMBDA = 0.3
THRESHOLD = 0.7
GATE = 1.5  # the reading's score from which the model is asked: an action and something more
FOLDS = 5


def corpus() -> tuple[list[str], list[str]]:
    """(orders, notes): the texts the model is fitted on."""

    def texts(name: str) -> list[str]:
        data = json.loads((FIXTURES / "injections" / f"{name}.json").read_text(encoding="utf-8"))
        return [x["text"] for x in data]

    orders = texts("payloads") + texts("dev_payloads")
    notes = texts("benign") + texts("dev_benign")
    ordinary = json.loads((FIXTURES / "secrets" / "ordinary.json").read_text(encoding="utf-8"))
    notes += [x["text"] for x in ordinary]
    for path in sorted((FIXTURES / "crosslingual" / "workspace").rglob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip().lstrip("-* ").strip()
            if len(line) > 12 and not line.startswith(("#", "<!--")):
                notes.append(line)
    return orders, list(dict.fromkeys(notes))


def features(texts: list[str], embedder):
    """(embeddings, reading scores) of the normalised texts."""
    import numpy as np

    from openclaw_mem.safety.firewall import normalized
    from openclaw_mem.safety.meaning import _read, score_feature

    read = [_read(normalized(t)) for t in texts]  # what the product reads: meaning.py
    scores = np.asarray([score for score, _ in read])
    vecs = np.asarray(embedder.embed([seen for _, seen in read]), np.float64)
    extra = np.asarray([score_feature(s) for s in scores])[:, None]
    return np.hstack([vecs, extra]), scores


def fit(x, y, lam: float, steps: int = 100):
    """L2-regularised logistic regression by Newton's method from zero (bias unpenalised)."""
    import numpy as np

    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    penalty = lam * np.diag(np.r_[np.ones(len(w) - 1), 0.0])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-xb @ w))
        grad = xb.T @ (p - y) + penalty @ w
        if np.abs(grad).max() < 1e-9:
            break
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + penalty
        w -= np.linalg.solve(hess, grad)
    return w


def predict(w, x):
    import numpy as np

    return 1.0 / (1.0 + np.exp(-(x @ w[:-1] + w[-1])))


def cross_validate(x, y, scores, lam: float) -> list:
    """Out-of-fold probabilities, five folds drawn with a fixed seed."""
    import numpy as np

    folds = np.random.RandomState(0).permutation(len(x)) % FOLDS
    out = np.zeros(len(x))
    for f in range(FOLDS):
        w = fit(x[folds != f], y[folds != f], lam)
        out[folds == f] = predict(w, x[folds == f])
    return out


def weights(embedder=None) -> dict:
    """The model fitted on the whole corpus, as meaning_weights.json holds it."""
    import numpy as np

    orders, notes = corpus()
    x, _ = features(orders + notes, embedder or _embedder())
    y = np.r_[np.ones(len(orders)), np.zeros(len(notes))]
    w = fit(x, y, LAMBDA)
    return {
        "model": "local:use",
        "about": "bench/firewall_fit.py; openclaw_mem/safety/meaning.py says how it is used",
        "trained_on": {"orders": len(orders), "notes": len(notes)},
        "lambda": LAMBDA,
        "gate": GATE,
        "threshold": THRESHOLD,
        "score_weight": round(float(w[-2]), 6),
        "bias": round(float(w[-1]), 6),
        "weights": [round(float(v), 6) for v in w[:-2]],
    }


def _embedder():
    from openclaw_mem.embed.local import LocalEmbedder

    return LocalEmbedder("use")


def report_cv() -> None:
    import numpy as np

    from openclaw_mem.safety.standing import THRESHOLD as READING

    orders, notes = corpus()
    x, scores = features(orders + notes, _embedder())
    y = np.r_[np.ones(len(orders)), np.zeros(len(notes))]
    zone = (scores >= GATE) & (scores < READING)
    print(f"fitted on {len(orders)} orders, {len(notes)} notes; grey zone {zone.sum()} texts")
    for lam in (0.05, 0.1, 0.2, 0.3, 1.0):
        probs = cross_validate(x, y, scores, lam)
        for th in (0.6, 0.7, 0.8, 0.9):
            hit = (probs >= th) & zone
            print(
                f"  lambda {lam:<4} threshold {th}: grey-zone orders {int(hit[y == 1].sum())}"
                f"/{int((zone & (y == 1)).sum())}, notes {int(hit[y == 0].sum())}"
                f"/{int((zone & (y == 0)).sum())}; all orders {int((probs >= th)[y == 1].sum())}"
                f"/{len(orders)}, all notes {int((probs >= th)[y == 0].sum())}/{len(notes)}"
            )


def main() -> None:
    report_cv()
    if "--cv" in sys.argv[1:]:
        return
    model = weights()
    OUT.write_text(json.dumps(model, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
