#!/usr/bin/env python3
"""The benchmark report in one command: builds the host benchmarks, runs them all, runs the numpy
and JAX peers, measures this machine's copy bandwidth, and writes bench/results/results.json
(plus each program's raw output) and PNG charts when matplotlib is importable.

    bench/run_all.py                       # everything, as quoted in bench/README.md
    bench/run_all.py --quick               # a smoke run: --benchmark_min_time=0.01, 1 repetition
    bench/run_all.py --no-build --filter 'fused'   # selected cases of the Google Benchmark programs

Stages (each printed as it starts):
  1. build   cmake --preset host (when BUILD_DIR has no cache), then the bench_* targets, -j JOBS
  2. copy    the machine's copy bandwidth: a STREAM-style copy loop (OpenMP, OMP_NUM_THREADS
             threads), compiled here with the preset's flags; GB/s counts bytes read + written
  3. bench   every bench_*: Google Benchmark programs with --benchmark_out=... (JSON), and
             --benchmark_min_time / --benchmark_filter when given; bench_monte_carlo_pi (its own
             driver: wall and CPU time per implementation, numpy and jax_cpu peers included)
  4. peers   bench/numpy_peers.py elementwise|reduce (numpy, one thread); jax_cpu comes with
             Monte Carlo pi when a Python that imports jax is found (--python, NAX_BENCH_PYTHON)
  5. compile bench/compile_times.sh BUILD_DIR (compile time and peak memory of the examples and
             each test area; slow: --no-compile-times skips it)
  6. report  results.json, then charts (GB/s per case with the copy bandwidth as a line; ratio
             bars for the rest), with this interpreter's matplotlib or another Python's
Environment for the runs: OMP_NUM_THREADS (default: the core count), OMP_PROC_BIND=true,
OMP_WAIT_POLICY=passive, NAX_BENCH_REPETITIONS (default 5; --quick: 1).
Only the standard library is needed to run it; numpy, jax and matplotlib are used when found.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")

COPY_SOURCE = r"""
// STREAM-style copy: b[i] = a[i] over 2^26 floats (256 MiB each), OpenMP static schedule.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <omp.h>
int main(int argc, char** argv) {
  const long n = 1L << 26;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
  float* a = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
  float* b = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) { a[i] = float(i & 1023); b[i] = 0.f; }
  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; ++i) b[i] = a[i];
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(2.0 * n * sizeof(float) / s / 1e9);
  }
  std::sort(rates.begin(), rates.end());
  std::printf("copy_gbps_median %.3f\ncopy_gbps_best %.3f\nthreads %d\ncheck %f\n", rates[rates.size() / 2],
              rates.back(), omp_get_max_threads(), double(b[n - 1]));
}
"""


def log(msg):
    print("[run_all %s] %s" % (datetime.datetime.now().strftime("%H:%M:%S"), msg), flush=True)


def run(cmd, env=None, cwd=ROOT, capture=True, check=True):
    log("$ " + " ".join(cmd))
    p = subprocess.run(cmd, env=env, cwd=cwd, text=True, stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.STDOUT if capture else None)
    if check and p.returncode != 0:
        if capture:
            print(p.stdout[-4000:])
        raise SystemExit("run_all: command failed (%d): %s" % (p.returncode, " ".join(cmd)))
    return p


def python_with(modules, preferred):
    """The first Python (preferred ones first) that imports every module in `modules`."""
    candidates = [c for c in preferred if c] + [sys.executable, "python3", "/usr/bin/python3"]
    seen = set()
    for py in candidates:
        if py in seen:
            continue
        seen.add(py)
        if shutil.which(py) is None and not os.path.exists(py):
            continue
        code = "import " + ", ".join(modules) if modules else "pass"
        if subprocess.run([py, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return None


def machine_info():
    info = {"platform": platform.platform(), "cores": os.cpu_count(), "load_average": os.getloadavg()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            info["memory"] = f.readline().split(":", 1)[1].strip()
    except OSError:
        pass
    for tool in ["g++", "cmake"]:
        try:
            info[tool] = subprocess.run([tool, "--version"], text=True, stdout=subprocess.PIPE).stdout.splitlines()[0]
        except (OSError, IndexError):
            pass
    return info


def bench_sources():
    """name -> kind ('gbench' for Google Benchmark programs, 'custom' otherwise)."""
    out = {}
    for f in sorted(os.listdir(BENCH)):
        if f.endswith(".cpp"):
            text = open(os.path.join(BENCH, f)).read()
            gb = "BENCHMARK_MAIN" in text or "benchmark::Initialize" in text
            out[f[:-4]] = {"gbench": gb, "no_numpy": "--no-numpy" in text}
    return out


def stage_build(args, benches):
    if not os.path.exists(os.path.join(args.build_dir, "CMakeCache.txt")):
        run(["cmake", "--preset", "host", "-B", args.build_dir], capture=False)
    targets = ["bench_" + b for b in benches]
    run(["cmake", "--build", args.build_dir, "--target"] + targets + ["-j", str(args.jobs)], capture=False)


def stage_copy(args, env):
    exe = os.path.join(args.build_dir, "bench", "run_all_copy_bandwidth")
    src = exe + ".cpp"
    with open(src, "w") as f:
        f.write(COPY_SOURCE)
    run(["g++", "-O3", "-march=native", "-fopenmp", "-std=c++17", src, "-o", exe])
    out = run([exe, "3" if args.quick else "20"], env=env).stdout
    vals = dict(line.split() for line in out.splitlines() if len(line.split()) == 2)
    return {"median_gbps": float(vals["copy_gbps_median"]), "best_gbps": float(vals["copy_gbps_best"]),
            "threads": int(vals["threads"]), "method": "b[i] = a[i], 2^26 floats, bytes read + written, OpenMP"}


def clean_name(name):
    """'fused/nax/repeats:5/real_time' -> 'fused/nax': drops Google Benchmark's option suffixes."""
    parts = [p for p in name.split("/")
             if not re.match(r"^(repeats|min_time|min_warmup_time|threads|iterations):", p)
             and p not in ("real_time", "manual_time", "process_time")]
    return "/".join(parts)


