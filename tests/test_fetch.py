"""Datasets on demand (issue 22): download, conversion, SHA-256 check and cache, with no internet.

A local HTTP server on 127.0.0.1 (a free port, in a thread) serves small generated files; a test-only
catalog entry ``tiny`` (one file, ``tiny.libsvm.bz2``) points at it through ``OLKIT_DATA_MIRROR``.
Covered: a good file (fetched, verified, loaded, the message says where it went), a checksum mismatch
(refused, nothing kept), a truncated transfer (not cached), the server down (one clear line, CLI exit 2),
offline (one line: what to download, from where, where to put it), ``olkit datasets`` (fetchable /
present), the recipes, the split names, and that every catalog file has a commit-pinned source.
"""

import bz2
import functools
import gzip
import hashlib
import http.server
import os
import re
import socket
import struct
import threading
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse

from olkit.cli import main
from olkit.data import CATALOG, DatasetSpec, fetch_dataset, list_datasets, load_dataset
from olkit.data.fetch import DatasetUnavailable, convert, fetch_file
from olkit.data.sources import FACTS, SOURCES, Download, FileSource

TEXT = b"+1 1:0.5 3:1\n-1 2:0.25\n+1 1:1 2:1 3:1\n-1 3:0.75\n"
PATH = "owner/repo/0123456789abcdef0123456789abcdef01234567/data/tiny.txt"


def _sha(data):
    return hashlib.sha256(data).hexdigest()


class _Server:
    """A threaded HTTP server on 127.0.0.1: ``files`` maps a URL path to (body, mode); mode "ok" sends the
    body, "truncate" announces 1000 bytes more than it sends and closes. ``hits`` counts GETs per path."""

    def __init__(self):
        self.files, self.hits = {}, {}
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.lstrip("/")
                server.hits[path] = server.hits.get(path, 0) + 1
                if path not in server.files:
                    self.send_error(404)
                    return
                body, mode = server.files[path]
                self.send_response(200)
                self.send_header("Content-Length", str(len(body) + (1000 if mode == "truncate" else 0)))
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = _Server()
    yield s
    s.close()


def _tiny_source(text=TEXT, **kwargs):
    fields = dict(
        file="tiny.libsvm.bz2",
        sha256=_sha(bz2.compress(text, 9)),
        size=len(bz2.compress(text, 9)),
        recipe="verbatim",
        downloads=(Download(PATH),),
        origin="https://example.invalid/",
        source="a generated test file",
    )
    fields.update(kwargs)
    return FileSource(**fields)


@pytest.fixture
def tiny(monkeypatch, tmp_path, server):
    """The test-only entry 'tiny', served by ``server`` through the mirror variable; OLKIT_DATA an empty,
    writable directory; downloading on."""
    monkeypatch.setitem(SOURCES, "tiny.libsvm.bz2", _tiny_source())
    monkeypatch.setitem(
        CATALOG, "tiny", DatasetSpec("tiny", ("tiny.libsvm.bz2",), 3, "test: 4 x 3", "generated", "a test-only entry")
    )
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("OLKIT_DATA", str(data))
    monkeypatch.setenv("OLKIT_DATA_MIRROR", server.url)
    monkeypatch.delenv("OLKIT_DATA_OFFLINE", raising=False)
    server.files[PATH] = (TEXT, "ok")
    return data


def _closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- a good file --------------------------------------------------------------------------------------


def test_good_file_is_fetched_verified_converted_and_loaded(tiny, server, capsys):
    X, y = load_dataset("tiny")
    assert X.shape == (4, 3)
    np.testing.assert_array_equal(y, [1, -1, 1, -1])
    np.testing.assert_array_equal(X.toarray()[0], [0.5, 0, 1])
    target = tiny / "tiny.libsvm.bz2"
    assert target.read_bytes() == bz2.compress(TEXT, 9)  # the catalog's file, byte for byte
    err = capsys.readouterr().err
    assert f"downloaded tiny.libsvm.bz2 from {server.url}/{PATH} (SHA-256 verified) to {target}" in err
    assert sorted(os.listdir(tiny)) == ["tiny.libsvm.bz2"]  # no staging folder left
    load_dataset("tiny")  # found now: no second download
    assert server.hits[PATH] == 1
    entry = next(e for e in list_datasets() if e["name"] == "tiny")
    assert entry["availability"] == "OLKIT_DATA" and entry["paths"] == [str(target)]


