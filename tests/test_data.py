"""Tests of olkit.data: LIBSVM reading, the dataset catalog and label conventions.

Tests on the large benchmark files need the directory named by OLKIT_DATA (``../shared/data`` in CI) and
are skipped without it; everything else runs on the bundled datasets and on small files written here.
"""

import bz2
import dataclasses
import gzip
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from helpers import require_data_files
from olkit.data import (
    CATALOG,
    DatasetSpec,
    binary_labels,
    catalog,
    check_labels_finite,
    dataset_info,
    list_datasets,
    load_dataset,
    read_libsvm,
)

SMALL = b"1 1:0.5 3:2\n-1 2:-1.5\n# a comment line\n\n1 1:1 2:1 3:1e-3 # trailing comment\n"
SMALL_DENSE = [[0.5, 0.0, 2.0], [0.0, -1.5, 0.0], [1.0, 1.0, 1e-3]]


@pytest.fixture
def no_data_dir(monkeypatch):
    """Run with OLKIT_DATA unset, so only the bundled files can be found."""
    monkeypatch.delenv("OLKIT_DATA", raising=False)


def _write(path: Path, content: bytes) -> Path:
    opener = {".bz2": bz2.open, ".gz": gzip.open}.get(path.suffix, open)
    with opener(path, "wb") as f:
        f.write(content)
    return path


# --- read_libsvm ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["small.libsvm", "small.libsvm.bz2", "small.libsvm.gz"])
def test_read_plain_and_compressed(tmp_path, name):
    X, y = read_libsvm(_write(tmp_path / name, SMALL))
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64 and y.dtype == np.float64
    np.testing.assert_array_equal(X.toarray(), SMALL_DENSE)
    np.testing.assert_array_equal(y, [1, -1, 1])


def test_compression_detected_from_content_not_name(tmp_path):
    path = tmp_path / "small.txt"
    path.write_bytes(gzip.compress(SMALL))
    X, _ = read_libsvm(path)
    np.testing.assert_array_equal(X.toarray(), SMALL_DENSE)


def test_n_features_pads_and_rejects_too_small(tmp_path):
    path = _write(tmp_path / "small.libsvm", SMALL)
    X, _ = read_libsvm(path, n_features=10)
    assert X.shape == (3, 10)
    np.testing.assert_array_equal(X.toarray()[:, :3], SMALL_DENSE)
    with pytest.raises(ValueError, match="n_features=2 but the data use feature index 3"):
        read_libsvm(path, n_features=2)


GOOD_LINE = b"1 1:1 2:2\n"


@pytest.mark.parametrize(
    "bad_line, reason",
    [
        (b"foo 1:1", "bad label 'foo'"),
        (b"nan 1:1", "label 'nan' is NaN or infinite"),
        (b"1 1:1 3", "token '3' has no ':'"),
        (b"1 1.5:2", "index '1.5' is not an integer"),
        (b"1 0:2", "index 0 is < 1"),
        (b"1 -2:2", "index -2 is < 1"),
        (b"1 2:abc", "value 'abc' of index 2 is not a number"),
        (b"1 2: 5", "value '' of index 2 is not a number"),
        (b"1 2:nan", "value 'nan' of index 2 is NaN or infinite"),
        (b"1 2:-inf", "value '-inf' of index 2 is NaN or infinite"),
        (b"1 2:1e400", "value '1e400' of index 2 is NaN or infinite"),
        (b"1 3:1 2:1", "indices not increasing (2 after 3)"),
        (b"1 2:1 2:1", "indices not increasing (2 after 2)"),
    ],
)
@pytest.mark.parametrize("suffix", ["", ".bz2"])
def test_malformed_line_reported_with_line_number(tmp_path, bad_line, reason, suffix):
    # The bad line is line 3 of 5; the two lines after it are valid.
    path = _write(tmp_path / f"bad.libsvm{suffix}", GOOD_LINE * 2 + bad_line + b"\n" + GOOD_LINE * 2)
    with pytest.raises(ValueError) as info:
        read_libsvm(path)
    message = str(info.value)
    assert message.startswith(f"{path}:3: malformed LIBSVM line: ")
    assert reason in message
    assert "1-based increasing integer indices" in message


