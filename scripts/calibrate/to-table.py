#!/usr/bin/env python3
# Turn sustained.py's gemm_hot.csv and measure.py's attn.csv into an orrery kernel table
# (workload/kernels.h: operator,shapes,dtype,device,time).
# Usage: python3 to-table.py DEVICE GRAPH_LAUNCH_US gemm_hot.csv attn.csv > table.csv
#   GRAPH_LAUNCH_US: measure.py's launch.csv graph_tiny per-kernel time, taken off each
#   graph-timed GEMM (orrery adds its own launch overhead to a table's time).
# GEMMs: the first "hot" row of each shape; attention: the cuDNN backend's rows.
import csv, sys

device, launch_us, gemm_csv, attn_csv = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
print("operator,shapes,dtype,device,time")
seen = set()
for r in csv.DictReader(open(gemm_csv)):
    key = (r["m"], r["n"], r["k"], r["batch"], r["dtype"])
    if r["phase"] != "hot" or r["median_us"] == "error" or key in seen:
        continue
    seen.add(key)
    shapes = f"m={r['m']} n={r['n']} k={r['k']}" + (f" batch={r['batch']}" if r["batch"] != "1" else "")
    print(f"gemm,{shapes},{r['dtype']},{device},{float(r['median_us']) - launch_us:.2f}us")
for r in csv.DictReader(open(attn_csv)):
    if r["backend"] != "cudnn" or r["median_us"] == "error":
        continue
    shapes = (f"dir={r['dir']} b={r['b']} hq={r['hq']}" + (f" hkv={r['hkv']}" if r["hkv"] != r["hq"] else "")
              + f" sq={r['sq']}" + (f" skv={r['skv']}" if r["skv"] != r["sq"] else "")
              + f" d={r['d']} causal={r['causal']}")
    print(f"attn,{shapes},bf16,{device},{float(r['median_us']):.2f}us")
