"""numba set-up shared by every compiled routine of olkit.

All compiled functions use ``@njit(cache=True)`` so that a warm process loads machine code from disk
instead of compiling. numba only checks the time stamp of the file that *defines* a cached function, not
of the files it calls, so an edit to an update rule in one module could leave a stale compiled loop in
another. To make the cache always consistent, the cache directory is keyed by a hash of the package's
sources: any change to a source file holding compiled code selects a fresh directory.

The user can override the location with ``OLKIT_NUMBA_CACHE`` (a directory) or numba's own
``NUMBA_CACHE_DIR``. Code compiled with numba's bounds checking (``NUMBA_BOUNDSCHECK=1``, e.g. by
``make fuzz``) goes to a directory of its own (``<hash>-boundscheck``): numba's cache index does not record
the setting, so a shared directory would hand unchecked code to a checked run and the reverse.

``OLKIT_NUMBA_CACHE=off`` (the spelling of the parsed-data cache's ``OLKIT_CACHE_DIR=off``) turns the disk
cache off: the switch is read once, when this module is first imported, and the decorators below are then
built with ``cache=False``, so every compiled function is compiled in memory and nothing is read from or
written to disk (``NUMBA_CACHE_DIR`` is neither set nor used; the generated loop modules of
:func:`compile_loop` are executed from their text, never written). Every process then compiles what it
uses: results are the same, only the start is slower (docs/guide/reproducibility.md#the-compile-cache).
"""

import contextlib
import hashlib
import os
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _compiled_sources():
    """The modules that hold compiled code (and everything they import that is compiled)."""
    top = [_PACKAGE_DIR / name for name in ("_compile.py", "_rng.py", "kernels.py")]
    return top + sorted((_PACKAGE_DIR / "learners").rglob("*.py"))


def _source_hash():
    digest = hashlib.sha1()
    for path in _compiled_sources():
        digest.update(path.relative_to(_PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


OFF = "off"
"""The value of ``OLKIT_NUMBA_CACHE`` that turns the disk cache off."""


def cache_enabled():
    """Whether compiled code is cached on disk: False when ``OLKIT_NUMBA_CACHE=off``."""
    return os.environ.get("OLKIT_NUMBA_CACHE", "").strip() != OFF


CACHE = cache_enabled()
"""The switch as read when olkit was imported (the decorators below are built with ``cache=CACHE``)."""


def _cache_dir():
    base = os.environ.get("OLKIT_NUMBA_CACHE")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "olkit", "numba")
    checked = os.environ.get("NUMBA_BOUNDSCHECK", "").strip() not in ("", "0")
    return os.path.join(base, _source_hash() + ("-boundscheck" if checked else ""))


if CACHE and "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = _cache_dir()

import types  # noqa: E402

import numba  # noqa: E402  (must come after the cache directory is chosen)
import numba.core.codegen  # noqa: E402
import numba.core.compiler  # noqa: E402
import numba.core.registry  # noqa: E402
import numba.extending  # noqa: E402

if CACHE and numba.config.CACHE_DIR != os.environ["NUMBA_CACHE_DIR"]:  # type: ignore[attr-defined]  # set at run time
    # numba was imported by the user before olkit: point its cache at our directory anyway.
    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]  # type: ignore[attr-defined]  # (numba.config's options)

njit = numba.njit(cache=CACHE, nogil=True)
"""Decorator used for every compiled olkit routine (cached on disk unless the cache is off, releases the GIL)."""

njit_nonan = numba.njit(cache=CACHE, nogil=True, fastmath={"nnan", "nsz"})
"""For loops with a min/max reduction over finite values: lets LLVM vectorise the comparison (it may
assume no NaN and ignore the sign of zero; every value computed is the same)."""

njit_reassoc = numba.njit(cache=CACHE, nogil=True, fastmath={"reassoc", "contract"})
"""For reductions (dot products) only: lets LLVM vectorise the sum by reassociating it. Results differ
from the sequential sum in the last bits only (no assumptions about NaN/inf are made)."""