def test_line_number_counts_comments_and_blank_lines(tmp_path):
    path = _write(tmp_path / "bad.libsvm", b"# header\n\n1 1:1\n   \n1 1:x\n")
    with pytest.raises(ValueError, match=r"bad\.libsvm:5: malformed LIBSVM line"):
        read_libsvm(path)


@pytest.mark.parametrize("content", [b"", b"# only a comment\n\n   \n"])
def test_file_without_examples_rejected(tmp_path, content):
    with pytest.raises(ValueError, match="no examples"):
        read_libsvm(_write(tmp_path / "empty.libsvm", content))


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such LIBSVM file"):
        read_libsvm(tmp_path / "absent.libsvm")


# --- catalog: bundled datasets ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, shape", [("sonar", (208, 60)), ("german", (1000, 24)), ("splice", (1000, 60)), ("mushrooms", (8124, 112))]
)
def test_bundled_dataset_shapes(no_data_dir, name, shape):
    X, y = load_dataset(name)
    assert sp.isspmatrix_csr(X) and X.dtype == np.float64
    assert X.shape == shape and y.shape == (shape[0],) and y.dtype == np.float64
    assert np.isfinite(X.data).all()
    assert dataset_info(name)["n_classes"] == 2


def test_mushrooms_labels_map_1_to_minus1_and_2_to_plus1(no_data_dir):
    _, y = load_dataset("mushrooms")
    y_pm1, classes = binary_labels(y)
    np.testing.assert_array_equal(classes, [1, 2])
    np.testing.assert_array_equal(y_pm1[y == 1], -1)
    np.testing.assert_array_equal(y_pm1[y == 2], 1)
    assert (y_pm1 == -1).sum() == 3916 and (y_pm1 == 1).sum() == 4208


def test_dataset_info_of_bundled_dataset(no_data_dir):
    info = dataset_info("german")
    assert (info["n_examples"], info["n_features"], info["n_classes"]) == (1000, 24, 2)
    assert info["label_counts"] == {-1: 700, 1: 300}
    assert info["paper_shape"] == CATALOG["german"].paper_shape
    assert [Path(f).name for f in info["files"]] == ["german.libsvm.bz2"]


def test_load_dataset_returns_independent_copies(no_data_dir):
    X, y = load_dataset("german")
    X.data[:] = 0.0
    y[:] = 7.0
    X2, y2 = load_dataset("german")
    assert X2.data.any() and set(np.unique(y2)) == {-1.0, 1.0}


def test_list_datasets_reports_availability(no_data_dir):
    entries = {entry["name"]: entry for entry in list_datasets()}
    assert set(entries) == set(CATALOG)
    for name, spec in CATALOG.items():
        expected = "bundled" if spec.bundled else "missing"
        assert entries[name]["availability"] == expected, name
        assert entries[name]["missing_files"] == ([] if spec.bundled else list(spec.files))


def test_catalog_entries_are_frozen_specs():
    for name, spec in CATALOG.items():
        assert isinstance(spec, DatasetSpec) and spec.name == name and spec.files
        assert spec.paper_shape and spec.source and spec.notes
    with pytest.raises(dataclasses.FrozenInstanceError):
        CATALOG["german"].n_features = 3


# --- catalog: names, paths and OLKIT_DATA -----------------------------------------------------------


def test_unknown_name_lists_valid_names(no_data_dir):
    with pytest.raises(ValueError) as info:
        load_dataset("no-such-dataset")
    message = str(info.value)
    assert "unknown dataset 'no-such-dataset'" in message
    for name in ("german", "a9a", "dorothea", "sonar-raw"):
        assert name in message