def parse_gbench(path):
    """Google Benchmark JSON -> {name: {time, unit, cpu_time, counters...}} (the median aggregate when
    there are repetitions, else the single run)."""
    data = json.load(open(path))
    rows = {}
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            continue
        name = clean_name(b.get("run_name", b["name"]))
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") != "median":
                continue
        elif name in rows and rows[name].get("aggregate"):
            continue
        row = {"real_time": b.get("real_time"), "cpu_time": b.get("cpu_time"), "time_unit": b.get("time_unit"),
               "aggregate": b.get("run_type") == "aggregate"}
        for k, v in b.items():
            if k not in ("name", "run_name", "run_type", "aggregate_name", "real_time", "cpu_time", "time_unit",
                         "family_index", "per_family_instance_index", "repetitions", "repetition_index",
                         "threads", "iterations", "aggregate_unit") and isinstance(v, (int, float)):
                row[k] = v
        rows[name] = row
    return {"context": data.get("context", {}), "results": rows}


def reparse(benches, out_dir):
    """--report-only: the results of the last run, re-read from the raw files in out_dir."""
    results = {}
    for name, meta in benches.items():
        jpath, tpath = os.path.join(out_dir, "bench_%s.json" % name), os.path.join(out_dir, "bench_%s.txt" % name)
        if meta["gbench"] and os.path.exists(jpath):
            results[name] = parse_gbench(jpath)
        elif name == "monte_carlo_pi" and os.path.exists(tpath):
            results[name] = parse_monte_carlo(open(tpath).read())
    peers = {}
    for peer, group in [("numpy", "elementwise"), ("numpy", "reduce"), ("jax", "elementwise"), ("jax", "reduce"),
                        ("jax", "train_step")]:
        p = os.path.join(out_dir, "%s_%s.txt" % (peer, group))
        if os.path.exists(p):
            for line in open(p):
                w = line.split()
                if len(w) == 2:
                    try:
                        peers.setdefault(group, {})[w[0]] = float(w[1])
                    except ValueError:
                        pass
    return results, peers


