"""PRO reference vectors: seeded defect maps and masks, scored by MVTec 3D-AD's evaluation
code run unmodified from a checkout (`pro_curve_util.compute_pro`, then
`generic_util.trapezoid(fprs, pros, x_max=limit) / limit`, as its evaluate script does).

    python tests/scoring/reference/make_pro_vectors.py /path/to/checkout > \\
        tests/scoring/reference/vectors/pro.jsonl

Needs numpy and scipy. The checkout: see README.md beside this file.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys

import numpy as np


def main(checkout: str, count: int = 150) -> None:
    sys.path.insert(0, checkout)
    from generic_util import trapezoid
    from pro_curve_util import compute_pro

    rng = np.random.default_rng(29)
    written = 0
    while written < count:
        height, width = rng.integers(3, 9, 2)
        masks, maps = [], []
        for _ in range(int(rng.integers(1, 4))):
            mask = rng.random((height, width)) < rng.choice([0.15, 0.3, 0.5])
            kind = rng.integers(0, 3)
            if kind == 0:    # continuous: few ties
                score = rng.random((height, width)).round(4)
            elif kind == 1:  # one decimal: many ties
                score = rng.random((height, width)).round(1)
            else:            # defects higher on average
                score = (rng.random((height, width)) + 0.6 * mask).round(2)
            masks.append(mask.astype(int))
            maps.append(score)
        if not any(m.any() for m in masks) or all(m.all() for m in masks):
            continue  # the reference needs a region and a normal pixel
        limit = float(rng.choice([0.3, 0.3, 0.1, 0.05, 0.5, 1.0]))
        with contextlib.redirect_stdout(io.StringIO()):  # it prints its progress
            fprs, pros = compute_pro(anomaly_maps=[m.copy() for m in maps],
                                     ground_truth_maps=[m.copy() for m in masks])
            try:
                area = trapezoid(fprs, pros, x_max=limit) / limit
            except AssertionError:  # the limit is not inside the curve's range
                continue
        print(json.dumps({"maps": [m.tolist() for m in maps],
                          "masks": [m.tolist() for m in masks],
                          "max_fpr": limit, "mvtec_pro": float(area)}, separators=(",", ":")))
        written += 1


if __name__ == "__main__":
    main(sys.argv[1])
