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
    colors = plt.get_cmap("tab20").colors
    markers = "o^sDv<>pPX*h"
    for i, r in enumerate(doc["results"]):  # distinct colour and marker for up to 20 algorithms
        ax.plot(r["curve"]["x"], [100 * v for v in r["curve"]["mistake_rate"]], marker=markers[i % len(markers)],
                markersize=3, color=colors[(2 * i) % 20 if i < 10 else (2 * i + 1) % 20], label=r["algorithm"])
    ax.set_xlabel("Number of samples")
    ax.set_ylabel("Online cumulative mistake rate (%)")
    ax.set_title(title or doc["dataset"])
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