class HelperDispatcher(numba.core.registry.CPUDispatcher):
    """A dispatcher for the helpers and rules of the compiled loops, which are only called from compiled
    code. Two costs of a cold start are left out:

    * the CPython wrapper (unboxing every array of the named-tuple arguments): about half of each small
      function's compile time, 0.1–0.5 s apiece;
    * the helper's own optimisation and machine code. A caller links the helper's LLVM IR into its own
      module and optimises and compiles the whole module (numba's model), so a helper's own machine code,
      which includes a copy of everything *it* links, is never run. Helpers are lowered to IR at
      function passes only (:data:`HELPER_OPT_LEVEL`) and kept as IR (:class:`_LinkOnlyLibrary`); each
      compiled entry point (a block loop, a ``@njit`` function) optimises and compiles everything it uses
      once. Measured on a cold ``olkit run duol --data german``: the helpers' module optimisation and
      machine code were ~1.5 s of the 6.7 s.

    Being IR only, helpers are not cached on disk (the entry points are, with all the code they use). A
    call from Python (tests, ``SupportSet.reserve``) goes to a twin compiled with the wrapper, cached under
    its own name."""

    _twin = None

    def compile(self, sig):
        with optimisation_level(HELPER_OPT_LEVEL):
            return super().compile(sig)

    def __call__(self, *args, **kwargs):
        twin = self._twin
        if twin is None:
            f = self.py_func
            g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
            g.__qualname__ = f.__qualname__ + "__py"  # its own cache files
            g.__module__, g.__doc__ = f.__module__, f.__doc__
            twin = self._twin = njit(g)
        return twin(*args, **kwargs)


class _LinkOnlyLibrary(numba.core.codegen.JITCodeLibrary):
    """The code library of a helper: IR to be linked into callers, never optimised on its own nor turned
    into machine code (see :class:`HelperDispatcher`)."""

    def _optimize_final_module(self):
        pass  # each caller optimises it with its own module

    def _finalize_final_module(self):
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True  # not added to the JIT engine: no machine code

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        return 0  # nothing to run: the helper has no wrapper and callers run their own linked copy

    @property
    def codegen(self):
        return _NoEnvCodegen(self._codegen)


class _NoEnvCodegen:
    """The codegen as a link-only library shows it to numba: its function environment (used by a CPython
    wrapper, which helpers do not have) has no address to be set, the module not being in the JIT engine."""

    def __init__(self, codegen):
        self._codegen = codegen

    def set_env(self, env_name, env):
        pass

    def __getattr__(self, name):
        return getattr(self._codegen, name)


class _HelperCompiler(numba.core.compiler.Compiler):
    """numba's pipeline, lowering into a :class:`_LinkOnlyLibrary`."""

    def compile_extra(self, func):
        if self.state.library is None:
            self.state.library = _LinkOnlyLibrary(self.state.targetctx.codegen(), func.__qualname__)
        return super().compile_extra(func)


def _helper(**options):
    opts = {"nopython": True, "nogil": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True, **options}

    def decorate(func):
        return HelperDispatcher(py_func=func, locals={}, targetoptions=opts, pipeline_class=_HelperCompiler)

    return decorate


njit_helper = _helper()
"""For the helpers and update rules of the compiled loops (see :class:`HelperDispatcher`)."""
njit_helper_reassoc = _helper(fastmath={"reassoc", "contract"})
""":data:`njit_helper` for reductions (dot products), as :data:`njit_reassoc`."""
njit_helper_nonan = _helper(fastmath={"nnan", "nsz"})
""":data:`njit_helper` for min/max reductions over finite values, as :data:`njit_nonan`."""
njit_helper_sum = _helper(fastmath={"reassoc"})
""":data:`njit_helper` for sums of products that must stay products rounded once each (no fused
multiply-add): only the order of the additions may change."""
njit_inline = _helper(forceinline=True)
"""For tiny helpers inside vectorised loops (exp, H·H, min/max): a :data:`njit_helper` that LLVM inlines
into every caller (``alwaysinline``), so that the caller's loops vectorise through it. (numba's own
``inline="always"`` copies the numba IR per call site instead: ~1 s of a cold start's compile.)"""


@njit_inline
def min2(a, b):
    """min(a, b) for two numbers (the builtin compiles a generic overload of its own on a cold start)."""
    return b if b < a else a


@njit_inline
def max2(a, b):
    """max(a, b) for two numbers (see :func:`min2`)."""
    return b if b > a else a


