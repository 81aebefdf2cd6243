"""The measuring harness of bench_cpu.py: time a row against its baseline and its target.

A group of rows runs in a child process (``run_child``, in the parent) as a ``Group``
(in the child), whose rows and facts stream back on stdout, one line each:

* ``BEGIN {"group", "task"}``: a row is under way (named if the child is killed before it
  ends);
* ``ROW {...}``: a finished row;
* ``FACT {"group", "key", "value"}``: a fact about a group's graphs.

``Group.compare`` times kleene's call and each baseline with ``measure`` (one warm-up call,
then the min and median of ``repeat``), checks kleene's result against the baseline's
(``_check``) and judges the ratio against the target (``_target``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the child imports kleene from here


def measure(fn, repeat: int, budget: float) -> tuple[dict, object]:
    """One warm-up call, then ``repeat`` timed calls: min and median ms; the warm-up's
    result is returned for the check. A call over ``budget`` s ends the row at that call."""
    t0 = time.perf_counter()
    out = fn()
    first = time.perf_counter() - t0
    if first > budget:
        ms = 1e3 * first
        return {
            "ms": ms,
            "median ms": ms,
            "runs": 1,
            "first call s": first,
            "note": f"one call only (the first, {first:.1f} s > --row-budget: "
            "compilation included)",
        }, out
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        if dt > budget:
            break
    r = {
        "ms": 1e3 * min(times),
        "median ms": 1e3 * statistics.median(times),
        "runs": len(times),
        "first call s": first,
    }
    if len(times) < repeat:
        r["note"] = f"{len(times)} timed call(s): one took longer than --row-budget"
    return r, out


def _empty_row(group: str, task: str, baseline: str, note: str) -> dict:
    """A row with no times: skipped, or not finished."""
    return {
        "group": group,
        "task": task,
        "kleene ms": None,
        "baseline": baseline,
        "baseline ms": None,
        "ratio": None,
        "meets": "-",
        "note": note,
    }


class Group:
    """Runs a group's rows in this (child) process; each finished row goes to stdout.

    ``args``: the options ``run_child`` passes on (--repeat, --row-budget, --quick, --data,
    --scratch)."""

    def __init__(self, name: str, args):
        self.name, self.repeat, self.budget = name, args.repeat, args.row_budget
        self.quick, self.data, self.scratch = args.quick, Path(args.data), args.scratch

    def log(self, msg: str) -> None:
        print(f"[{self.name}] {msg}", file=sys.stderr, flush=True)

    def begin(self, task: str) -> None:
        print("BEGIN " + json.dumps({"group": self.name, "task": task}), flush=True)

    def emit(self, row: dict) -> None:
        print("ROW " + json.dumps(row, default=float), flush=True)

    def fact(self, key: str, value) -> None:
        print(
            "FACT " + json.dumps({"group": self.name, "key": key, "value": value}, default=float),
            flush=True,
        )

    def compare(self, task, call, kfn, baselines, check=None, extra=None):
        """Time kleene's ``kfn`` and each baseline (name, fn or skip reason, target ratio);
        one row per baseline, kleene's figures repeated on each."""
        self.begin(task)
        self.log(f"{task}: {call} ...")
        k, kout = measure(kfn, self.repeat, self.budget)
        self.log(f"    kleene {k['ms']:.3f} ms (first call {k['first call s']:.2f} s)")
        for name, bfn, target in baselines:
            row = {
                "group": self.name,
                "task": task,
                "kleene call": call,
                "kleene ms": k["ms"],
                "kleene median ms": k["median ms"],
                "runs": k["runs"],
                "first call s": k["first call s"],
                "compile s (first - median)": max(0.0, k["first call s"] - k["median ms"] / 1e3),
                "baseline": name,
            }
            notes = [k["note"]] if "note" in k else []
            if isinstance(bfn, str):  # a reason it was not run
                row.update({"baseline ms": None, "ratio": None})
                notes.append(bfn)
                self.log(f"    {name}: {bfn}")
            elif isinstance(bfn, float):  # an absolute target time (ms), nothing to run
                row.update({"baseline ms": bfn, "ratio": k["ms"] / bfn})
                if check is not None:
                    row["check"] = _check(check, kout, None, name)
            else:
                b, bout = measure(bfn, self.repeat, self.budget)
                row.update(
                    {
                        "baseline ms": b["ms"],
                        "baseline median ms": b["median ms"],
                        "baseline runs": b["runs"],
                        "ratio": k["ms"] / b["ms"],
                    }
                )
                if "note" in b:
                    notes.append(f"baseline: {b['note']}")
                if check is not None:
                    row["check"] = _check(check, kout, bout, name)
                self.log(
                    f"    {name} {b['ms']:.3f} ms: ratio {row['ratio']:.2f}"
                    + (f", check {row['check']}" if "check" in row else "")
                )
            _target(row, target)
            row.update(extra or {})
            if notes:
                row["note"] = "; ".join(notes)
            self.emit(row)

    def skip(self, task, reason, baselines=("-",)):
        for name in baselines:
            self.emit(_empty_row(self.name, task, name, f"skipped: {reason}"))
        self.log(f"{task}: skipped: {reason}")


def _target(row: dict, target) -> None:
    """'target', 'target ratio' (for the plot) and 'meets' from a ratio target, a
    (ratio, label) pair, or None."""
    if target is None:
        row.update({"target": "-", "meets": "-"})
        return
    target, label = target if isinstance(target, tuple) else (target, f"<= {target:g}x")
    row["target"] = label
    row["target ratio"] = float(target)
    r = row.get("ratio")
    row["meets"] = "-" if r is None else ("yes" if r <= target else "no")


def _check(check, kout, bout, name) -> str:
    try:
        return "ok" if check(kout, bout, name) else "MISMATCH"
    except Exception as e:  # a check that cannot run says why, the row stays
        return f"not checked ({type(e).__name__}: {e})"


# ---------------------------------------------------------------------------------------
# the parent: one subprocess a group
# ---------------------------------------------------------------------------------------


def run_child(
    script: Path, group: str, args, scratch: str, cache_dir: str | None
) -> tuple[list, list]:
    """Runs ``script --child group`` (with the options a ``Group`` reads) and collects the
    rows and facts it streams; a group that fails or runs past --group-timeout ends with a
    row that says so, named for the row under way."""
    cmd = [
        sys.executable,
        str(script),
        "--child",
        group,
        "--data",
        args.data,
        "--row-budget",
        str(args.row_budget),
        "--repeat",
        str(args.repeat),
        "--scratch",
        scratch,
    ] + (["--quick"] if args.quick else [])
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    limit = args.group_timeout
    t0 = time.perf_counter()
    try:  # stderr (progress) passes through; stdout carries the rows
        p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, timeout=limit)
        out, failure = p.stdout, (f"exit status {p.returncode}" if p.returncode else None)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        failure = f"killed after {time.perf_counter() - t0:.0f} s (--group-timeout {limit:g})"
    rows, facts, begun = [], [], None
    for line in out.splitlines():
        tag, _, body = line.partition(" ")
        if tag == "ROW":
            rows.append(json.loads(body))
            begun = None
        elif tag == "FACT":
            facts.append(json.loads(body))
        elif tag == "BEGIN":
            begun = json.loads(body)
    if failure is not None:
        task = begun["task"] if begun else f"{group} (the rest of the group)"
        note = f"not finished: the group's subprocess {failure}"
        rows.append(_empty_row(group, task, "-", note))
    return rows, facts
