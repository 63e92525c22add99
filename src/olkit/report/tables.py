"""Tables of experiment results in the papers' form: mean ± std of mistake rate (%), #SV, time."""

import csv
import io
import json

COLUMNS = (
    ("Mistake (%)", "mistake_rate", 100.0, 3),
    ("#SV", "n_sv", 1.0, 2),
    ("#Updates", "n_updates", 1.0, 2),
    ("Time (s)", "seconds", 1.0, 3),
)


def _cell(result, key, scale, digits):
    mean, std = result["mean"][key] * scale, result["std"][key] * scale
    return f"{mean:.{digits}f} ± {std:.{digits}f}"


def _rows(doc):
    return [
        [r["algorithm"]] + [_cell(r, key, scale, digits) for _, key, scale, digits in COLUMNS] for r in doc["results"]
    ]


def _title(doc):
    runs = len(doc["results"][0]["runs"]) if doc["results"] else 0
    return (
        f"{doc['dataset']} ({doc['n_examples']} examples, {doc['n_features']} features, "
        f"{doc['n_classes']} classes; {runs} run{'s' if runs != 1 else ''})"
    )


def kernel_note(results):
    """One line saying which kernel each algorithm ran with (the learners' defaults differ): ``results`` are
    (algorithm, params) pairs; algorithms with the same kernel are listed together."""
    from ..kernels import describe

    groups = {}
    for algorithm, params in results:
        groups.setdefault(describe(params), []).append(algorithm)
    return "Kernel: " + "; ".join(f"{', '.join(names)}: {kernel}" for kernel, names in groups.items())


def _kernel_note(doc):
    return kernel_note([(r["algorithm"], r["params"]) for r in doc["results"]])


def text_table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    body = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join([line, "  ".join("-" * w for w in widths)] + body)


def markdown_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def latex_table(header, rows, caption=""):
    cols = "l" + "r" * (len(header) - 1)

    def esc(s):
        return str(s).replace("%", r"\%").replace("#", r"\#").replace("±", r"$\pm$").replace("_", r"\_")

    out = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\begin{{tabular}}{{{cols}}}",
        r"\hline",
        " & ".join(esc(h) for h in header) + r" \\",
        r"\hline",
    ]
    out += [" & ".join(esc(c) for c in row) + r" \\" for row in rows]
    out += [r"\hline", r"\end{tabular}"]
    if caption:
        out.append(rf"\caption{{{esc(caption)}}}")
    out.append(r"\end{table}")
    return "\n".join(out)


def format_results(doc, fmt="table"):
    """Render an ``olkit run`` document as table | markdown | latex | csv | json."""
    header = ["Algorithm"] + [c[0] for c in COLUMNS]
    if fmt == "json":
        return json.dumps(doc, indent=1)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(["dataset", "algorithm"] + [f"{k}_{s}" for _, k, _, _ in COLUMNS for s in ("mean", "std")])
        for r in doc["results"]:
            writer.writerow(
                [doc["dataset"], r["algorithm"]] + [r[s][k] for _, k, _, _ in COLUMNS for s in ("mean", "std")]
            )
        return buf.getvalue().rstrip("\n")
    rows = _rows(doc)
    if fmt == "markdown":
        return f"**{_title(doc)}**\n\n" + markdown_table(header, rows) + f"\n\n{_kernel_note(doc)}"
    if fmt == "latex":
        return latex_table(header, rows, caption=f"{_title(doc)}. {_kernel_note(doc)}")
    if fmt == "table":
        return _title(doc) + "\n" + text_table(header, rows) + "\n" + _kernel_note(doc)
    raise ValueError(f"unknown format {fmt!r}; valid formats: table, json, csv, markdown, latex")