def test_path_is_loaded(tmp_path):
    path = _write(tmp_path / "small.libsvm.bz2", SMALL)
    for argument in (path, str(path)):
        X, y = load_dataset(argument)
        np.testing.assert_array_equal(X.toarray(), SMALL_DENSE)
        np.testing.assert_array_equal(y, [1, -1, 1])
    assert load_dataset(path, n_features=5)[0].shape == (3, 5)
    assert dataset_info(path)["label_counts"] == {-1: 1, 1: 2}


def test_cache_sees_a_rewritten_file(tmp_path):
    path = _write(tmp_path / "small.libsvm", SMALL)
    assert load_dataset(path)[0].shape == (3, 3)
    _write(path, SMALL + b"1 7:1\n")
    assert load_dataset(path)[0].shape == (4, 7)


@pytest.mark.parametrize("data_dir", [None, "empty"])
def test_missing_catalog_files_name_the_file_and_olkit_data(monkeypatch, tmp_path, data_dir):
    if data_dir is None:
        monkeypatch.delenv("OLKIT_DATA", raising=False)
    else:
        monkeypatch.setenv("OLKIT_DATA", str(tmp_path))
    with pytest.raises(ValueError) as info:
        load_dataset("a9a")
    message = str(info.value)
    assert "a9a.train.libsvm.bz2" in message and "a9a.test.libsvm.bz2" in message
    assert "OLKIT_DATA" in message and "directory" in message


def test_files_found_in_olkit_data_in_any_compression(monkeypatch, tmp_path):
    # A decompressed w7a stand-in: found under the plain name, padded to the declared 300 features.
    _write(tmp_path / "w7a.train.libsvm", SMALL)
    monkeypatch.setenv("OLKIT_DATA", str(tmp_path))
    X, y = load_dataset("w7a")
    assert X.shape == (3, 300)
    np.testing.assert_array_equal(X.toarray()[:, :3], SMALL_DENSE)
    entry = next(e for e in list_datasets() if e["name"] == "w7a")
    assert entry["availability"] == "OLKIT_DATA"
    assert entry["paths"] == [str(tmp_path / "w7a.train.libsvm")]


def test_catalog_concatenates_files_padded_to_common_width(monkeypatch, tmp_path):
    _write(tmp_path / "ijcnn1.train.libsvm.gz", b"1 1:1\n")
    _write(tmp_path / "ijcnn1.test.libsvm.bz2", b"-1 22:2\n-1 3:3\n")
    monkeypatch.setenv("OLKIT_DATA", str(tmp_path))
    X, y = load_dataset("ijcnn1")
    assert X.shape == (3, 22) and X[0, 0] == 1 and X[1, 21] == 2 and X[2, 2] == 3
    np.testing.assert_array_equal(y, [1, -1, -1])


def test_row_normalised_data_stay_canonical(monkeypatch, tmp_path):
    """Issue 21: the catalog's row normalisation (dorothea) keeps each row's index order and gives the numbers
    of diag(1/‖row‖) @ X, so a learner's input check never sorts a copy of the data again (the product
    listed each row's indices in reverse)."""
    _write(tmp_path / "dorothea.train.libsvm", b"1 1:1 5:2\n-1 2:4 4:3\n")
    _write(tmp_path / "dorothea.valid.libsvm", b"1 1:1 2:1 3:1\n")
    monkeypatch.setenv("OLKIT_DATA", str(tmp_path))
    X, _ = load_dataset("dorothea")
    assert X.has_canonical_format
    raw = load_dataset("dorothea-raw")[0].toarray()
    expected = np.diag(1.0 / np.sqrt((raw * raw).sum(axis=1))) @ raw
    np.testing.assert_array_equal(X.toarray(), expected)


# --- labels -----------------------------------------------------------------------------------------


def test_binary_labels_keeps_pm1_and_maps_smaller_to_minus1():
    y_pm1, classes = binary_labels(np.array([-1.0, 1.0, 1.0]))
    np.testing.assert_array_equal(y_pm1, [-1, 1, 1])
    np.testing.assert_array_equal(classes, [-1, 1])
    np.testing.assert_array_equal(binary_labels([0, 5, 0])[0], [-1, 1, -1])


