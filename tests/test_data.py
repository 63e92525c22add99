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

from olkit.data import (
    CATALOG,
    DatasetSpec,
    binary_labels,
    check_labels_finite,
    dataset_info,
    list_datasets,
    load_dataset,
    read_libsvm,
)
from olkit.data import catalog
from helpers import require_data_files

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