def stage_benches(args, benches, env, out_dir, py_numpy, py_jax):
    results, raw_logs = {}, {}
    for name, meta in benches.items():
        exe = os.path.join(args.build_dir, "bench", "bench_" + name)
        if not os.path.exists(exe):
            log("bench_%s: not built, left out" % name)
            continue
        if meta["gbench"]:
            jpath = os.path.join(out_dir, "bench_%s.json" % name)
            cmd = [exe, "--benchmark_out=" + jpath, "--benchmark_out_format=json"]
            if args.min_time:
                cmd.append("--benchmark_min_time=" + args.min_time)
            if args.filter:
                cmd.append("--benchmark_filter=" + args.filter)
            if meta["no_numpy"]:
                cmd.append("--no-numpy")  # numpy runs once, in the peers stage
            p = run(cmd, env=env, check=False)
            raw_logs[name] = p.stdout
            if p.returncode != 0 or not os.path.exists(jpath):
                log("bench_%s failed (%d); output in bench_%s.txt" % (name, p.returncode, name))
                results[name] = {"error": "exit %d" % p.returncode}
            else:
                results[name] = parse_gbench(jpath)
        elif name == "monte_carlo_pi":
            cmd = [exe, "--repetitions=%d" % (1 if args.quick else 15)]
            if args.quick:
                cmd.append("--no-memory")
            e = dict(env)
            if py_jax or py_numpy:
                e["NAX_BENCH_PYTHON"] = py_jax or py_numpy
            else:
                cmd.append("--no-peers")
            p = run(cmd, env=e, check=False)
            raw_logs[name] = p.stdout
            results[name] = parse_monte_carlo(p.stdout)
        else:
            p = run([exe], env=env, check=False)
            raw_logs[name] = p.stdout
            results[name] = {"output": p.stdout[-2000:]}
        with open(os.path.join(out_dir, "bench_%s.txt" % name), "w") as f:
            f.write(raw_logs[name])
    return results


def parse_monte_carlo(text):
    """Rows 'name wall_ms Msamples/s ratio cpu_ms Msamples/s ratio pi' of bench_monte_carlo_pi."""
    rows = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) == 8 and w[3].endswith("x") and w[6].endswith("x"):
            try:
                rows[w[0]] = {"wall_ms": float(w[1]), "cpu_ms": float(w[4]), "pi": float(w[7]),
                              "wall_vs_nax_vmap": float(w[3][:-1]), "cpu_vs_nax_vmap": float(w[6][:-1])}
            except ValueError:
                pass
    return {"results": rows}


def stage_peers(args, py_numpy, out_dir, py_jax=None):
    """numpy (numpy_peers.py) and JAX on the CPU (jax_peers.py): {group: {name: value}}; GB/s for
    elementwise and reduce, seconds per step for train_step (JAX only)."""
    peers = {}
    if not py_numpy:
        log("numpy peers left out: no Python imports numpy")
    if not py_jax:
        log("JAX peers left out: no Python imports jax (pip install jax; --python)")
    scripts = ([("numpy", py_numpy, g) for g in ["elementwise", "reduce"]] if py_numpy else []) + \
              ([("jax", py_jax, g) for g in ["elementwise", "reduce", "train_step"]] if py_jax else [])
    for peer, python, group in scripts:
        cmd = [python, os.path.join(BENCH, "%s_peers.py" % peer), group]
        if args.filter:
            cmd.append(args.filter)
        p = run(cmd, check=False)
        with open(os.path.join(out_dir, "%s_%s.txt" % (peer, group)), "w") as f:
            f.write((p.stdout or "") + (p.stderr or "")[-2000:])
        for line in p.stdout.splitlines():
            w = line.split()
            if len(w) == 2:
                try:
                    peers.setdefault(group, {})[w[0]] = float(w[1])
                except ValueError:
                    pass
    return peers


