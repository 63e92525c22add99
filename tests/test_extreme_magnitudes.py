"""Issue 21, item 2: extreme magnitudes never crash a learner.

M-DUOL's auxiliary-example search took the tie bound w_min + tol·|w_min|; when kernel values overflow,
w_min = −inf makes it NaN, no SV was found tied, and the "none found" slot index n was used as the
auxiliary SV: an out-of-range read and write (SIGSEGV, found by the fuzzer with kernel='linear' and
'poly' on 3- and 4-class streams whose rows reach 1e257..1e300; NUMBA_BOUNDSCHECK=1 showed the IndexError).
The runs go through a child process, so that a crash fails the test instead of killing pytest.
"""

import textwrap

from helpers import run_child_cases
from olkit.learners.kernel.duol import tie_bound

CHILD = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np, scipy.sparse as sp
    import olkit
    from olkit import registry
    warnings.simplefilter("ignore")

    def finite_model(clf):
        arrays = []
        if getattr(clf, "model_", None) is not None:
            arrays.append(np.asarray(clf.model_.weights()))
        if getattr(clf, "support_", None) is not None:
            arrays.append(np.asarray(clf.support_.coef[:clf.support_.n]))
        return all(np.all(np.isfinite(a)) for a in arrays)

    def run(name, params, X, y):
        clf = olkit.make(name, **params)
        try:
            olkit.evaluate_online(clf, X, y)
            outcome = "ok"
        except ValueError as exc:
            outcome = "ValueError: " + str(exc)
        if hasattr(clf, "classes_"):
            try:
                clf.predict(X)
            except ValueError:
                pass
        return outcome, finite_model(clf)

    cases = json.loads(sys.stdin.read())
    for key, (name, params, X, y, fmt) in cases.items():
        X = np.array(X, dtype=float)
        X = sp.csr_matrix(X) if fmt == "csr" else X
        print("RUN", key, flush=True)
        outcome, finite = run(name, params, X, np.array(y))
        print("RESULT " + json.dumps([key, outcome, finite]), flush=True)
