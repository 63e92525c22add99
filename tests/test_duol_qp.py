"""DUOL's closed form (JMLR Prop. 2 / Prop. 5) against box-QP oracles
(docs/algorithms/duol.md#closed-form-of-the-double-update, docs/algorithms/duol.md#generic-box-qp-solver).

Oracles: olkit's generic ``solve_box_qp`` and the independent enumeration of
``reference.kernel_binary.box_qp_enumerate`` (interior stationary point + 4 edges + 4 corners, best wins).

For ≥ 10,000 random instances of the assumptions (ℓ_a ≥ 0, ℓ_b ≥ 0, k_a, k_b > 0, w ≤ 0 with
w² ≤ q_a q_b, γ̂_b ∈ (0, C]), both for q = k (binary) and q = 2k (multiclass), and for instances with the
degenerate Δ = q_a q_b − w² = 0 exactly: whenever the closed form applies a case (≠ 0), its point must be
feasible, satisfy the KKT conditions of the box QP, and its objective must equal the oracles' maximum to
1e-9 (relative). Case 0 ("no case fired, use the generic solver") must not happen on generic instances.
"""

import math

import numpy as np
import pytest

from olkit.learners.kernel.duol import duol_closed_form, solve_box_qp
from reference.kernel_binary import box_qp_enumerate, qp_objective

N_RANDOM = 12_000  # per Hessian scaling (binary, multiclass)
N_DEGENERATE = 3_000


def h(inst, ga, d):
    la, lb, qa, qb, w = inst[:5]
    return qp_objective(la, lb, qa, qb, w, ga, d)


def scale(la, lb, qa, qb, w, ga_lo, ga_hi, d_lo, d_hi):
    """Magnitude of the terms of the gradient on the box (for the KKT tolerance)."""
    r = max(abs(ga_lo), abs(ga_hi), abs(d_lo), abs(d_hi), 1.0)
    return 1.0 + abs(la) + abs(lb) + (qa + qb + abs(w)) * r


def kkt_violation(la, lb, qa, qb, w, ga_lo, ga_hi, d_lo, d_hi, ga, d):
    """Largest violation of the KKT conditions of max h on the box at (γ, d) (0 if they hold)."""
    g_ga = la - qa * ga - w * d  # ∂h/∂γ
    g_d = lb - qb * d - w * ga  # ∂h/∂d

    def one(g, x, lo, hi):
        if lo == hi:
            return 0.0
        if x <= lo:
            return max(g, 0.0)  # at the lower bound the gradient may only point outwards (≤ 0)
        if x >= hi:
            return max(-g, 0.0)
        return abs(g)

    return max(one(g_ga, ga, ga_lo, ga_hi), one(g_d, d, d_lo, d_hi))


def random_instances(rng, n, multiclass):
    """Instances of the assumptions of Prop. 2 (binary) / Prop. 5 (multiclass), with some exact edges."""
    out = []
    for _ in range(n):
        la = 0.0 if rng.random() < 0.05 else rng.uniform(0.0, 3.0)
        lb = 0.0 if rng.random() < 0.10 else rng.uniform(0.0, 2.0)
        ka = 1.0 if rng.random() < 0.4 else rng.uniform(0.05, 3.0)
        kb = 1.0 if rng.random() < 0.4 else rng.uniform(0.05, 3.0)
        u = 0.0 if rng.random() < 0.05 else rng.uniform(0.0, 1.0)
        f = 2.0 if multiclass else 1.0
        qa, qb = f * ka, f * kb
        w = -u * f * math.sqrt(ka * kb)  # |w| ≤ sqrt(qa qb): a valid kernel
        C = (5.0, 10.0, rng.uniform(0.1, 10.0))[rng.integers(3)]
        gb = C if rng.random() < 0.05 else rng.uniform(1e-3, 1.0) * C
        out.append((la, lb, qa, qb, w, C, gb))
    return out


def degenerate_instances(rng, n, multiclass):
    """Δ = q_a q_b − w² = 0 *exactly*: k = (m/16)² so that every product is exact in binary64; and the
    Gaussian duplicate k_a = k_b = 1, w = −1 (binary) / −2 (multiclass)."""
    out = []
    f = 2.0 if multiclass else 1.0
    for j in range(n):
        if j % 4 == 0:
            a = b = 1.0
        else:
            a, b = rng.integers(1, 49) / 16.0, rng.integers(1, 49) / 16.0
        qa, qb, w = f * a * a, f * b * b, -f * a * b
        assert qa * qb - w * w == 0.0
        la = 0.0 if rng.random() < 0.05 else rng.uniform(0.0, 3.0)
        lb = 0.0 if rng.random() < 0.10 else rng.uniform(0.0, 2.0)
        C = (5.0, 10.0, rng.uniform(0.1, 10.0))[rng.integers(3)]
        gb = C if rng.random() < 0.05 else rng.uniform(1e-3, 1.0) * C
        out.append((la, lb, qa, qb, w, C, gb))
    return out