def test_binary_labels_rejects_one_class_and_many_classes():
    with pytest.raises(ValueError, match="one class only: every label is 2"):
        binary_labels([2, 2, 2])
    with pytest.raises(ValueError, match="3 classes found: 1, 2, 3"):
        binary_labels([3, 1, 2])


def test_label_finiteness():
    check_labels_finite(np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="first at example 1"):
        check_labels_finite(np.array([1.0, np.nan, np.inf]))
    with pytest.raises(ValueError, match="NaN or infinite"):
        binary_labels([1.0, np.inf])


# --- real benchmark files from OLKIT_DATA -----------------------------------------------------------


def test_dorothea_is_sparse_and_never_densified(monkeypatch):
    require_data_files("dorothea")

    def refuse(*args, **kwargs):
        raise AssertionError("dorothea was densified")

    for method in ("toarray", "todense"):
        monkeypatch.setattr(sp.csr_matrix, method, refuse)
    catalog._read_files.cache_clear()  # make sure the load below really reads the files
    X, y = load_dataset("dorothea")
    assert sp.isspmatrix_csr(X) and X.shape == (1150, 100000)
    assert X.nnz == 727760 + 317752  # about 0.9% of the entries
    assert dict(zip(*np.unique(y, return_counts=True))) == {-1.0: 722 + 316, 1.0: 78 + 34}


@pytest.mark.parametrize("name, shape", [("a9a", (48842, 123)), ("ijcnn1", (141691, 22))])
def test_train_plus_test_datasets_match_paper_shape(name, shape):
    require_data_files(name)
    X, y = load_dataset(name)
    assert sp.isspmatrix_csr(X) and X.shape == shape and y.shape == (shape[0],)
    assert set(np.unique(y)) == {-1.0, 1.0}


# --- 0-based files (zero_based, as scikit-learn's load_svmlight_file) -----------------------------------

ZERO = b"1 0:0.5 2:2\n-1 1:-1.5\n# a comment\n1 0:1 1:1 2:1e-3\n"
ONE = b"1 1:0.5 3:2\n-1 2:-1.5\n# a comment\n1 1:1 2:1 3:1e-3\n"  # the same data, 1-based


@pytest.mark.parametrize("suffix", ["", ".bz2"])
def test_zero_based_reads_as_scikit_learn(tmp_path, suffix):
    from sklearn.datasets import load_svmlight_file

    zero, one = _write(tmp_path / f"zero{suffix}", ZERO), _write(tmp_path / f"one{suffix}", ONE)
    for path, zero_based in [(zero, True), (zero, "auto"), (one, False), (one, "auto"), (one, True)]:
        X, y = read_libsvm(path, zero_based=zero_based)
        X_ref, y_ref = load_svmlight_file(str(path), zero_based=zero_based)
        assert X.shape == X_ref.shape and (X != X_ref).nnz == 0, (path.name, zero_based)
        np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(read_libsvm(zero, zero_based=True)[0].toarray(), SMALL_DENSE)
    np.testing.assert_array_equal(read_libsvm(one, zero_based="auto")[0].toarray(), SMALL_DENSE)
    # read 0-based, a 1-based file gains an empty first column (it is not an error: index 0 is optional)
    assert read_libsvm(one, zero_based=True)[0].shape == (3, 4)


def test_zero_based_is_part_of_the_parse_cache_key(tmp_path, monkeypatch):
    monkeypatch.setenv("OLKIT_CACHE_DIR", str(tmp_path / "cache"))
    path = _write(tmp_path / "one.libsvm", ONE)
    widths = [read_libsvm(path, zero_based=zb)[0].shape[1] for zb in (False, True, "auto", False, True)]
    assert widths == [3, 4, 3, 3, 4]  # each mode parsed once and cached apart
    assert len(list((tmp_path / "cache").iterdir())) == 3