""")

FUZZ_RUN_319 = [  # tools/fuzz.py run 319 (seed 0, --algorithms duol --exponents=250,308): row 7 at ~1e257
    [
        2.1407381687351874,
        0.35924252896061737,
        0.5516784658545505,
        0.3309293080058756,
        0.6107482403322279,
        0.1377998797677552,
        -0.4614511495043781,
    ],
    [
        -0.868230662702943,
        -1.39577192786861,
        1.3454140569671669,
        -0.7860426806043672,
        -0.4917219451787962,
        1.0729141113052643,
        -0.08375804364725904,
    ],
    [
        1.2939729222726002,
        1.1339313665656456,
        0.7759421030707534,
        -0.8959065468714381,
        0.28372830821421063,
        0.7691096630511565,
        1.6731576177064145,
    ],
    [
        -1.064581618974985,
        0.5150079117784218,
        -0.6523408326753968,
        1.1509223056994369,
        -0.40087311480552335,
        -1.8635493150938172,
        0.4457320238562557,
    ],
    [
        1.5088811920447815,
        -0.11829977820526721,
        0.39394053759401604,
        -0.06339888368318779,
        -0.41282024378885696,
        -2.219787938041253,
        -1.2444257140327382,
    ],
    [
        0.9779195000298136,
        -0.867200401017036,
        0.19697328118114066,
        -1.157589425584103,
        -0.2827740532653521,
        0.13576470517175734,
        0.3248188407414648,
    ],
    [
        1.5690861739438013,
        -1.3798855884799799,
        -0.9896169042071544,
        0.29879548130147815,
        1.0950033479234675,
        -1.1579250483549766,
        -0.00896119321844461,
    ],
    [
        1.1516555961491372e257,
        -1.55979881193e257,
        -7.263804738333543e256,
        9.374380389716565e256,
        -8.350324482060908e256,
        -5.359677934967151e256,
        1.6983095585934615e257,
    ],
    [
        1.1730514775410317,
        1.5455823524589363,
        0.9092297785944838,
        -0.028435873195895373,
        0.08824780633785256,
        -0.9981028139195376,
        0.48625114201281994,
    ],
]
FUZZ_RUN_319_Y = [4.0, 2.0, 4.0, 2.0, 3.0, 4.0, 4.0, 1.0, 3.0]


def _stream(n, d, K, seed, scale_rows):
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.argmax(X @ rng.normal(size=(d, K)), axis=1) if K > 2 else np.where(X @ rng.normal(size=d) > 0, 1, -1)
    for rows, scale in scale_rows:
        X[rows] *= scale
    return X.tolist(), y.tolist()


def _run_child(cases):
    return run_child_cases(CHILD, cases, timeout=3000)


def test_tie_bound_of_an_infinite_minimum_is_the_minimum():
    assert tie_bound(-float("inf"), 1e-9) == -float("inf")
    assert tie_bound(-2.0, 1e-9) == -2.0 + 2e-9
    assert tie_bound(0.0, 1e-9) == 0.0


def test_mduol_at_overflowing_kernel_values_refuses_the_example_instead_of_crashing():
    """The fuzzer's M-DUOL case (poly kernel, 4 classes, one row at 1e257: SIGSEGV before) and the issue's
    shape (kernel='linear', dense 3-class 41 x 10, rows reaching 1e300), dense and CSR: each run ends, with
    a ValueError naming the example when it cannot be learned, and the model stays finite."""
    cases = {
        "fuzz run 319": ["duol", {"kernel": "poly", "degree": 3, "coef0": 0.0}, FUZZ_RUN_319, FUZZ_RUN_319_Y, "dense"]
    }
    for seed in range(4):
        X, y = _stream(41, 10, 3, seed, [(slice(None, None, 4), 1e300)])
        for kernel in ("linear", "poly", "gaussian"):
            for fmt in ("dense", "csr"):
                cases[f"duol {kernel} 3-class rows 1e300 seed {seed} {fmt}"] = ["duol", {"kernel": kernel}, X, y, fmt]
    results = _run_child(cases)
    outcome, finite = results["fuzz run 319"]
    assert outcome.startswith("ValueError: duol: cannot learn example 7"), outcome
    for key, (outcome, finite) in results.items():
        assert finite, f"{key}: NaN/inf in the model"
        assert outcome == "ok" or "cannot learn example" in outcome or "rescale" in outcome, f"{key}: {outcome}"


def test_every_learner_survives_rows_at_1e300_and_1e_minus_300():
    """Every registered learner (default parameters) on dense streams, binary and 3-class, with every fourth
    row at 1e300 and the next at 1e-300: no crash, a finite model. (CSR storage, the other kernels and more
    magnitude patterns are swept by tools/fuzz.py, exponents -300..300.)"""
    from olkit import registry

    cases = {}
    for name in registry.names():
        for K in (2, 3):
            if K == 3 and "multiclass" not in registry.spec(name).data:
                continue
            X, y = _stream(41, 10, K, K, [(slice(None, None, 4), 1e300), (slice(1, None, 4), 1e-300)])
            cases[f"{name} K={K}"] = [name, {}, X, y, "dense"]
    results = _run_child(cases)
    assert set(results) == set(cases)
    for key, (outcome, finite) in results.items():
        assert finite, f"{key}: NaN/inf in the model ({outcome})"


FUZZ_RUN_486 = [  # tools/fuzz.py run 486 (seed 0, make fuzz): every row at ~1e170, poly kernel of degree 3
    [-8.744564250507944e169, -1.2199213398408458e170, 1.1338039327275061e170, -1.856079383332721e170],
    [0.0, 0.0, 0.0, 0.0],
    [-2.0233786605846707e170, 4.5791550915338246e169, -1.1243304517488215e169, 1.1936166455851006e170],
    [1.1807927571749616e170, 1.2470260110233984e170, 4.8107368083197114e169, -1.7495636198151703e170],
    [1.1474208152879438e170, 1.2856682872895678e169, -6.580538275444086e169, 2.0490195812595395e169],
    [-9.915189861827125e169, 3.8900816442880316e169, -4.493354405283121e169, 1.6821267556751002e170],
    [8.354716333975675e169, -1.699038313928135e169, 1.30834733260368e170, -1.0909472094190072e170],
]


def test_ahpatron_ahp_r_halving_with_nan_magnitudes_stays_in_bounds():
    """Ahpatron.R's halving keeps the first B/2 SVs with |α_i| ≥ median(|α|); NaN magnitudes (kernel values
    that overflow) compare false, so fewer than B/2 were kept and the drop list was written past its end
    (bounds-checked fuzz: IndexError, runs 486, 3938, 8595, 8693, 9385 at 1e170..1e295). Now the example is
    refused with the model as it was."""
    y = ["bee", "ant", "ant", "bee", "bee", "ant", "bee"]
    params = {
        "kernel": "poly",
        "degree": 3,
        "coef0": 1.0,
        "B": 4,
        "lam": 0.3,
        "epsilon": 0.5,
        "eta": 0.1,
        "compat": "ahp-r",
    }
    results = _run_child({"fuzz run 486": ["ahpatron", params, FUZZ_RUN_486, y, "dense"]})
    outcome, finite = results["fuzz run 486"]
    assert finite and outcome.startswith("ValueError: ahpatron: cannot learn example"), outcome