def test_without_olkit_data_the_file_goes_to_the_platform_cache(tiny, server, monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("OLKIT_DATA")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert load_dataset("tiny")[0].shape == (4, 3)
    target = tmp_path / "xdg" / "olkit" / "tiny.libsvm.bz2"
    assert target.is_file() and str(target) in capsys.readouterr().err
    entry = next(e for e in list_datasets() if e["name"] == "tiny")
    assert entry["availability"] == "cache"


def test_olkit_data_not_writable_falls_back_to_the_platform_cache(tiny, monkeypatch, tmp_path, capsys):
    import pooch

    from olkit.data import fetch

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert fetch.cache_dir() == Path(pooch.os_cache("olkit"))
    real_access = os.access
    monkeypatch.setattr(fetch.os, "access", lambda path, mode: False if Path(path) == tiny else real_access(path, mode))
    assert fetch.download_dir() == fetch.cache_dir()
    assert load_dataset("tiny")[0].shape == (4, 3)
    assert (tmp_path / "xdg" / "olkit" / "tiny.libsvm.bz2").is_file() and os.listdir(tiny) == []


def test_fetch_command_downloads_then_reports_present(tiny, server, capsys):
    code = main(["datasets", "--fetch", "tiny", "german"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "downloaded tiny.libsvm.bz2" in err and str(tiny / "tiny.libsvm.bz2") in err
    assert "german: german.libsvm.bz2 already present (bundled)" in out
    assert main(["datasets", "--fetch", "tiny"]) == 0
    assert "tiny: tiny.libsvm.bz2 already present (OLKIT_DATA)" in capsys.readouterr().out
    assert server.hits[PATH] == 1


def test_datasets_lists_fetchable_then_present(tiny, server, capsys):
    assert main(["datasets"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[2:] if line}
    assert rows["tiny"][1] == "fetchable" and rows["a9a"][1] == "fetchable"
    assert rows["usps"][1] == "missing"  # a source olkit does not convert
    fetch_dataset("tiny")
    capsys.readouterr()
    assert main(["datasets"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[2:] if line}
    assert rows["tiny"][1] == "OLKIT_DATA"


def test_run_fetches_a_missing_dataset(tiny, server, capsys):
    code = main(["run", "pa1", "--data", "tiny", "--repeats", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert '"n_examples": 4' in out and "downloaded tiny.libsvm.bz2" in err


# --- refused downloads: nothing is kept ------------------------------------------------------------------


def test_checksum_mismatch_is_refused_and_nothing_is_kept(tiny, server):
    server.files[PATH] = (TEXT.replace(b"0.25", b"0.26"), "ok")
    expected = SOURCES["tiny.libsvm.bz2"].sha256
    actual = _sha(bz2.compress(TEXT.replace(b"0.25", b"0.26"), 9))
    with pytest.raises(ValueError, match=f"is {actual}, expected {expected}; refused"):
        load_dataset("tiny")
    assert os.listdir(tiny) == []


def test_known_download_hash_checked_by_pooch(tiny, server, monkeypatch):
    wrong = "0" * 64
    monkeypatch.setitem(SOURCES, "tiny.libsvm.bz2", _tiny_source(downloads=(Download(PATH, wrong),)))
    with pytest.raises(ValueError) as info:
        fetch_file("tiny.libsvm.bz2")
    message = str(info.value)
    assert "refused" in message and wrong in message and _sha(TEXT) in message  # expected and actual
    assert os.listdir(tiny) == []
    monkeypatch.setitem(SOURCES, "tiny.libsvm.bz2", _tiny_source(downloads=(Download(PATH, _sha(TEXT)),)))
    assert fetch_file("tiny.libsvm.bz2").is_file()


def test_truncated_transfer_is_not_cached(tiny, server):
    server.files[PATH] = (TEXT, "truncate")
    with pytest.raises(DatasetUnavailable, match="cannot download tiny.libsvm.bz2 from .*: transfer cut short"):
        load_dataset("tiny")
    assert os.listdir(tiny) == []
    server.files[PATH] = (TEXT, "ok")  # a later good transfer is fine
    assert load_dataset("tiny")[0].shape == (4, 3)


def test_http_error_is_one_line(tiny, server):
    del server.files[PATH]
    with pytest.raises(DatasetUnavailable, match="HTTP 404") as info:
        load_dataset("tiny")
    assert "\n" not in str(info.value) and os.listdir(tiny) == []


def test_server_down_is_one_clear_line(tiny, monkeypatch, capsys):
    url = f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("OLKIT_DATA_MIRROR", url)
    code = main(["datasets", "--fetch", "tiny"])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"olkit: error: cannot download tiny.libsvm.bz2 from {url}/{PATH}: connection refused")
    code = main(["run", "pa1", "--data", "tiny"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "connection refused" in err
    assert os.listdir(tiny) == []


def test_offline_says_what_to_download_from_where_and_where_to_put_it(tiny, monkeypatch, capsys):
    monkeypatch.delenv("OLKIT_DATA_MIRROR")
    monkeypatch.setenv("OLKIT_DATA_OFFLINE", "1")
    with pytest.raises(DatasetUnavailable) as info:
        load_dataset("tiny")
    message = str(info.value)
    assert "\n" not in message
    assert f"download https://example.invalid/{PATH} as tiny.libsvm; put it in {tiny}" in message
    assert "OLKIT_DATA_OFFLINE is set" in message and "olkit datasets --fetch tiny" in message
    code = main(["run", "duol", "--data", "tiny"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"https://example.invalid/{PATH}" in err
    assert os.listdir(tiny) == []


def test_unreachable_origin_without_mirror_is_one_line(tiny, monkeypatch):
    # No mirror and an origin that answers nothing: the one line names the file, the URL and the folder.
    monkeypatch.delenv("OLKIT_DATA_MIRROR")
    monkeypatch.setitem(SOURCES, "tiny.libsvm.bz2", _tiny_source(origin=f"http://127.0.0.1:{_closed_port()}/"))
    with pytest.raises(DatasetUnavailable) as info:
        load_dataset("tiny")
    message = str(info.value)
    assert "\n" not in message and "cannot download tiny.libsvm.bz2" in message and str(tiny) in message


def test_a_source_olkit_cannot_convert_says_how_it_was_made(monkeypatch):
    monkeypatch.setenv("OLKIT_DATA_OFFLINE", "0")
    monkeypatch.delenv("OLKIT_DATA", raising=False)
    with pytest.raises(
        DatasetUnavailable,
        match="olkit cannot download usps.train.libsvm.bz2: make "
        r"usps.train.libsvm.bz2 from .*usps.h5: the HDF5 group",
    ):
        load_dataset("usps")


# --- the catalog's sources and the recipes ----------------------------------------------------------------


def test_every_catalog_file_has_a_source_pinned_to_a_commit():
    files = {file for spec in CATALOG.values() if spec.generator is None for file in spec.files}
    assert files <= set(SOURCES) and set(FACTS) == set(SOURCES)
    for source in SOURCES.values():
        assert re.fullmatch("[0-9a-f]{64}", source.sha256) and source.size > 0
        for url in source.urls():
            assert re.match(r"https://raw\.githubusercontent\.com/[^/]+/[^/]+/[0-9a-f]{40}/", url), url
    fetchable = {s.file for s in SOURCES.values() if s.fetchable}
    assert {
        "a9a.train.libsvm.bz2",
        "a9a.test.libsvm.bz2",
        "w8a.train.libsvm.bz2",
        "ijcnn1.test.libsvm.bz2",
        "cod-rna.train.libsvm.bz2",
        "mnist.test.libsvm.bz2",
        "splice.test.libsvm.bz2",
    } <= fetchable


def test_split_names():
    for name, file in [
        ("a9a.train", "a9a.train.libsvm.bz2"),
        ("a9a.test", "a9a.test.libsvm.bz2"),
        ("ijcnn1.test", "ijcnn1.test.libsvm.bz2"),
        ("w8a.test", "w8a.test.libsvm.bz2"),
        ("mnist.train", "mnist.train.libsvm.bz2"),
        ("dorothea.valid", "dorothea.valid.libsvm.bz2"),
    ]:
        assert CATALOG[name].files == (file,)
    assert CATALOG["a9a"].files == ("a9a.train.libsvm.bz2", "a9a.test.libsvm.bz2")  # unchanged meaning
    assert CATALOG["a9a.test"].n_features == CATALOG["a9a.train"].n_features == 123
    X, y = load_dataset("splice.train")  # bundled
    X0, y0 = load_dataset("splice")
    assert (X != X0).nnz == 0 and np.array_equal(y, y0)


def test_recipes_on_small_generated_inputs(tmp_path):
    def run(recipe, inputs, **kwargs):
        paths = []
        for i, data in enumerate(inputs):
            paths.append(tmp_path / f"in{i}")
            paths[-1].write_bytes(data)
        source = FileSource("x.libsvm.bz2", "0" * 64, 1, recipe, (Download("a/b"),) * len(inputs), **kwargs)
        return convert(source, paths)

    assert run("verbatim", [b"1 1:2"]) == b"1 1:2\n"
    assert run("bz2", [bz2.compress(b"1 1:2\n")]) == b"1 1:2\n"
    assert run("lines", [b"a\nb \nc\nd\n"], lines=(2, 3)) == b"b \nc\n"
    assert run("dense", [b"-1 0 2.50 0.0\n+1 7 0 1e-3\n"]) == b"-1 2:2.50\n+1 1:7 3:1e-3\n"
    arff = (
        b"% c\n@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute class {M,R}\n@data\n"
        b"0.1,0,M\n0,0.2,'R'\n"
    )
    assert run("arff", [arff], label_map=(("M", "+1"), ("R", "-1"))) == b"+1 1:0.1\n-1 2:0.2\n"
    images = struct.pack(">IIII", 2051, 2, 2, 2) + bytes([0, 255, 51, 0, 0, 0, 0, 1])
    labels = struct.pack(">II", 2049, 2) + bytes([7, 3])
    assert run("idx", [gzip.compress(images), gzip.compress(labels)]) == b"7 2:1 3:0.2\n3 4:0.00392157\n"
    assert run("indices", [b"5 2 \n7\n", b"1\n-1\n"]) == b"+1 2:1 5:1\n-1 7:1\n"
    mat = tmp_path / "m.mat"
    scipy.io.savemat(mat, {"X": scipy.sparse.csc_matrix(np.array([[0, 1, 1], [1, 0, 0]], float)), "y": [[-1], [1]]})
    assert run("mat", [mat.read_bytes()], variables=("X", "y")) == b"-1 2:1 3:1\n+1 1:1\n"


@functools.cache
def _text(data_dir, file):
    return bz2.decompress((Path(data_dir) / file).read_bytes())


def _check(file, inputs, tmp_path, data_dir, rows=None):
    """The recipe of ``file`` run on ``inputs`` gives the benchmark file's text exactly (whose bzip2 level-9
    compression is the catalog's SHA-256: test_catalog_hashes_are_the_benchmark_files and below)."""
    paths = []
    for i, data in enumerate(inputs):
        paths.append(tmp_path / f"{file}.{i}")
        paths[-1].write_bytes(data)
    want = _text(data_dir, file)
    if rows is not None:  # the first rows only (a faster check of a long file)
        want = b"".join(want.splitlines(keepends=True)[:rows])
    assert convert(SOURCES[file], paths) == want, file


def _table(text, width, sep=b" "):
    """The rows of LIBSVM text as dense (label, values) with b"0" where a feature is absent."""
    for line in text.splitlines():
        label, *features = line.split()
        values = [b"0"] * width
        for feature in features:
            index, value = feature.split(b":")
            values[int(index) - 1] = value
        yield label, values


def test_recipes_reproduce_the_benchmark_files(tmp_path):
    """Each recipe, run on what its source holds (rebuilt from the benchmark files), gives the catalog's
    file: the hash a fetch checks is the hash of the files the tests use."""
    data_dir = os.environ.get("OLKIT_DATA")
    if not data_dir or not all(
        (Path(data_dir) / f).is_file() for f in ("mnist.test.libsvm.bz2", "dorothea.train.libsvm.bz2")
    ):
        pytest.skip("OLKIT_DATA with the benchmark files is not available")
    for file in ("a9a.train.libsvm.bz2", "german.libsvm.bz2", "w8a.test.libsvm.bz2"):
        _check(file, [_text(data_dir, file).rstrip(b"\n")], tmp_path, data_dir)  # verbatim: a final newline added
    assert _sha(bz2.compress(_text(data_dir, "german.libsvm.bz2"), 9)) == SOURCES["german.libsvm.bz2"].sha256
    splice = _text(data_dir, "splice.train.libsvm.bz2") + _text(data_dir, "splice.test.libsvm.bz2")
    _check("splice.train.libsvm.bz2", [splice], tmp_path, data_dir)
    _check("splice.test.libsvm.bz2", [splice], tmp_path, data_dir)
    ijcnn1 = bz2.compress(_text(data_dir, "ijcnn1.train.libsvm.bz2"), 1)
    _check("ijcnn1.train.libsvm.bz2", [ijcnn1], tmp_path, data_dir)
    cod = b"".join(
        b" ".join([label, *values]) + b"\n" for label, values in _table(_text(data_dir, "cod-rna.train.libsvm.bz2"), 8)
    )
    _check("cod-rna.train.libsvm.bz2", [cod], tmp_path, data_dir)
    header = (
        b"@relation sonar\r\n"
        + b"".join(b"@attribute a%d numeric\r\n" % i for i in range(60))
        + b"@attribute class {Mine,Rock}\r\n@data\r\n"
    )
    rows = b"".join(
        b",".join([*values, b"Mine" if label == b"+1" else b"Rock"]) + b"\r\n"
        for label, values in _table(_text(data_dir, "sonar.libsvm.bz2"), 60)
    )
    _check("sonar.libsvm.bz2", [header + rows], tmp_path, data_dir)
    X, y = load_dataset("mnist.test")
    X, y = X[:2000], y[:2000]
    labels = y.astype(np.uint8).tobytes()
    images = struct.pack(">IIII", 2051, len(labels), 28, 28) + np.rint(X.toarray() * 255).astype(np.uint8).tobytes()
    _check(
        "mnist.test.libsvm.bz2",
        [gzip.compress(images, 1), gzip.compress(struct.pack(">II", 2049, len(labels)) + labels, 1)],
        tmp_path,
        data_dir,
        2000,
    )
    rows = [line.split() for line in _text(data_dir, "dorothea.valid.libsvm.bz2").splitlines()]
    indices = b"".join(b" ".join(t.split(b":")[0] for t in row[1:]) + b" \n" for row in rows)
    labels = b"".join(row[0].lstrip(b"+") + b"\n" for row in rows)
    _check("dorothea.valid.libsvm.bz2", [indices, labels], tmp_path, data_dir)
    X, y = load_dataset("dorothea.train")
    mat = tmp_path / "dorothea.mat"
    scipy.io.savemat(mat, {"X_train": X.tocsc(), "Y_train": y[:, None], "X_test": X[:3]})
    _check("dorothea.train.libsvm.bz2", [mat.read_bytes()], tmp_path, data_dir)


def test_shapes_of_fetched_files_come_from_the_catalog(monkeypatch, tmp_path):
    """A directory of catalog files without MANIFEST.json (as fetched): shapes from the catalog's record."""
    data_dir = os.environ.get("OLKIT_DATA")
    if not data_dir or not (Path(data_dir) / "a9a.test.libsvm.bz2").is_file():
        pytest.skip("OLKIT_DATA with the benchmark files is not available")
    for file in ("a9a.train.libsvm.bz2", "a9a.test.libsvm.bz2"):
        (tmp_path / file).write_bytes((Path(data_dir) / file).read_bytes())
    (tmp_path / "w8a.train.libsvm.bz2").write_bytes(b"1 1:1\n")  # not the catalog's file: shape unknown
    monkeypatch.setenv("OLKIT_DATA", str(tmp_path))
    entries = {e["name"]: e for e in list_datasets()}
    assert entries["a9a"]["shape"] == {"n_examples": 48842, "n_features": 123, "n_classes": 2}
    assert entries["a9a.test"]["shape"] == {"n_examples": 16281, "n_features": 123, "n_classes": 2}
    assert entries["a9a"]["shape_from"] == "catalog"
    assert entries["w8a"]["availability"] == "OLKIT_DATA" and entries["w8a"]["shape"] is None


def test_catalog_hashes_are_the_benchmark_files():
    data_dir = os.environ.get("OLKIT_DATA")
    if not data_dir:
        pytest.skip("OLKIT_DATA is not set")
    checked = 0
    for source in SOURCES.values():
        path = Path(data_dir) / source.file
        if path.is_file():
            assert path.stat().st_size == source.size and _sha(path.read_bytes()) == source.sha256, source.file
            checked += 1
    assert checked > 0


def test_a_catalog_name_wins_over_a_local_file_with_a_warning(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "splice.train").write_text("1 1:1\n-1 2:1\n")
    code = main(["run", "pa1", "--data", "splice.train", "--repeats", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0 and '"n_examples": 1000' in out
    assert (
        "--data splice.train is a catalog dataset; the file splice.train here is not read (give ./splice.train" in err
    )
    code = main(["run", "pa1", "--data", "./splice.train", "--repeats", "1", "--format", "json"])
    assert code == 0 and '"n_examples": 2' in capsys.readouterr().out


def test_end_to_end_with_the_real_catalog_entries_through_a_mirror(server, monkeypatch, tmp_path, capsys):
    """`olkit datasets --fetch a9a splice.test` with the catalog's own entries, served by a local mirror
    (sources rebuilt from the benchmark files): the fetched files are the benchmark files, byte for byte."""
    data_dir = os.environ.get("OLKIT_DATA")
    if not data_dir or not (Path(data_dir) / "splice.test.libsvm.bz2").is_file():
        pytest.skip("OLKIT_DATA with the benchmark files is not available")
    for file in ("a9a.train.libsvm.bz2", "a9a.test.libsvm.bz2"):
        (download,) = SOURCES[file].downloads
        server.files[download.path] = (_text(data_dir, file).rstrip(b"\n"), "ok")
    (download,) = SOURCES["splice.test.libsvm.bz2"].downloads
    server.files[download.path] = (
        _text(data_dir, "splice.train.libsvm.bz2") + _text(data_dir, "splice.test.libsvm.bz2"),
        "ok",
    )
    target = tmp_path / "fetched"
    target.mkdir()
    monkeypatch.setenv("OLKIT_DATA", str(target))
    monkeypatch.setenv("OLKIT_DATA_MIRROR", server.url + "/")
    monkeypatch.delenv("OLKIT_DATA_OFFLINE", raising=False)
    assert main(["datasets", "--fetch", "a9a", "splice.test"]) == 0
    err = capsys.readouterr().err
    for file in ("a9a.train.libsvm.bz2", "a9a.test.libsvm.bz2", "splice.test.libsvm.bz2"):
        assert (target / file).read_bytes() == (Path(data_dir) / file).read_bytes()
        assert f"downloaded {file} from {server.url}/" in err and str(target / file) in err
    assert sorted(os.listdir(target)) == ["a9a.test.libsvm.bz2", "a9a.train.libsvm.bz2", "splice.test.libsvm.bz2"]
    X, y = load_dataset("a9a.test")
    assert X.shape == (16281, 123)
