"""The thread tuner and the team's quick rule as C, with pieces whose time is known.

``tests/c/tuner_check.c`` is built with ``fastbits/_c/team.c`` and ``tune.c`` by the C compiler
Python was built with, and run: its pieces sleep, so that two threads beat one whatever else
the machine runs, or sleep holding one lock, so that they cannot; the tuner must choose the
team for the first, the caller alone for the second, and follow a class whose pieces change
(at its next probe, or at once when its chosen mode turns 1.5 times slower); and calls whose
time is set by the mode the tuner chose check its margins (the team chosen when 10 % faster,
kept while 2 % faster, and joined on the second of two probes that find it faster unless
the first finds it 1.25 times as fast).
Through Python the tuner's choice follows the machine's state, which a test cannot set; here it
is set.  The checks it prints are in its source.  They need a helper thread that runs when
woken: the program first times the team against one thread, untuned, and exits with 77 (this
test is skipped, saying so) where every CPU is busy with other work.
"""

from __future__ import annotations

import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import sysconfig

import pytest

pytestmark = pytest.mark.compiled

ROOT = pathlib.Path(__file__).resolve().parents[1]
C_DIR = ROOT / "fastbits" / "_c"
CHECK = ROOT / "tests" / "c" / "tuner_check.c"


def _compiler() -> list[str]:
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    if not cc or shutil.which(cc[0]) is None:
        pytest.skip(f"no C compiler ({cc[0] if cc else 'CC unset'})")
    return cc


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check uses POSIX threads and Linux timers")
def test_the_tuner_chooses_by_timing_and_the_quick_rule_counts_calls_run_alone(tmp_path):
    if not (C_DIR / "tune.c").exists() or not CHECK.exists():
        pytest.skip("the C sources are not beside the tests")
    program = tmp_path / "tuner_check"
    build = subprocess.run(
        [*_compiler(), "-O1", "-Wall", "-Werror=implicit-function-declaration", "-pthread", f"-I{C_DIR}",
         str(CHECK), str(C_DIR / "team.c"), str(C_DIR / "tune.c"), "-o", str(program)],
        capture_output=True, text=True,
    )
    assert build.returncode == 0, build.stderr
    done = subprocess.run([str(program)], capture_output=True, text=True, timeout=120)
    if done.returncode == 77:  # its helper cannot run beside it: the checks' premise is missing
        pytest.skip(done.stdout.strip())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every check held" in done.stdout, done.stdout
    assert done.stdout.count("held: ") == 16, done.stdout