def test_zero_based_through_load_dataset_and_dataset_info(tmp_path):
    path = _write(tmp_path / "zero.libsvm.gz", ZERO)
    X, y = load_dataset(path, zero_based=True)
    np.testing.assert_array_equal(X.toarray(), SMALL_DENSE)
    assert load_dataset(path, n_features=5, zero_based="auto")[0].shape == (3, 5)
    info = dataset_info(path, zero_based=True)
    assert (info["n_examples"], info["n_features"], info["label_counts"]) == (3, 3, {-1: 1, 1: 2})
    with pytest.raises(ValueError, match=r"zero\.libsvm\.gz:1: malformed LIBSVM line: index 0 is < 1"):
        load_dataset(path)  # 1-based by default, as before


def test_zero_based_scan_and_chunks(tmp_path):
    from olkit.data import iter_libsvm, scan_libsvm

    zero, one = _write(tmp_path / "zero.libsvm", ZERO), _write(tmp_path / "one.libsvm", ONE)
    assert scan_libsvm(zero, chunk_size=2, zero_based="auto")["zero_based"] is True
    info = scan_libsvm(one, chunk_size=2, zero_based="auto")
    assert info["zero_based"] is False and info["n_features"] == 3 and info["n_examples"] == 3
    for path in (zero, one):  # "auto" resolves the base over the whole file, even with n_features given
        for n_features in (None, 4):
            chunks = list(iter_libsvm(path, chunk_size=2, n_features=n_features, zero_based="auto"))
            X = sp.vstack([c for c, _ in chunks]).toarray()
            np.testing.assert_array_equal(X[:, :3], SMALL_DENSE)
            assert X.shape[1] == (n_features or 3)
    with pytest.raises(ValueError, match=r"n_features=2 but the data use feature index 2 \(indices are 0-based\)"):
        list(iter_libsvm(zero, n_features=2, zero_based=True))


@pytest.mark.parametrize("zero_based", [True, "auto"])
def test_malformed_zero_based_file_names_file_and_line(tmp_path, zero_based):
    path = _write(tmp_path / "bad0.libsvm", b"1 0:1 1:2\n-1 0:1\n1 2:1 1:3\n-1 0:2\n")
    with pytest.raises(ValueError) as whole:
        read_libsvm(path, zero_based=zero_based)
    message = str(whole.value)
    assert message.startswith(f"{path}:3: malformed LIBSVM line: indices not increasing (1 after 2)")
    assert ("0-based or 1-based" if zero_based == "auto" else "with 0-based increasing") in message
    from olkit.data import iter_libsvm

    with pytest.raises(ValueError, match=r"bad0\.libsvm:3: malformed LIBSVM line"):
        list(iter_libsvm(path, chunk_size=1, n_features=3, zero_based=zero_based))
    negative = _write(tmp_path / "neg.libsvm", b"1 0:1\n1 -1:2\n")
    with pytest.raises(ValueError, match=r"neg\.libsvm:2: malformed LIBSVM line: index -1 is < 0"):
        read_libsvm(negative, zero_based=True)


@pytest.mark.parametrize("bad", ["yes", 1, None, "true"])
def test_zero_based_rejects_other_values(tmp_path, bad):
    path = _write(tmp_path / "one.libsvm", ONE)
    with pytest.raises(ValueError, match=r"zero_based must be False .*, True .* or 'auto'"):
        read_libsvm(path, zero_based=bad)
    with pytest.raises(ValueError, match="zero_based must be"):
        load_dataset(path, zero_based=bad)


@pytest.mark.parametrize("zero_based", [True, "auto"])
def test_zero_based_refused_for_catalog_names(no_data_dir, zero_based):
    with pytest.raises(ValueError, match=r"applies to a LIBSVM file given by path; 'german' is a catalog dataset"):
        load_dataset("german", zero_based=zero_based)


# --- derived values: value_scale, equalize_histograms -------------------------------------------------


