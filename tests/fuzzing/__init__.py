"""The fuzz as a test helper (issue 23): the random streams (:mod:`fuzzing.streams`), the options of a run
read from the registry (:mod:`fuzzing.options`) and the checks of one run (:mod:`fuzzing.checks`), shared by
``make fuzz`` (tools/fuzz.py, the command line: worker processes, watchdog, reproducers, summary) and the
property tests (tests/test_properties.py). ``tests`` is on the path of the test suite (pytest puts it there)
and tools/fuzz.py puts it there, so ``from fuzzing import checks`` is a plain import in both.
"""