@numba.extending.intrinsic
def fma(typingctx, a, b, c):
    """a·b + c with one rounding (LLVM's fma: the CPU instruction, or an exact library call)."""
    sig = numba.types.float64(numba.types.float64, numba.types.float64, numba.types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen


@numba.extending.intrinsic
def float_bits(typingctx, x):
    """The IEEE-754 bits of a float64 as an int64 (a bit cast: no conversion, vectorisable)."""
    sig = numba.types.int64(numba.types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(numba.types.int64))

    return sig, codegen


@numba.extending.intrinsic
def bits_float(typingctx, i):
    """The float64 whose IEEE-754 bits are the int64 ``i`` (inverse of :func:`float_bits`)."""
    sig = numba.types.float64(numba.types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(numba.types.float64))

    return sig, codegen


@numba.extending.intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring the cache line of ``array[index]`` (a 1-D array) closer, ahead of its use (LLVM's
    ``llvm.prefetch``: a read, kept in every cache level). A hint only: it changes no value, and an ``index``
    outside the array is never an error (the address is not dereferenced). The linear loop uses it to fetch the
    rows of later rounds while it computes the current one (docs/algorithms/linear-family.md#sparse-input)."""
    if not isinstance(array, numba.types.Array) or array.ndim != 1 or not isinstance(index, numba.types.Integer):
        return None
    sig = numba.types.void(array, index)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i = context.cast(builder, args[1], signature.args[1], numba.types.intp)
        ptr = builder.gep(ary.data, [i])  # not "inbounds": an address outside the array is allowed
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        module = builder.module
        name = "llvm.prefetch.p0i8"
        fn = module.globals.get(name) or ir.Function(module, fnty, name)
        # (address, 0 = read, 3 = keep in all cache levels, 1 = data)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


# ---- optimisation level of olkit's compiles ----------------------------------------------------------

LOOP_OPT_LEVEL = 1
"""LLVM optimisation level (numba's ``NUMBA_OPT``, default 3) while olkit compiles a block loop. Measured
(letter M-DUOL and PA-I, mnist M-DUOL): the loops run as fast at level 1 as at 3 (the vectorised loops are
still vectorised), and a cold ``olkit run duol --data german`` compiles in ~1 s less CPU (5.2 s instead of
6.2 s)."""


HELPER_OPT_LEVEL = 1
"""LLVM optimisation level of the function passes run on a helper's IR as it is lowered (:class:`HelperDispatcher`;
its module is not optimised further: every caller links the IR into its own module and optimises the whole
module at its own level). Measured: level 0 here leaves IR that the loops' level-1 module passes do not fully
optimise (ijcnn1 budget learners and letter M-DUOL ran 2x slower); level 1 gives the loops their former speed."""


@contextlib.contextmanager
def optimisation_level(level):
    """numba's optimisation level set to ``level`` for the compiles started inside (unless the user set
    ``NUMBA_OPT``); restored afterwards."""
    if "NUMBA_OPT" in os.environ:
        yield
        return
    saved = numba.config.OPT
    numba.config.OPT = numba.core.config._OptLevel(level)
    try:
        yield
    finally:
        numba.config.OPT = saved


def loop_compile_options():
    """numba's optimisation level set to :data:`LOOP_OPT_LEVEL` for the compiles started inside (unless
    the user set ``NUMBA_OPT``); restored afterwards."""
    return optimisation_level(LOOP_OPT_LEVEL)


# ---- loops compiled over a rule ------------------------------------------------------------------
#
# A block loop (the per-example predict-then-update loop of a family) is written once, as a plain Python
# function whose free names ``update``, ``score_hook``, ... stand for the algorithm's compiled pieces.
# ``compile_loop`` builds the loop for one algorithm's pieces: so the shared loop holds no per-algorithm
# branch and no list of all rules, and a run compiles only the rule it uses.
#
# numba caches a compiled function on disk only when it is defined at module level in a real file (a
# closure or a function-typed argument is recompiled in every process). So the loop for a given set of
# pieces is written, once, to a small generated module next to numba's cache: the template's own source
# (copied, not rewritten), preceded by imports binding each free name to the algorithm's function. The
# file's name is a hash of its text, and it is written atomically, so concurrent processes agree. With
# the cache off (``OLKIT_NUMBA_CACHE=off``) no file is needed: the same text is executed as an in-memory
# module (its lines registered in ``linecache``, so tracebacks and numba's messages still show them).

import importlib.util  # noqa: E402
import inspect  # noqa: E402
import linecache  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
import threading  # noqa: E402
from typing import Any  # noqa: E402

_LOOPS: dict[tuple, Any] = {}
_LOOPS_LOCK = threading.RLock()
"""Held while a loop's module is built: threads that need the same loop at once (two learners learning in
two threads, e.g. a Dask cluster of thread workers, on a cold cache) must not meet a module that is
registered in ``sys.modules`` but not yet executed (it has no loop yet: AttributeError)."""


def _ref(func):
    """(module, name) of a module-level function or numba dispatcher."""
    py = getattr(func, "py_func", func)
    return py.__module__, py.__name__


def compile_loop(template, **bindings):
    """The compiled ``template`` with each free name in ``bindings`` bound to the given compiled function.

    ``template`` is a plain function defined at module level; every other global name it uses is
    resolved in its own module. Returns a numba dispatcher (cached on disk, see above); repeated calls
    with the same pieces return the same object.
    """
    key = (_ref(template), tuple(sorted((k, _ref(v)) for k, v in bindings.items())))
    loop = _LOOPS.get(key)
    if loop is not None:
        return loop
    with _LOOPS_LOCK:  # one thread builds the module; the others wait, then find it in _LOOPS
        loop = _LOOPS.get(key)
        return loop if loop is not None else _build_loop(key, template, bindings)


def _build_loop(key, template, bindings):
    """:func:`compile_loop`'s work for a loop not built yet in this process (called holding ``_LOOPS_LOCK``)."""
    tmod, tname = key[0]
    lines = [
        "# generated by olkit._compile.compile_loop: do not edit",
        "import " + tmod,
        f"globals().update({{k: v for k, v in vars({tmod}).items() if not k.startswith('__')}})",
    ]
    for name, (mod, fname) in key[1]:
        lines.append(f"from {mod} import {fname} as {name}")
    lines.append("from olkit._compile import njit")
    lines.append(textwrap.dedent(inspect.getsource(template)))
    lines.append(f"{tname} = njit({tname})")
    text = "\n".join(lines) + "\n"
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    modname = f"olkit_loop_{tname}_{digest}"
    module = sys.modules.get(modname)
    if module is None:
        module = _loop_module(modname, text)
    _LOOPS[key] = loop = getattr(module, tname)
    _notice_if_uncached(loop, bindings)
    return loop


def _loop_module(modname, text):
    """The generated module ``modname`` of source ``text``, executed and registered in ``sys.modules``: from a
    file in ``$NUMBA_CACHE_DIR/loops`` (written once, atomically) so that numba caches its loop, or, with the
    cache off, from the text in memory."""
    if CACHE:
        folder = os.path.join(os.environ["NUMBA_CACHE_DIR"], "loops")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, modname + ".py")
        if not os.path.exists(path):
            from ._files import write_text

            write_text(path, text)
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        run = spec.loader.exec_module
    else:
        filename = f"<olkit generated loop {modname}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        module = types.ModuleType(modname)
        module.__file__ = filename
        code = compile(text, filename, "exec")

        def run(module):
            exec(code, module.__dict__)

    sys.modules[modname] = module
    try:
        run(module)
    except BaseException:
        sys.modules.pop(modname, None)  # never leave a half-built module for the next call to find
        raise
    return module


def _notice_if_uncached(loop, bindings):
    """The one-line first-compile notice (:func:`olkit.progress.compile_notice`, only when the command line
    turned progress on) if ``loop`` is not in numba's disk cache. A cache miss is known without compiling:
    numba writes a function's index file (``<name>-<line>.pyXY.nbi``) when it first caches it, so a missing
    index means the first call compiles (an index from an older numba, or for other argument types, is
    not detected: no notice then, never a wrong one on a warm cache)."""
    from . import progress

    if not progress.active():
        return
    try:
        cached = CACHE and os.path.exists(loop._cache._cache_file._index_path)
    except AttributeError:  # another numba's internals: no notice
        return
    if not cached:
        piece = bindings.get("update") or bindings.get("step") or next(iter(bindings.values()))
        owner = _ref(piece)[0].rsplit(".", 1)[-1]
        progress.compile_notice(f"{owner}'s loop")