def stage_compile_times(args, out_dir):
    p = run([os.path.join(BENCH, "compile_times.sh"), args.build_dir] + ([args.compile_filter] if args.compile_filter else []),
            check=False)
    with open(os.path.join(out_dir, "compile_times.md"), "w") as f:
        f.write(p.stdout)
    return {"markdown_file": "compile_times.md", "exit": p.returncode}


def gbps_table(results, peers):
    """{group: {case: {impl: GB/s}}} for the bandwidth benchmarks (a 'GB/s' counter), numpy included."""
    table = {}
    for bench in ["elementwise", "reduce"]:
        rows = results.get(bench, {}).get("results", {})
        for name, row in rows.items():
            if "GB/s" in row and "/" in name:
                case, impl = name.rsplit("/", 1)
                table.setdefault(bench, {}).setdefault(case, {})[impl] = row["GB/s"]
        for name, v in peers.get(bench, {}).items():
            if "/" in name:
                case, impl = name.rsplit("/", 1)
                table.setdefault(bench, {}).setdefault(case, {})[impl] = v
    return table


def sizes_table(results):
    """bench_sizes: {case: {impl: [[elements, GB/s], ...]}}, sizes ascending."""
    table = {}
    for name, row in results.get("sizes", {}).get("results", {}).items():
        parts = name.split("/")
        if len(parts) == 3 and "GB/s" in row:
            case, impl, n = parts
            table.setdefault(case, {}).setdefault(impl, []).append([int(n), row["GB/s"]])
    for impls in table.values():
        for points in impls.values():
            points.sort()
    return table


def ratios(results, table, peers=None):
    """Ratios to quote (one run): GB/s / the hand loop's; times / nax's for vmap and Monte Carlo."""
    r = {}
    jax_steps = (peers or {}).get("train_step", {})
    steps = results.get("train_step", {}).get("results", {})
    for name, jax_seconds in jax_steps.items():
        nax_name = name.replace("_jax", "_nax")
        row = steps.get(nax_name)
        if row and row.get("real_time"):
            unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}.get(row.get("time_unit"), 1)
            r.setdefault("train_step_vs_jax", {})[nax_name] = round(jax_seconds / (row["real_time"] * unit), 3)
            r["train_step_vs_jax_note"] = "JAX's jit(value_and_grad) step time / nax's (above 1: nax is faster)"
    for group, cases in table.items():
        for case, impls in cases.items():
            if impls.get("hand"):
                for impl, v in impls.items():
                    r.setdefault(group, {}).setdefault(case, {})[impl + " / hand (GB/s)"] = round(v / impls["hand"], 3)
    vm = results.get("vmap", {}).get("results", {})
    if vm.get("hand_batched"):
        base = vm["hand_batched"]["real_time"]
        r["vmap"] = {k: round(v["real_time"] / base, 3) for k, v in vm.items()}
        r["vmap_note"] = "time / hand_batched's time (lower is faster)"
    # nax against a hand-written twin in the other programs (train_step: BM_mlp_nax / BM_mlp_by_hand)
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    for bench, res in results.items():
        if bench in ("elementwise", "reduce", "vmap"):
            continue
        rows = res.get("results", {}) if isinstance(res, dict) else {}
        for name, row in rows.items():
            if not isinstance(row, dict) or "real_time" not in row or "_nax" not in name:
                continue
            for twin in (name.replace("_nax", "_by_hand"), name.replace("_nax", "_hand")):
                if twin in rows and row["real_time"]:
                    t_nax = row["real_time"] * unit.get(row.get("time_unit"), 1)
                    t_hand = rows[twin]["real_time"] * unit.get(rows[twin].get("time_unit"), 1)
                    r.setdefault(bench, {})[name] = round(t_hand / t_nax, 3)
                    r[bench + "_note"] = "hand-written time / nax's time (nax's speed relative to the hand loop)"
                    break
    mc = results.get("monte_carlo_pi", {}).get("results", {})
    if mc:
        r["monte_carlo_pi"] = {k: v["wall_vs_nax_vmap"] for k, v in mc.items()}
        r["monte_carlo_pi_note"] = "wall time / nax_vmap's (higher: nax_vmap is that many times faster)"
    return r


