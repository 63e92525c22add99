"""Plots: online mistake-rate curves (the papers' Figures 2–6 of NIPS 2009, Fig. 1 of SCW)."""


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only; no display needed
    import matplotlib.pyplot as plt

    return plt


def plot_curves(doc, path, title=None):
    """Cumulative online mistake rate vs examples seen, one line per algorithm (mean over runs)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in doc["results"]:
        ax.plot(r["curve"]["x"], [100 * v for v in r["curve"]["mistake_rate"]], marker=".", label=r["algorithm"])
    ax.set_xlabel("Number of samples")
    ax.set_ylabel("Online cumulative mistake rate (%)")
    ax.set_title(title or doc["dataset"])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
