"""Tests of the SCW (ICML 2012) data: the synthetic generator (docs/algorithms/evaluation.md#synthetic-data) and the
derived catalog
entries (synthetic, synthetic-noise, usps-1vsall, mnist-1vs2).

Tests on the benchmark files need the directory named by OLKIT_DATA (``../shared/data`` in CI) and are
skipped without it; everything else runs on generated data and on small files written here.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from helpers import require_data_files
from olkit.data import (
    CATALOG,
    DatasetSpec,
    catalog,
    dataset_info,
    libsvm,
    list_datasets,
    load_dataset,
    make_scw_synthetic,
)

S45 = math.sqrt(0.5)
NEW_NAMES = ("synthetic", "synthetic-noise", "usps-1vsall", "mnist-1vs2")
OLD_NAMES = (
    "sonar",
    "sonar-raw",
    "splice",
    "german",
    "mushrooms",
    "dorothea",
    "dorothea-raw",
    "w7a",
    "w8a",
    "a9a",
    "ijcnn1",
    "usps",
    "mnist",
    "dna",
    "segment",
    "letter",
    "vehicle",
)
AHPATRON_NAMES = ("cod-rna",)  # the Ahpatron paper's cod-rna adds a test part we lack
ISSUE10_NAMES = ("codrna", "mitface", "mitface-histeq", "letter-all")  # SCW's codrna, MITFace, letter train + test
SPLIT_NAMES = (
    "splice.train",
    "splice.test",
    "w7a.train",
    "w7a.test",
    "w8a.train",
    "w8a.test",
    "a9a.train",
    "a9a.test",
    "ijcnn1.train",
    "ijcnn1.test",
    "usps.train",
    "usps.test",
    "mnist.train",
    "mnist.test",
    "dna.train",
    "dna.test",
    "letter.train",
    "letter.test",
    "dorothea.train",
    "dorothea.valid",
)  # issue 22
DERIVED_VALUES = ("mitface", "mitface-histeq")  # files read as they are, values derived
NEW_NAMES += ("mnist-1vs2-raw",)  # SCW's mnist "1 vs 2" on the raw grey levels


@pytest.fixture
def no_data_dir(monkeypatch):
    """Run with OLKIT_DATA unset, so only the bundled files (and generators) can be found."""
    monkeypatch.delenv("OLKIT_DATA", raising=False)


def _true_scores(X):
    """The C15 separator: -sin45 * x1 + cos45 * x2."""
    return -S45 * X[:, 0] + S45 * X[:, 1]


def _within_binomial(count, n, p, sigmas=5.0):
    return abs(count - n * p) <= sigmas * math.sqrt(n * p * (1 - p))


# --- make_scw_synthetic -----------------------------------------------------------------------------


def test_default_shapes_and_types():
    X, y = make_scw_synthetic()
    assert X.shape == (5000, 20) and X.dtype == np.float64 and isinstance(X, np.ndarray)
    assert y.shape == (5000,) and y.dtype == np.int64
    assert set(np.unique(y).tolist()) == {-1, 1}
    assert np.isfinite(X).all()


def test_same_seed_same_data_other_seed_other_data():
    X1, y1 = make_scw_synthetic(n_samples=300, noise=0.2, seed=7)
    X2, y2 = make_scw_synthetic(n_samples=300, noise=0.2, seed=7)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    X3, y3 = make_scw_synthetic(n_samples=300, noise=0.2, seed=8)
    assert not np.array_equal(X1, X3) and not np.array_equal(y1, y3)
    # a Generator is accepted as the seed, like numpy.random.default_rng does
    X4, _ = make_scw_synthetic(n_samples=300, noise=0.2, seed=np.random.default_rng(7))
    np.testing.assert_array_equal(X1, X4)


@pytest.mark.parametrize("n_samples, n_features", [(1, 2), (7, 2), (50, 3), (200, 31)])
def test_requested_shapes(n_samples, n_features):
    X, y = make_scw_synthetic(n_samples=n_samples, n_features=n_features, seed=1)
    assert X.shape == (n_samples, n_features) and y.shape == (n_samples,)


def test_labels_are_balanced():
    n = 20000
    _, y = make_scw_synthetic(n_samples=n, seed=2)
    assert _within_binomial(int((y == 1).sum()), n, 0.5)


def test_noise_free_data_separated_by_the_true_separator_through_the_origin():
    X, y = make_scw_synthetic(n_samples=20000, seed=3)
    score = _true_scores(X)
    np.testing.assert_array_equal(y, np.where(score >= 0, 1, -1))
    assert (y * score >= 0).all()
    # the same through a weight vector on all d features (irrelevant features weigh 0)
    w = np.zeros(X.shape[1])
    w[:2] = (-S45, S45)
    assert (y * (X @ w) >= 0).all()


def test_noise_flips_labels_at_the_requested_rate():
    n, p = 20000, 0.1
    X0, y0 = make_scw_synthetic(n_samples=n, noise=0.0, seed=4)
    X1, y1 = make_scw_synthetic(n_samples=n, noise=p, seed=4)
    np.testing.assert_array_equal(X0, X1)  # same draws, only the labels differ
    flipped = y0 != y1
    assert _within_binomial(int(flipped.sum()), n, p)
    np.testing.assert_array_equal(y1[flipped], -y0[flipped])
    # against the true separator the noisy labels are wrong exactly where flipped
    np.testing.assert_array_equal(y1 != np.where(_true_scores(X1) >= 0, 1, -1), flipped)


def test_noise_one_flips_every_label():
    _, y0 = make_scw_synthetic(n_samples=500, seed=5)
    _, y1 = make_scw_synthetic(n_samples=500, noise=1.0, seed=5)
    np.testing.assert_array_equal(y1, -y0)


@pytest.mark.parametrize("s_long, s_short", [(1.0, 0.1), (2.0, 1.0), (5.0, 0.3)])
def test_signal_plane_is_a_gaussian_rotated_by_45_degrees(s_long, s_short):
    X, _ = make_scw_synthetic(n_samples=20000, s_long=s_long, s_short=s_short, seed=6)
    assert abs(X[:, :2].mean(axis=0)).max() < 5 * s_long / math.sqrt(20000)
    eigval, eigvec = np.linalg.eigh(np.cov(X[:, :2].T))  # ascending
    major = eigvec[:, 1]
    angle = math.degrees(math.atan2(major[1], major[0])) % 180.0
    assert abs(angle - 45.0) < 1.5, angle
    np.testing.assert_allclose(np.sqrt(eigval[::-1]), [s_long, s_short], rtol=0.05)


def test_irrelevant_features_have_variance_noise_var():
    X, y = make_scw_synthetic(n_samples=20000, n_features=6, noise_var=2.0, seed=7)
    np.testing.assert_allclose(X[:, 2:].var(axis=0), 2.0, rtol=0.05)
    assert abs(np.corrcoef(X.T)[2:, :2]).max() < 0.05  # independent of the signal features
    X, _ = make_scw_synthetic(n_samples=100, n_features=6, noise_var=0.0, seed=7)
    assert not X[:, 2:].any()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_samples": 0}, "n_samples must be an integer >= 1"),
        ({"n_samples": 2.5}, "n_samples must be an integer >= 1"),
        ({"n_samples": True}, "n_samples must be an integer >= 1"),
        ({"n_samples": "10"}, "n_samples must be an integer >= 1"),
        ({"n_features": 1}, "n_features must be an integer >= 2"),
        ({"n_features": 20.0}, "n_features must be an integer >= 2"),
        ({"noise": -0.1}, "noise must be a finite number with 0 <= noise <= 1"),
        ({"noise": 1.5}, "noise must be a finite number with 0 <= noise <= 1"),
        ({"noise": float("nan")}, "noise must be a finite number with 0 <= noise <= 1"),
        ({"s_long": 0.0}, "s_long must be a finite number with s_long > 0"),
        ({"s_long": float("inf")}, "s_long must be a finite number with s_long > 0"),
        ({"s_short": -1.0}, "s_short must be a finite number with s_short > 0"),
        ({"noise_var": -0.5}, "noise_var must be a finite number with noise_var >= 0"),
        ({"noise_var": None}, "noise_var must be a finite number with noise_var >= 0"),
    ],
)
def test_bad_parameters_are_named_with_their_range(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_scw_synthetic(**kwargs)


def test_numpy_integers_accepted():
    X, _ = make_scw_synthetic(n_samples=np.int64(10), n_features=np.int32(3))
    assert X.shape == (10, 3)


# --- catalog: generated entries ---------------------------------------------------------------------


def test_catalog_synthetic_is_the_generator_output_as_csr(no_data_dir):
    X, y = load_dataset("synthetic")
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64 and X.shape == (5000, 20)
    assert y.dtype == np.float64 and set(np.unique(y)) == {-1.0, 1.0}
    Xg, yg = make_scw_synthetic(n_samples=5000, n_features=20, noise=0.0, seed=0)
    np.testing.assert_array_equal(X.toarray(), Xg)
    np.testing.assert_array_equal(y, yg)
    assert (y * _true_scores(Xg) >= 0).all()  # separable


def test_catalog_synthetic_noise_flips_about_ten_percent(no_data_dir):
    X0, y0 = load_dataset("synthetic")
    X1, y1 = load_dataset("synthetic-noise")
    assert X1.shape == (5000, 20)
    assert (X0 != X1).nnz == 0  # same seed: same examples
    assert _within_binomial(int((y0 != y1).sum()), 5000, 0.1)


def test_generated_entries_listed_as_available_without_olkit_data(no_data_dir):
    entries = {entry["name"]: entry for entry in list_datasets()}
    for name in ("synthetic", "synthetic-noise"):
        entry = entries[name]
        assert entry["availability"] == "bundled" and entry["missing_files"] == [] and entry["paths"] == []
        assert entry["paper_shape"] == "SCW Tab.2: 5000 x 20"
        assert "make_scw_synthetic(" in entry["derivation"] and "UNCERTAIN" in entry["notes"]
        info = dataset_info(name)
        assert (info["n_examples"], info["n_features"], info["n_classes"]) == (5000, 20, 2)
        assert set(info["label_counts"]) == {-1, 1} and info["files"] == []
    assert "noise=0.1" in entries["synthetic-noise"]["derivation"]


def test_generated_dataset_copies_and_n_features(no_data_dir):
    X, y = load_dataset("synthetic")
    X.data[:] = 0.0
    y[:] = 7.0
    X2, y2 = load_dataset("synthetic")
    assert X2.data.any() and set(np.unique(y2)) == {-1.0, 1.0}
    assert load_dataset("synthetic", n_features=25)[0].shape == (5000, 25)
    with pytest.raises(ValueError, match="n_features=10"):
        load_dataset("synthetic", n_features=10)


# --- catalog: the derivation mechanism ----------------------------------------------------------------

TOY = b"1 1:1\n2 2:1\n3 3:1\n2 1:2\n1 2:2\n4 3:2\n"


def _toy_spec(**kwargs):
    return DatasetSpec("toy-derived", ("toy.libsvm",), 5, "none", "toy file", "test entry", **kwargs)


def test_classes_and_positive_select_and_relabel_in_file_order(monkeypatch, tmp_path):
    (tmp_path / "toy.libsvm").write_bytes(TOY)
    monkeypatch.setenv("OLKIT_DATA", str(tmp_path))
    monkeypatch.setitem(CATALOG, "toy-derived", _toy_spec(classes=(1, 2), positive=(2,)))
    X, y = load_dataset("toy-derived")
    assert X.shape == (4, 5)
    np.testing.assert_array_equal(y, [-1, 1, 1, -1])  # raw 1, 2, 2, 1
    np.testing.assert_array_equal(X.toarray()[:, :3], [[1, 0, 0], [0, 1, 0], [2, 0, 0], [0, 2, 0]])
    info = dataset_info("toy-derived")
    assert info["label_counts"] == {-1: 2, 1: 2} and "{1, 2}" in info["derivation"]

    monkeypatch.setitem(CATALOG, "toy-derived", _toy_spec(positive=(3, 4)))  # one(-set)-vs-all
    np.testing.assert_array_equal(load_dataset("toy-derived")[1], [-1, -1, 1, -1, -1, 1])

    monkeypatch.setitem(CATALOG, "toy-derived", _toy_spec(classes=(4, 3)))  # subset, raw labels kept
    X, y = load_dataset("toy-derived")
    np.testing.assert_array_equal(y, [3, 4])
    assert X.shape == (2, 5)

    monkeypatch.setitem(CATALOG, "toy-derived", _toy_spec(classes=(9,)))
    with pytest.raises(ValueError, match="no example has a raw label in"):
        load_dataset("toy-derived")


def test_derived_dataset_reads_through_the_parse_cache(monkeypatch, tmp_path):
    # A usps stand-in: the first load parses it and stores the parse; the derived entry must not reparse.
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "usps.train.libsvm").write_bytes(TOY)
    monkeypatch.setenv("OLKIT_DATA", str(data_dir))
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    catalog._read_files.cache_clear()
    X_raw, y_raw = load_dataset("usps")
    assert list((tmp_path / "cache").iterdir())  # parse stored

    def refuse(path):
        raise AssertionError(f"{path} parsed again")

    monkeypatch.setattr(libsvm, "_parse", refuse)
    catalog._read_files.cache_clear()
    X, y = load_dataset("usps-1vsall")
    assert X.shape == (6, 256)
    np.testing.assert_array_equal(y, np.where(y_raw == 2, 1.0, -1.0))
    catalog._read_files.cache_clear()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"generator": "no_such_generator"}, "unknown generator 'no_such_generator'; valid generators: make_scw"),
        ({"generator_kwargs": (("seed", 1),)}, "generator_kwargs given without a generator"),
        ({"classes": ()}, "classes must list at least one raw label"),
        ({"positive": ()}, "positive must list at least one raw label"),
        ({"classes": (1, 2), "positive": (3,)}, r"positive label\(s\) 3 are not among classes 1, 2"),
    ],
)
def test_inconsistent_specs_rejected(kwargs, message):
    with pytest.raises(ValueError, match=message):
        _toy_spec(**kwargs)


def test_generated_spec_fills_files_and_is_bundled():
    spec = DatasetSpec(
        "g", (), 20, "p", "s", "n", generator="make_scw_synthetic", generator_kwargs=(("n_samples", 10), ("seed", 1))
    )
    assert spec.files == ("generated: make_scw_synthetic(n_samples=10, seed=1)",) and spec.bundled
    assert spec.generator_params == {"n_samples": 10, "seed": 1}
    hash(spec)  # frozen and hashable, like the file entries


# --- catalog listing ----------------------------------------------------------------------------------


def test_catalog_lists_the_new_and_all_previous_datasets(no_data_dir):
    assert set(OLD_NAMES) | set(NEW_NAMES) | set(AHPATRON_NAMES) | set(ISSUE10_NAMES) | set(SPLIT_NAMES) == set(CATALOG)
    for name in SPLIT_NAMES:  # one file each, read as it is
        assert len(CATALOG[name].files) == 1 and CATALOG[name].derivation is None
    listed = [entry["name"] for entry in list_datasets()]
    assert listed == list(CATALOG)
    for name in set(OLD_NAMES) | set(ISSUE10_NAMES) - set(DERIVED_VALUES):
        assert CATALOG[name].derivation is None and CATALOG[name].generator is None
    assert CATALOG["mitface"].derivation == "every value / 255"
    assert CATALOG["mnist-1vs2-raw"].derivation == (
        "rows whose raw label is in {1, 2}; label +1 where the raw label is in {2}, else -1; every value x 255"
    )
    assert CATALOG["mitface-histeq"].derivation == "every example histogram-equalised"
    assert "svm.train.normgrey" in CATALOG["mitface"].notes and "histogram-equalised" in CATALOG["mitface"].notes
    assert CATALOG["usps-1vsall"].paper_shape == "SCW Tab.2: 7291 x 256 (1 vs all)"
    assert CATALOG["mnist-1vs2"].paper_shape == "SCW Tab.2: 14867 x 784"
    assert CATALOG["mnist-1vs2"].files == ("mnist.train.libsvm.bz2", "mnist.test.libsvm.bz2")
    assert "14,867" in CATALOG["mnist-1vs2"].notes
    assert "raw label 2" in CATALOG["usps-1vsall"].notes


def test_cli_datasets_shows_the_new_entries(capsys, no_data_dir):
    from olkit.cli import main

    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in NEW_NAMES:
        assert f"\n{name} " in out
    assert "generated: make_scw_synthetic(" in out


# --- real benchmark files from OLKIT_DATA -----------------------------------------------------------


def test_usps_1vsall_is_digit_one_against_the_rest():
    require_data_files("usps-1vsall")
    X, y = load_dataset("usps-1vsall")
    assert sp.isspmatrix_csr(X) and X.shape == (7291, 256)
    assert dict(zip(*np.unique(y, return_counts=True))) == {-1.0: 6286, 1.0: 1005}
    X_raw, y_raw = load_dataset("usps")
    assert (X != X_raw).nnz == 0  # every row, same order
    np.testing.assert_array_equal(y == 1, y_raw == 2)  # raw label = digit + 1
    assert dataset_info("usps-1vsall")["label_counts"] == {-1: 6286, 1: 1005}


def test_mnist_1vs2_keeps_only_digits_one_and_two():
    require_data_files("mnist-1vs2")
    X, y = load_dataset("mnist-1vs2")
    assert sp.isspmatrix_csr(X) and X.shape == (14867, 784)
    assert dict(zip(*np.unique(y, return_counts=True))) == {-1.0: 7877, 1.0: 6990}
    # the digits 1 and 2 of the train file, then those of the test file, in file order
    spec = CATALOG["mnist-1vs2"]
    parts = [libsvm.read_libsvm(catalog._find_file(spec, file)[0], n_features=784) for file in spec.files]
    X_raw = sp.vstack([part for part, _ in parts], format="csr")
    y_raw = np.concatenate([labels for _, labels in parts])
    keep = (y_raw == 1) | (y_raw == 2)
    assert (X != X_raw[keep]).nnz == 0 and X[:, 780:].nnz == 0
    np.testing.assert_array_equal(y, np.where(y_raw[keep] == 2, 1.0, -1.0))
    info = dataset_info("mnist-1vs2")
    assert info["n_classes"] == 2 and info["label_counts"] == {-1: 7877, 1: 6990}
    X255, y255 = load_dataset("mnist-1vs2-raw")  # the raw grey levels, 0..255
    np.testing.assert_array_equal(y255, y)
    np.testing.assert_allclose(X255.toarray(), 255 * X.toarray(), rtol=1e-15)
    assert abs(X255.data - np.round(X255.data)).max() < 3e-4 and X255.data.max() == 255.0