def test_equalize_histograms_is_the_textbook_equalisation():
    from olkit.data import equalize_histograms

    X = np.array([[0.0, 0.0, 5.0, 3.0, 3.0, 9.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [0.0, 1.0, 2.0, 4.0, 8.0, 16.0]])
    E = equalize_histograms(sp.csr_matrix(X))
    assert sp.isspmatrix_csr(E)
    # c(v) = #values <= v; (c(v) - c_min) / (d - c_min): row 0 has c_min = 2 (two zeros)
    np.testing.assert_allclose(
        E.toarray(), [[0, 0, 3 / 4, 2 / 4, 2 / 4, 1], [0] * 6, [0, 1 / 5, 2 / 5, 3 / 5, 4 / 5, 1]]
    )
    # invariant to a monotone rescaling of an image (raw grey levels or /255 give the same result)
    np.testing.assert_allclose(equalize_histograms(X / 255).toarray(), E.toarray())


def test_value_scale_is_validated_and_described():
    spec = DatasetSpec("x", ("x.libsvm",), None, "p", "s", "n", value_scale=(1, 255), equalize_histograms=True)
    assert spec.derivation == "every value / 255; every example histogram-equalised"
    assert DatasetSpec("x", ("x.libsvm",), None, "p", "s", "n", value_scale=[255, 1]).derivation == "every value x 255"
    for bad in ((0.0, 1), (1, -1.0), (1, float("nan")), (float("inf"), 1), (255,), (1, 2, 3)):
        with pytest.raises(ValueError, match=r"value_scale must be \(numerator, denominator\), two finite"):
            DatasetSpec("x", ("x.libsvm",), None, "p", "s", "n", value_scale=bad)


def test_value_scale_applies_on_load(monkeypatch, tmp_path):
    monkeypatch.setenv("OLKIT_DATA", str(tmp_path))
    _write(tmp_path / "toy.libsvm", b"1 1:255 2:51\n-1 3:1\n")
    for scale, expected in (
        ((1, 255), [[1, 0.2, 0], [0, 0, 1 / 255]]),
        ((255, 1), [[255**2, 51 * 255, 0], [0, 0, 255]]),
    ):
        monkeypatch.setitem(CATALOG, "toy", DatasetSpec("toy", ("toy.libsvm",), None, "p", "s", "n", value_scale=scale))
        np.testing.assert_array_equal(load_dataset("toy")[0].toarray(), expected)
        assert load_dataset("toy")[0].toarray()[0, 0] == expected[0][0]  # cached file data are not rescaled twice


# --- list_datasets: the shape without loading ---------------------------------------------------------


def _manifest(data_dir, entries):
    import json

    (data_dir / "MANIFEST.json").write_text(json.dumps({"files": entries}))


def test_list_datasets_shape_from_the_manifest(monkeypatch, tmp_path):
    """Shapes come from MANIFEST.json's n_features / label_values (the derivation applied to the counts),
    for files of the size it records; the files themselves are not read."""
    train = _write(tmp_path / "mnist.train.libsvm.bz2", b"1 1:1\n2 2:1\n")
    test = _write(tmp_path / "mnist.test.libsvm.bz2", b"3 3:1\n")
    usps = _write(tmp_path / "usps.train.libsvm.bz2", b"1 1:1\n")
    _manifest(
        tmp_path,
        [
            {
                "file": train.name,
                "size_bytes": train.stat().st_size,
                "n_examples": 60000,
                "n_features": 780,
                "label_values": {"0": 100, "1": 6742, "2": 5958, "7": 5},
            },
            {
                "file": test.name,
                "size_bytes": test.stat().st_size,
                "n_examples": 10000,
                "n_features": 778,
                "label_values": {"1": 1135, "2": 1032, "9": 4},
            },
            {
                "file": usps.name,
                "size_bytes": usps.stat().st_size + 1,
                "n_examples": 7291,
                "n_features": 256,
                "label_values": {"1": 7291},
            },  # a different size: not this file, so not trusted
        ],
    )
    monkeypatch.setenv("OLKIT_DATA", str(tmp_path))
    read = catalog.read_libsvm

    def read_bundled_only(path, *args, **kwargs):
        assert tmp_path not in Path(path).parents, f"list_datasets read {path}"
        return read(path, *args, **kwargs)

    monkeypatch.setattr(catalog, "read_libsvm", read_bundled_only)
    entries = {e["name"]: e for e in list_datasets()}
    assert entries["mnist-1vs2"]["shape"] == {
        "n_examples": 6742 + 1135 + 5958 + 1032,
        "n_features": 784,
        "n_classes": 2,
    }
    assert entries["mnist-1vs2"]["shape_from"] == "MANIFEST.json"
    assert entries["mnist"]["shape"] == {"n_examples": 1135 + 1032 + 4, "n_features": 778, "n_classes": 3}
    assert entries["usps"]["availability"] == "OLKIT_DATA" and entries["usps"]["shape"] is None
    assert entries["w7a"]["availability"] == "missing" and entries["w7a"]["shape"] is None
    assert entries["synthetic"]["shape"] == {"n_examples": 5000, "n_features": 20, "n_classes": 2}


def test_list_datasets_shape_of_bundled_files(no_data_dir):
    entries = {e["name"]: e for e in list_datasets()}
    for name, spec in CATALOG.items():
        if spec.bundled and spec.generator is None:
            info = dataset_info(name)
            assert entries[name]["shape"] == {k: info[k] for k in ("n_examples", "n_features", "n_classes")}
            assert entries[name]["shape_from"] == "bundled files"


# --- the issue 10 entries on the real files (skipped without OLKIT_DATA) ---------------------------------


def test_list_datasets_shapes_match_the_loaded_data():
    names = ("mnist-1vs2", "mitface", "mitface-histeq", "codrna", "cod-rna", "letter-all")
    for name in names:
        require_data_files(name)
    entries = {e["name"]: e for e in list_datasets()}
    for name in names:
        info = dataset_info(name)
        assert entries[name]["shape"] == {k: info[k] for k in ("n_examples", "n_features", "n_classes")}, name


def test_mnist_1vs2_is_the_papers_14867_examples():
    require_data_files("mnist-1vs2")
    X, y = load_dataset("mnist-1vs2")
    assert sp.isspmatrix_csr(X) and X.shape == (14867, 784)
    assert dict(zip(*np.unique(y, return_counts=True))) == {-1.0: 6742 + 1135, 1.0: 5958 + 1032}
    assert X.data.min() > 0 and X.data.max() == 1.0  # pixel / 255
    assert X[:, 780:].nnz == 0  # padded to 784; the last pixels are always empty


def test_mitface_raw_grey_levels_divided_by_255():
    require_data_files("mitface")
    X, y = load_dataset("mitface")
    assert X.shape == (6977, 361) and dict(zip(*np.unique(y, return_counts=True))) == {-1.0: 4548, 1.0: 2429}
    path, _ = catalog._find_file(CATALOG["mitface"], "mitface.train.raw.libsvm.bz2")
    raw, _ = read_libsvm(path)
    np.testing.assert_allclose(X.toarray(), raw.toarray() / 255)  # grey levels 0..255 -> [0, 1]
    assert raw.data.max() == 255 and np.array_equal(raw.data, np.round(raw.data))
    E, y_eq = load_dataset("mitface-histeq")
    np.testing.assert_array_equal(y_eq, y)
    from olkit.data import equalize_histograms

    np.testing.assert_allclose(E.toarray(), equalize_histograms(raw).toarray())
    dense = E.toarray()
    assert dense.min() == 0.0 and np.allclose(dense.max(axis=1)[dense.max(axis=1) > 0], 1.0)


def test_codrna_and_letter_all():
    require_data_files("codrna")
    X, y = load_dataset("codrna")
    X2, y2 = load_dataset("cod-rna")  # the Ahpatron config's name for the same file
    assert X.shape == (59535, 8) and (X != X2).nnz == 0 and np.array_equal(y, y2)
    assert dict(zip(*np.unique(y, return_counts=True))) == {-1.0: 39690, 1.0: 19845}
    require_data_files("letter-all")
    X, y = load_dataset("letter-all")
    X_train, y_train = load_dataset("letter")
    assert X.shape == (20000, 16) and np.unique(y).size == 26
    assert (X[:15000] != X_train).nnz == 0 and np.array_equal(y[:15000], y_train)