def check_closed_form(instances):
    """Return (failures, case counts) of the closed form against both oracles."""
    failures, cases = [], {c: 0 for c in range(5)}
    for inst in instances:
        la, lb, qa, qb, w, C, gb = inst
        box = (0.0, C, -gb, C - gb)
        ga, d, case = duol_closed_form(la, lb, qa, qb, w, C, gb)
        cases[int(case)] += 1
        ga_o, d_o = solve_box_qp(la, lb, qa, qb, w, *box)
        ga_r, d_r = box_qp_enumerate(la, lb, qa, qb, w, *box)
        for name, v in (("closed form", (ga, d)), ("solve_box_qp", (ga_o, d_o))):
            if not (math.isfinite(v[0]) and math.isfinite(v[1])):
                failures.append((inst, f"{name} returned a non-finite point {v}"))
        h_star = max(h(inst, ga_o, d_o), h(inst, ga_r, d_r))
        tol_h = 1e-9 * max(1.0, abs(h_star))
        # the olkit generic solver is itself exact
        if abs(h(inst, ga_o, d_o) - h(inst, ga_r, d_r)) > tol_h:
            failures.append((inst, f"solve_box_qp h={h(inst, ga_o, d_o)!r} vs enumeration h={h(inst, ga_r, d_r)!r}"))
        if case == 0:
            continue
        if not (0.0 <= ga <= C and -gb <= d <= C - gb):
            failures.append((inst, f"case {case} point ({ga!r}, {d!r}) outside the box"))
        hv = h(inst, ga, d)
        if abs(hv - h_star) > tol_h:
            failures.append((inst, f"case {case} objective {hv!r} vs oracle maximum {h_star!r}"))
        viol = kkt_violation(la, lb, qa, qb, w, *box, ga, d)
        if viol > 1e-9 * scale(la, lb, qa, qb, w, *box):
            failures.append((inst, f"case {case} point ({ga!r}, {d!r}) violates KKT by {viol!r}"))
        # strictly concave and well conditioned → unique maximiser: the points agree too
        if qa * qb - w * w > 1e-3 * qa * qb:
            if abs(ga - ga_r) > 1e-6 * (1.0 + C) or abs(d - d_r) > 1e-6 * (1.0 + C):
                failures.append((inst, f"case {case} point ({ga!r}, {d!r}) vs unique maximiser ({ga_r!r}, {d_r!r})"))
    return failures, cases


def _report(failures):
    return "\n".join(f"{inst}: {msg}" for inst, msg in failures[:10]) + f"\n({len(failures)} failures)"


@pytest.mark.parametrize("multiclass", [False, True], ids=["binary-q=k", "multiclass-q=2k"])
def test_closed_form_matches_box_qp_random(multiclass):
    rng = np.random.default_rng(20110 + multiclass)
    insts = random_instances(rng, N_RANDOM, multiclass)
    failures, cases = check_closed_form(insts)
    assert not failures, _report(failures)
    # every case of Prop. 2 / 5 is exercised
    assert all(cases[c] > 50 for c in (1, 2, 3, 4)), cases
    # case 0 (no case fires) must not happen on generic instances (no exact zero, Δ > 0 clearly, γ̂_b < C)
    generic = [
        i
        for i in insts
        if i[0] > 0 and i[1] > 0 and i[4] < 0 and i[6] < i[5] and i[2] * i[3] - i[4] ** 2 > 1e-6 * i[2] * i[3]
    ]
    assert len(generic) > N_RANDOM // 2
    _, generic_cases = check_closed_form(generic)
    assert generic_cases[0] == 0, f"case 0 on {generic_cases[0]} generic instances ({generic_cases})"
    print(f"\n{'multiclass' if multiclass else 'binary'} case counts: {cases} (generic: {generic_cases})")


def near_degenerate_instances(rng, n, multiclass):
    """w² = q_a q_b (1 − ε)², ε ∈ [1e-17, 1e-6]: what a duplicate gives when κ(x, x') is rounded below 1."""
    out = []
    f = 2.0 if multiclass else 1.0
    for j in range(n):
        ka = 1.0 if j % 3 == 0 else rng.uniform(0.05, 3.0)
        kb = 1.0 if j % 3 == 0 else rng.uniform(0.05, 3.0)
        w = -f * math.sqrt(ka * kb) * (1.0 - 10.0 ** rng.uniform(-17, -6))
        la, lb = rng.uniform(0.0, 3.0), rng.uniform(0.0, 2.0)
        C = (5.0, 10.0, rng.uniform(0.1, 10.0))[rng.integers(3)]
        gb = rng.uniform(1e-3, 1.0) * C
        out.append((la, lb, f * ka, f * kb, w, C, gb))
    return out


