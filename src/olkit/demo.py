"""``make demo``: the DUOL JMLR Table 2 comparison on the datasets bundled with olkit.

Runs the nine algorithms of the table (C = 5, σ = 8, ρ = 0, ALMA α = 0.9) over 20 random orderings of
sonar, splice, german and mushrooms, prints our numbers beside the paper's, and writes the page and the
online-curve plots to ``olkit-demo/`` in the current directory.

    python -m olkit.demo [--repeats N] [--out DIR]
"""

import argparse
import os

from .experiment.reproduce import reproduce_config

DEMO_CONFIG = {
    "title": "olkit demo — DUOL JMLR 2011 Table 2 on the bundled datasets",
    "paper": "duol_jmlr_table2",
    "datasets": ["sonar", "splice", "german", "mushrooms"],
    "algorithms": ["perceptron", "romma", "agg-romma", "alma", "pa1", "pa2", "duol-iter", "duol-appr", "duol"],
    "repeats": 20,
    "seed": 0,
    "settings": {"C": 5, "sigma": 8, "rho": 0, "alpha": 0.9},
    "params": {"alma": {"C": 2**0.5}},
}


def main(argv=None):
    parser = argparse.ArgumentParser(description="DUOL Table 2 on the bundled datasets")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--out", default="olkit-demo")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    output = os.path.join(args.out, "duol-binary-demo.md")
    page, _ = reproduce_config(DEMO_CONFIG, "make demo  (python -m olkit.demo)", repeats=args.repeats, output=output)
    with open(page) as fh:
        print(fh.read())
    print(f"\nwritten: {page} and the online-curve plots in {os.path.join(args.out, 'figures')}/")


if __name__ == "__main__":
    main()
