"""Shared benchmark plumbing: CUDA-event timing, environment facts, JSON/markdown/plot output."""

from __future__ import annotations

import datetime as _dt
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def environment() -> dict:
    """Device, versions and date, for the JSON every benchmark writes."""
    import scipy

    import kleene

    env = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "kleene": kleene.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "cpu": platform.processor() or platform.machine(),
    }
    try:
        import cupy as cp

        props = cp.cuda.runtime.getDeviceProperties(0)
        env.update(
            cupy=cp.__version__,
            cuda_runtime=cp.cuda.runtime.runtimeGetVersion(),
            cuda_driver=cp.cuda.runtime.driverGetVersion(),
            gpu=props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
            sms=props["multiProcessorCount"],
        )
    except Exception as e:  # no GPU: CPU-only figures
        env["gpu"] = f"none ({type(e).__name__})"
    return env


def host_facts() -> dict:
    """The host CPU as a CPU benchmark needs it: cores, model, load, thread settings."""
    import os

    facts = {"cpu count": os.cpu_count(), "loadavg start": None}
    try:
        facts["cpus usable"] = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        pass
    try:
        facts["loadavg start"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                facts["cpu model"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import numba

        facts["numba"] = numba.__version__
        facts["numba threads"] = numba.config.NUMBA_NUM_THREADS
    except ImportError:
        pass
    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        if os.environ.get(var):
            facts[var] = os.environ[var]
    return facts


def gpu_time(fn, *, warmup: int = 2, repeat: int = 10, setup=None) -> dict:
    """Median milliseconds of ``fn()`` by CUDA events, after warm-up.

    ``setup()`` (untimed) runs before each call, e.g. to draw fresh random data.
    """
    import cupy as cp

    for _ in range(warmup):
        args = setup() if setup else ()
        fn(*args)
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeat):
        args = setup() if setup else ()
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn(*args)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return {"median_ms": statistics.median(times), "min_ms": min(times), "runs": len(times)}


def cpu_time(fn, *, warmup: int = 1, repeat: int = 5, setup=None, budget_s: float = 60.0) -> dict:
    """Median milliseconds of ``fn()`` by the host clock (fewer repeats past ``budget_s``)."""
    for _ in range(warmup):
        args = setup() if setup else ()
        fn(*args)
    times = []
    t_end = time.perf_counter() + budget_s
    for _ in range(repeat):
        args = setup() if setup else ()
        t0 = time.perf_counter()
        fn(*args)
        times.append(1e3 * (time.perf_counter() - t0))
        if time.perf_counter() > t_end:
            break
    return {"median_ms": statistics.median(times), "min_ms": min(times), "runs": len(times)}


def wall_time(fn, *, device: str, warmup: int = 1, repeat: int = 5, setup=None) -> dict:
    """Median milliseconds of ``fn()`` by the host clock around the call and a device sync
    (what a user waits for; ``device`` "gpu" syncs CuPy's device), after ``warmup`` calls.

    ``setup()`` (untimed, synced before the clock starts) runs before each call and its
    result is passed to ``fn``, e.g. to draw fresh random data.
    """
    if device == "gpu":
        import cupy

        sync = cupy.cuda.Device().synchronize
    else:
        sync = lambda: None  # noqa: E731
    for _ in range(warmup):
        fn(*(setup() if setup else ()))
    sync()
    times = []
    for _ in range(repeat):
        args = setup() if setup else ()
        sync()
        t0 = time.perf_counter()
        fn(*args)
        sync()
        times.append(1e3 * (time.perf_counter() - t0))
    return {"median_ms": statistics.median(times), "min_ms": min(times), "runs": len(times)}


def write_results(path: str | Path, name: str, rows: list[dict], extra: dict | None = None) -> None:
    """JSON (environment + rows) and a markdown table beside it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"benchmark": name, "environment": environment(), "rows": rows, **(extra or {})}
    path.write_text(json.dumps(doc, indent=2, default=float) + "\n")
    path.with_suffix(".md").write_text(markdown_table(rows, title=name) + "\n")


def save_figure(fig, path) -> None:
    """Write a matplotlib figure as the committed results keep plots: 120 dpi, reduced to
    a 64-colour palette PNG (line and bar plots lose nothing visible, and the file is a
    quarter of an RGBA one's bytes). Without Pillow the plain PNG is written."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    try:
        from PIL import Image
    except ImportError:
        Path(path).write_bytes(buf.getvalue())
        return
    buf.seek(0)
    image = Image.open(buf).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    image.save(path, format="PNG", optimize=True)


def main_or_replot(main, plot) -> None:
    """A benchmark's entry point: ``--replot RESULTS.json`` redraws the plot of a results
    file (beside it, .png); anything else runs ``main()``."""
    if len(sys.argv) == 3 and sys.argv[1] == "--replot":
        res = json.loads(Path(sys.argv[2]).read_text())
        plot(res["rows"], Path(sys.argv[2]).with_suffix(".png"))
    else:
        main()


def markdown_table(rows: list[dict], title: str = "") -> str:
    if not rows:
        return f"## {title}\n\n(no rows)"
    cols = list(dict.fromkeys(k for r in rows for k in r))
    fmt = lambda v: f"{v:.4g}" if isinstance(v, float) else str(v)  # noqa: E731
    lines = [f"## {title}", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def log_log_plot(path, series: dict[str, tuple[list, list]], xlabel: str, ylabel: str, title: str):
    """A log-log line plot of {label: (x, y)} (skipped quietly without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for label, (x, y) in series.items():
        ax.loglog(x, y, marker="o", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def bar_plot(path, groups: dict[str, dict[str, float]], ylabel: str, title: str, log=True):
    """Grouped bars {group: {series: value}} (skipped quietly without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
        return
    series = sorted({k for g in groups.values() for k in g})
    fig, ax = plt.subplots(figsize=(7, 4.2))
    width = 0.8 / max(1, len(series))
    for i, name in enumerate(series):
        xs = [j + i * width for j, g in enumerate(groups.values()) if name in g]
        ys = [g[name] for g in groups.values() if name in g]
        ax.bar(xs, ys, width, label=name)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(groups))], list(groups), fontsize=8)
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
