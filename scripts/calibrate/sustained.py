#!/usr/bin/env python3
# GEMM rates at the GPU's power limit, where a training step runs (scripts/calibrate/README.md).
# Usage: OUT=DIR python3 sustained.py soak   -> DIR/soak.csv: 250 ms windows of back-to-back
#          products: 15 s at 8192^3 bf16 and fp8, 10 s at the MAMF shapes (orrery's
#          calibration: workload/kernel_model.c), 10 s at 8192^3 bf16 again
#        OUT=DIR python3 sustained.py gemms  -> DIR/gemm_hot.csv: after a 15 s soak, every GEMM
#          of kernels.txt (or $KERNELS) timed by CUDA-graph replay, then the probes again
#          after 25 s idle (phase cool2)
# Both sample clocks and power every 250 ms into DIR/smi.csv.
import os, sys, time, subprocess
import torch
from measure import OUT, ev, p, gemm_fn, gemms_of, kernel_lines

PROBES = ["gemm:m=2048,n=2048,k=13312", "gemm:m=8192,n=8192,k=8192", "gemm:m=8192,n=8192,k=4096",
          "gemm:m=4096,n=12288,k=4096", "gemm:m=16384,n=6144,k=2048", "gemm:m=2048,n=16384,k=8192",
          "gemm:m=1280,n=4096,k=12032,dtype=fp8", "gemm:m=8192,n=8192,k=8192,dtype=fp8",
          "gemm:m=4096,n=4096,k=4096,dtype=fp8", "gemm:m=12288,n=12288,k=2048,dtype=fp8"]
T0 = time.time()


def graph_time(fn, target_ms=25.0):
    """Per-launch us of FN replayed from a CUDA graph of N launches (median, least of 5)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    a, b = ev(), ev()
    a.record(); fn(); b.record(); torch.cuda.synchronize()
    n = int(max(3, min(400, target_ms / max(a.elapsed_time(b), 1e-3))))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    g.replay(); torch.cuda.synchronize()
    ts = []
    for _ in range(5):
        a, b = ev(), ev()
        a.record(); g.replay(); b.record(); torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / n)
    ts.sort()
    return ts[2], ts[0], n


def soak_one(out, m, n, k, dt, secs):
    """Back-to-back products of one shape for SECS, one CSV line per ~250 ms window."""
    fn = gemm_fn(m, n, k, 1, dt)
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    a, b = ev(), ev()
    a.record(); fn(); b.record(); torch.cuda.synchronize()
    per = max(1, int(0.25 / (a.elapsed_time(b) * 1e-3)))
    end = time.time() + secs
    while time.time() < end:
        a, b = ev(), ev()
        a.record()
        for _ in range(per):
            fn()
        b.record(); torch.cuda.synchronize()
        us = a.elapsed_time(b) * 1e3 / per
        out.write(f"{m}x{n}x{k}-{dt},{time.time() - T0:.2f},{per},{us:.3f},"
                  f"{2.0 * m * n * k / (us * 1e-6) / 1e12:.1f}\n")
        out.flush()
    del fn
    torch.cuda.empty_cache()


def soak():
    with open(f"{OUT}/soak.csv", "w") as out:
        out.write("case,t_s,launches,us_per_launch,tflops\n")
        for shape in ((8192, 8192, 8192, "bf16", 15), (8192, 8192, 8192, "fp8", 15),
                      (2048, 2048, 13312, "bf16", 10), (1280, 4096, 12032, "fp8", 10),
                      (8192, 8192, 8192, "bf16", 10)):
            soak_one(out, *shape)


def run_list(tag, lines, out):
    for line, m, n, k, bt, dt in gemms_of(lines):
        try:
            med, lo, it = graph_time(gemm_fn(m, n, k, bt, dt))
            out.write(f"{tag},{time.time() - T0:.2f},{m},{n},{k},{bt},{dt},{med:.3f},{lo:.3f},{it},"
                      f"{2.0 * m * n * k * bt / (med * 1e-6) / 1e12:.1f}\n")
        except Exception as e:  # a shape the library refuses is recorded, not fatal
            out.write(f"{tag},{time.time() - T0:.2f},{m},{n},{k},{bt},{dt},error,{type(e).__name__},0,0\n")
            p("fail", line, repr(e)[:200])
        out.flush()


def gemms():
    with open(f"{OUT}/gemm_hot.csv", "w") as out:
        out.write("phase,t_s,m,n,k,batch,dtype,median_us,min_us,launches,tflops_median\n")
        run_list("cool", PROBES, out)
        with open(f"{OUT}/soak_before.csv", "w") as so:
            so.write("case,t_s,launches,us_per_launch,tflops\n")
            soak_one(so, 8192, 8192, 8192, "bf16", 15)
        run_list("hot", PROBES + kernel_lines(), out)
        run_list("hot_end", PROBES, out)
        torch.cuda.synchronize()
        time.sleep(25)
        run_list("cool2", PROBES, out)


def main():
    what = sys.argv[1:] or ["soak"]
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                            "--format=csv,noheader", "-lms", "250"], stdout=open(f"{OUT}/smi.csv", "w"))
    try:
        for w in what:
            {"soak": soak, "gemms": gemms}[w]()
            p(f"{w}: done at {time.time() - T0:.1f} s")
    finally:
        smi.terminate()


if __name__ == "__main__":
    main()
