"""Sort ThreadSanitizer's reports from a run of the uninstrumented interpreter: fastbits' or not.

``scripts/tsan.sh --free-threaded`` runs fastbits, built with -fsanitize=thread, in a CPython
and with a numpy that are not instrumented: TSan sees their memory only where they call an
intercepted function (malloc; not memcpy or memset, which the script's
``ignore_noninstrumented_modules`` leaves unseen), and never sees their own synchronization
(atomics, PyMutex, the dict's per-object locks).  So it reports races between, say, two threads resizing
one dict under its lock.  Those are the suppressed ones: a report is fastbits' when, in either
of its two accesses' stacks, the first frame outside the sanitizer's own runtime is fastbits'
code (its C, or the C Cython generated for it); then the racing access is one fastbits made.
Every other report's racing accesses are the interpreter's or numpy's, whoever called them.

    python scripts/tsan_reports.py LOG...

Prints fastbits' reports in full and a count of the others; exits 1 when there is one of
fastbits'.
"""

from __future__ import annotations

import re
import sys

FRAME = re.compile(r"^\s+#\d+ (\S+) (\S+)")


def first_own_frame(stack: list[str]) -> tuple[str, str] | None:
    """(function, source) of the first frame outside the sanitizer runtime, or None."""
    for line in stack:
        match = FRAME.match(line)
        if match and "libtsan" not in line and "sanitizer_common" not in line:
            return match.group(1), match.group(2)
    return None


def is_fastbits(frame: tuple[str, str] | None) -> bool:
    if frame is None:
        return False
    function, source = frame
    return "fastbits/" in source or function.startswith(("fb_", "__pyx_", "fastbits_"))


def reports(text: str) -> list[str]:
    return [part.strip() for part in text.split("==================") if "ThreadSanitizer" in part]


ACCESS = re.compile(r"^  (Previous )?(atomic )?(read|write)", re.IGNORECASE)


def access_stacks(report: str) -> list[list[str]]:
    """The stacks of a data race's two accesses; of another report, every stack it has."""
    race = "data race" in report
    runs, current, wanted = [], [], not race
    for line in report.splitlines():
        if FRAME.match(line):
            if wanted:
                current.append(line)
            continue
        if current:
            runs.append(current)
            current = []
        if line.startswith("  ") and not line.startswith("   "):  # a section's header
            wanted = not race or bool(ACCESS.match(line))
    if current:
        runs.append(current)
    return runs


def main(paths: list[str]) -> int:
    ours, others = [], 0
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as log:
            for report in reports(log.read()):
                if any(is_fastbits(first_own_frame(stack)) for stack in access_stacks(report)):
                    ours.append(report)
                else:
                    others += 1
    for report in ours:
        print(report, end="\n\n")
    print(f"tsan_reports: {len(ours)} report(s) in fastbits' code; {others} in the uninstrumented "
          "interpreter's or numpy's own code (suppressed)")
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