@pytest.mark.parametrize("multiclass", [False, True], ids=["binary-q=k", "multiclass-q=2k"])
@pytest.mark.parametrize("kind", ["degenerate", "near-degenerate"])
def test_closed_form_matches_box_qp_degenerate(multiclass, kind):
    """k_a k_b = w_ab² (e.g. a duplicate of x_b with the opposite label): Case 4 would divide by zero; the
    closed form must either give the maximum (Cases 1–3) or return case 0 for the fallback. Near the
    degenerate case (Δ rounded above 0) one of the four cases must always fire."""
    if kind == "degenerate":
        insts = degenerate_instances(np.random.default_rng(4242 + multiclass), N_DEGENERATE, multiclass)
    else:
        insts = near_degenerate_instances(np.random.default_rng(99 + multiclass), N_DEGENERATE, multiclass)
    failures, cases = check_closed_form(insts)
    assert not failures, _report(failures)
    if kind == "near-degenerate":
        assert cases[0] == 0, cases


# ---- the generic solver outside the closed form's assumptions (DUOL_rand: w > 0, ℓ_b < 0) -----------------
def general_instances(rng, n):
    out = []
    for j in range(n):
        qa = 1.0 if rng.random() < 0.3 else rng.uniform(0.01, 4.0)
        qb = 1.0 if rng.random() < 0.3 else rng.uniform(0.01, 4.0)
        kind = j % 5
        if kind == 4:  # degenerate PSD, Δ = 0 exactly, either sign of w
            a, b = rng.integers(1, 49) / 16.0, rng.integers(1, 49) / 16.0
            qa, qb = a * a, b * b
            w = a * b * (1.0 if rng.random() < 0.5 else -1.0)
        else:
            w = rng.uniform(-1.0, 1.0) * math.sqrt(qa * qb)
        la = rng.uniform(-3.0, 3.0)
        lb = rng.uniform(-3.0, 3.0)
        if kind == 0:  # the DUOL_rand box: γ ∈ [0, C], d ∈ [−γ̂_b, C − γ̂_b]
            C = rng.uniform(0.1, 10.0)
            gb = rng.uniform(0.0, 1.0) * C
            box = (0.0, C, -gb, C - gb)
        elif kind == 1:  # a box with a zero-width side
            lo = rng.uniform(-2, 2)
            box = (lo, lo, -rng.uniform(0, 3), rng.uniform(0, 3))
        else:  # arbitrary boxes
            a1, a2 = sorted(rng.uniform(-4, 4, 2))
            b1, b2 = sorted(rng.uniform(-4, 4, 2))
            box = (a1, a2, b1, b2)
        out.append(((la, lb, qa, qb, w), box))
    return out


def test_solve_box_qp_general_instances():
    rng = np.random.default_rng(777)
    failures = []
    n_pos_w = n_neg_lb = 0
    for (la, lb, qa, qb, w), box in general_instances(rng, 12_000):
        n_pos_w += w > 0
        n_neg_lb += lb < 0
        ga, d = solve_box_qp(la, lb, qa, qb, w, *box)
        ga_r, d_r = box_qp_enumerate(la, lb, qa, qb, w, *box)
        inst = (la, lb, qa, qb, w, *box)
        if not (math.isfinite(ga) and math.isfinite(d)):
            failures.append((inst, f"non-finite {ga, d}"))
            continue
        if not (box[0] <= ga <= box[1] and box[2] <= d <= box[3]):
            failures.append((inst, f"point ({ga!r}, {d!r}) outside the box"))
        hv = qp_objective(la, lb, qa, qb, w, ga, d)
        hr = qp_objective(la, lb, qa, qb, w, ga_r, d_r)
        if abs(hv - hr) > 1e-9 * max(1.0, abs(hr)):
            failures.append((inst, f"h={hv!r} vs enumeration {hr!r} at ({ga_r!r}, {d_r!r})"))
        viol = kkt_violation(la, lb, qa, qb, w, *box, ga, d)
        if viol > 1e-9 * scale(la, lb, qa, qb, w, *box):
            failures.append((inst, f"KKT violated by {viol!r} at ({ga!r}, {d!r})"))
    assert not failures, _report(failures)
    assert n_pos_w > 1000 and n_neg_lb > 1000


def test_no_nan_on_extreme_instances():
    """Zero curvature, zero losses, tiny and huge scales: finite results everywhere."""
    vals_l = (0.0, 1e-300, 1e-12, 1.0, 1e12)
    vals_q = (1e-300, 1e-12, 1.0, 1e12)
    for la in vals_l:
        for lb in vals_l:
            for qa in vals_q:
                for qb in vals_q:
                    for u in (0.0, 0.5, 1.0):
                        w = -u * math.sqrt(qa * qb)
                        for C, gb in ((5.0, 5.0), (5.0, 1e-9), (1e-9, 1e-9), (10.0, 3.0)):
                            ga, d, case = duol_closed_form(la, lb, qa, qb, w, C, gb)
                            if case != 0:
                                assert math.isfinite(ga) and math.isfinite(d), (la, lb, qa, qb, w, C, gb)
                            go, do = solve_box_qp(la, lb, qa, qb, w, 0.0, C, -gb, C - gb)
                            assert math.isfinite(go) and math.isfinite(do), (la, lb, qa, qb, w, C, gb)
                            assert 0.0 <= go <= C and -gb <= do <= C - gb
