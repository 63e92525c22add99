"""Plots: online mistake-rate curves (the papers' Figures 2–6 of NIPS 2009, Fig. 1 of SCW)."""

from .._files import save_figure


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
        ax.plot(
            r["curve"]["x"],
            [100 * v for v in r["curve"]["mistake_rate"]],
            marker=markers[i % len(markers)],
            markersize=3,
            color=colors[(2 * i) % 20 if i < 10 else (2 * i + 1) % 20],
            label=r["algorithm"],
        )
    ax.set_xlabel("Number of samples")
    return _finish(fig, ax, path, title or doc["dataset"])


def plot_sweep(sweep, path, title=None, mark=None, highlight=(), labels=None, ticks=False):
    """Mean mistake rate vs a swept parameter (a ``parameter_sweep`` document of the reproduction): one
    line per swept algorithm with a ±1 std band over the orderings, one dashed horizontal line per
    reference algorithm (no such parameter); ``mark`` draws a dotted vertical line at a value (e.g. the
    table's setting); ``highlight`` algorithms are drawn thicker; ``labels`` renames legend entries
    ({algorithm: label}); ``ticks``: a tick at every swept value, labelled as is (e.g. budgets 50..1600). A log2 x axis
    when the values are positive
    and span a factor of 16 or more, a log y axis when the mean mistake rates span a factor of 10 or more."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colors = plt.get_cmap("tab20").colors
    markers = "o^sDv<>pPX*h"
    values = sweep["values"]
    means = [r["mistake_pct"][0] for rows in sweep["algorithms"].values() for r in rows]
    means += [row["mistake_pct"][0] for row in sweep.get("reference", {}).values()]
    logy = min(means) > 0 and max(means) / min(means) >= 10  # e.g. 0.3 % to 35 %: keeps both readable
    for i, (name, rows) in enumerate(sweep["algorithms"].items()):
        color = colors[(2 * i) % 20 if i < 10 else (2 * i + 1) % 20]
        x = [r["value"] for r in rows]
        m = [r["mistake_pct"][0] for r in rows]
        s = [r["mistake_pct"][1] for r in rows]
        ax.plot(
            x,
            m,
            marker=markers[i % len(markers)],
            markersize=4,
            color=color,
            label=(labels or {}).get(name, name),
            linewidth=2.5 if name in highlight else 1.2,
            zorder=3 if name in highlight else 2,
        )
        low = [max(a - b, 0.5 * a) if logy else a - b for a, b in zip(m, s)]
        ax.fill_between(x, low, [a + b for a, b in zip(m, s)], color=color, alpha=0.08)
    n = len(sweep["algorithms"])
    for j, (name, row) in enumerate(sweep.get("reference", {}).items()):
        color = colors[(2 * (n + j)) % 20 if n + j < 10 else (2 * (n + j) + 1) % 20]
        ax.axhline(
            row["mistake_pct"][0], linestyle="--", linewidth=1, color=color, label=f"{name} (no {sweep['parameter']})"
        )
    if mark is not None:
        ax.axvline(mark, linestyle=":", color="grey", linewidth=1)
    if min(values) > 0 and max(values) / min(values) >= 16:
        ax.set_xscale("log", base=2)
    if ticks:
        ax.set_xticks(values)
        ax.set_xticklabels([f"{v:g}" for v in values])
        ax.minorticks_off()
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(sweep["parameter"])
    return _finish(fig, ax, path, title or "")


def plot_rho_sweep(sweeps, path):
    """JMLR Figure 4: M, M_d^w(ρ) and M_d^s(ρ) of DUOL against ρ, one panel per dataset (``sweeps``:
    {dataset: [{"rho", "M", "M_d_weak", "M_d_strong"}]}, :func:`olkit.experiment.reproduce.rho_sweep`)."""
    plt = _pyplot()
    n = len(sweeps)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, (dataset, table) in zip(axes.ravel(), sweeps.items()):
        rho = [r["rho"] for r in table]
        ax.plot(rho, [r["M"] for r in table], "o-", label="M")
        ax.plot(rho, [r["M_d_weak"] for r in table], "s-", label="M_d^w(ρ)")
        ax.plot(rho, [r["M_d_strong"] for r in table], "^-", label="M_d^s(ρ)")
        ax.set_title(dataset)
        ax.set_xlabel("ρ")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def _finish(fig, ax, path, title):
    """The common finish of every mistake-rate figure: labels, grid, legend, saved and closed."""
    plt = _pyplot()
    ax.set_ylabel("Online cumulative mistake rate (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path