def charts(report_path, out_dir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rep = json.load(open(report_path))
    made = []
    copy = rep.get("copy_bandwidth", {}).get("median_gbps")
    sizes = rep.get("sizes_gbps", {})
    cases = sorted((c, i) for c, i in sizes.items() if c != "copy")
    if cases:
        fig, axes = plt.subplots(1, len(cases), figsize=(6 * len(cases), 4.5), squeeze=False)
        for ax, (case, impls) in zip(axes[0], cases):
            for impl, points in sorted(impls.items()):
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=impl)
            for impl, points in sorted(sizes.get("copy", {}).items()):
                ax.plot([p[0] for p in points], [p[1] for p in points], color="0.6", linewidth=1,
                        label="copy (%s) at each size" % impl)
            if copy:
                ax.axhline(copy, color="k", linestyle="--", label="copy bandwidth %.1f GB/s (2^26)" % copy)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("elements (float)")
            ax.set_ylabel("GB/s (bytes the expression names)")
            ax.set_title("%s: GB/s against size" % case)
            ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out_dir, "sizes_gbps.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
    for group, cases in rep.get("gbps", {}).items():
        names = sorted(cases)
        impls = sorted({i for c in cases.values() for i in c}, key=lambda s: (s != "hand", s != "nax", s))
        fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(names)), 4.5))
        width = 0.8 / max(1, len(impls))
        for k, impl in enumerate(impls):
            xs = [n + k * width for n in range(len(names))]
            ax.bar(xs, [cases[c].get(impl, 0) for c in names], width, label=impl)
        if copy:
            ax.axhline(copy, color="k", linestyle="--", label="copy bandwidth %.1f GB/s" % copy)
        ax.set_xticks([n + 0.4 - width / 2 for n in range(len(names))])
        ax.set_xticklabels(names, rotation=20, ha="right")
        ax.set_ylabel("GB/s (bytes the expression names)")
        size = "4096 x 16384 float" if group in ("elementwise", "reduce") else ""
        ax.set_title("%s: GB/s per implementation (%s; one size)" % (group, size))
        ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out_dir, "%s_gbps.png" % group)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
    for key, vals in rep.get("ratios", {}).items():
        if key in rep.get("gbps", {}) or key.endswith("_note") or not isinstance(vals, dict):
            continue
        if not vals or not all(isinstance(v, (int, float)) for v in vals.values()):
            continue
        names = list(vals)
        fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(names)), 4))
        ax.bar(names, [vals[n] for n in names], color="tab:blue")
        ax.axhline(1.0, color="k", linewidth=0.8)
        ax.set_ylabel(rep["ratios"].get(key + "_note", "ratio"))
        ax.set_title(key + ": ratios measured in one run")
        plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
        fig.tight_layout()
        path = os.path.join(out_dir, "%s_ratios.png" % key)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build", "host"))
    ap.add_argument("--out", default=os.path.join(BENCH, "results"))
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--min-time", default="", help="--benchmark_min_time for the Google Benchmark programs")
    ap.add_argument("--filter", default="", help="--benchmark_filter (and numpy_peers.py's REGEX)")
    ap.add_argument("--repetitions", type=int, default=0, help="NAX_BENCH_REPETITIONS (default 5)")
    ap.add_argument("--quick", action="store_true", help="smoke run: min time 0.01 s, 1 repetition, no compile times")
    ap.add_argument("--python", default=os.environ.get("NAX_BENCH_PYTHON", ""),
                    help="a Python with numpy / jax / matplotlib for the peers and the charts")
    ap.add_argument("--no-compile-times", action="store_true")
    ap.add_argument("--compile-filter", default="",
                    help="REGEX of the sources whose compile time is measured (compile_times.sh), e.g. 'examples/'")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--report-only", action="store_true",
                    help="rebuild results.json and the charts from the raw files of the last run in --out")
    ap.add_argument("--charts-only", metavar="RESULTS_JSON", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.charts_only:
        for p in charts(args.charts_only, os.path.dirname(os.path.abspath(args.charts_only))):
            print("chart", p)
        return
    if args.quick:
        args.min_time = args.min_time or "0.01"
        args.repetitions = args.repetitions or 1
        args.no_compile_times = True
    args.build_dir = os.path.abspath(args.build_dir)
    out_dir = os.path.abspath(args.out)
    os.makedirs(out_dir, exist_ok=True)

    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    env.setdefault("OMP_PROC_BIND", "true")
    env.setdefault("OMP_WAIT_POLICY", "passive")
    if args.repetitions:
        env["NAX_BENCH_REPETITIONS"] = str(args.repetitions)

    started = time.time()
    report = {"generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
              "machine": machine_info(),
              "settings": {k: env.get(k) for k in ["OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_WAIT_POLICY",
                                                    "NAX_BENCH_REPETITIONS"]},
              "min_time": args.min_time or "default", "filter": args.filter or None, "quick": args.quick}
    try:
        report["git"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], text=True,
                                       stdout=subprocess.PIPE).stdout.strip()
    except OSError:
        pass

    benches = bench_sources()
    py_numpy = None if args.no_peers else python_with(["numpy"], [args.python])
    py_jax = None if args.no_peers else python_with(["numpy", "jax"], [args.python])
    report["peers_python"] = {"numpy": py_numpy, "jax": py_jax}

    path = os.path.join(out_dir, "results.json")
    if args.report_only:
        previous = json.load(open(path))
        for key in ["generated", "command", "machine", "settings", "min_time", "filter", "quick", "git",
                    "peers_python", "copy_bandwidth", "compile_times", "seconds"]:
            if key in previous:
                report[key] = previous[key]
        report["reparsed"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        results, peers = reparse(benches, out_dir)
        report["benchmarks"], report["numpy"] = results, peers
        args.no_compile_times = True
    else:
        if not args.no_build:
            log("stage 1: build")
            stage_build(args, benches)
        log("stage 2: copy bandwidth")
        report["copy_bandwidth"] = stage_copy(args, env)
        log("stage 3: benchmarks")
        results = stage_benches(args, benches, env, out_dir, py_numpy, py_jax)
        report["benchmarks"] = results
        log("stage 4: numpy and JAX peers")
        peers = {} if args.no_peers else stage_peers(args, py_numpy, out_dir, py_jax)
        report["numpy"] = peers
    if not args.no_compile_times:
        log("stage 5: compile times")
        report["compile_times"] = stage_compile_times(args, out_dir)
    report["gbps"] = gbps_table(results, peers)
    report["sizes_gbps"] = sizes_table(results)
    report["ratios"] = ratios(results, report["gbps"], peers)
    if not args.report_only:
        report["machine"]["load_average_after"] = os.getloadavg()
        report["seconds"] = round(time.time() - started, 1)
    with open(path, "w") as f:
        json.dump(report, f, indent=1, sort_keys=False)
    log("wrote " + path)

    log("stage 6: charts")
    try:
        for p in charts(path, out_dir):
            log("chart " + p)
    except ImportError:
        py_mpl = python_with(["matplotlib"], [args.python] + list((report.get("peers_python") or {}).values()))
        if py_mpl:
            run([py_mpl, os.path.abspath(__file__), "--charts-only", path], capture=False, check=False)
        else:
            log("charts left out: no Python imports matplotlib (apt-get install python3-matplotlib)")


if __name__ == "__main__":
    main()
