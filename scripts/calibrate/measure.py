#!/usr/bin/env python3
# Kernel timings on a GPU for orrery's kernel model (scripts/calibrate/README.md).
# Usage: OUT=DIR python3 measure.py [gemm] [attn] [mem] [launch]  (all four by default)
# Reads kernels.txt beside it (scripts/calibrate/list-kernels writes one); writes
# DIR/{env.txt,gemm.csv,attn.csv,mem.csv,launch.csv,log.txt}.  Needs PyTorch with CUDA.
import os, sys, time, subprocess, traceback
import torch
import torch.nn.functional as F

OUT = os.environ.get("OUT", "/tmp/out")
HERE = os.path.dirname(os.path.abspath(__file__))
dev = torch.device("cuda")
bf16 = torch.bfloat16
logf = None


def p(*a):
    global logf
    if logf is None:
        logf = open(f"{OUT}/log.txt", "a")
    print(*a, flush=True)
    print(*a, file=logf, flush=True)


def ev():
    return torch.cuda.Event(enable_timing=True)


def timeit(fn, warm=3, target_ms=60.0, nmax=100):
    """Median and least of per-launch times in us (CUDA events around each call)."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    a, b = ev(), ev()
    a.record(); fn(); b.record(); torch.cuda.synchronize()
    one = max(a.elapsed_time(b), 1e-3)
    n = int(max(5, min(nmax, target_ms / one)))
    evs = [(ev(), ev()) for _ in range(n)]
    for s, e in evs:
        s.record(); fn(); e.record()
    torch.cuda.synchronize()
    ts = sorted(s.elapsed_time(e) * 1e3 for s, e in evs)
    return ts[len(ts) // 2], ts[0], n


def smi(q):
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa
        return f"nvidia-smi failed: {e}"


def env():
    with open(f"{OUT}/env.txt", "w") as f:
        f.write(f"date {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n")
        f.write(f"torch {torch.__version__} cuda {torch.version.cuda} cudnn {torch.backends.cudnn.version()}\n")
        pr = torch.cuda.get_device_properties(0)
        f.write(f"device {pr.name} sms {pr.multi_processor_count} mem {pr.total_memory}\n")
        try:
            f.write(f"cublaslt {torch._C._cuda_getCompiledVersion()}\n")
        except Exception:
            pass
        f.write("smi " + smi("name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,clocks.sm,clocks.mem,temperature.gpu") + "\n")


def parse(line):
    op, rest = line.split(":", 1)
    kv = dict(x.split("=") for x in rest.split(","))
    return op, kv


def gemms_of(lines):
    """(line, m, n, k, batch, dtype) of each GEMM among LINES (the kernels grammar)."""
    for line in lines:
        op, kv = parse(line)
        if op == "gemm":
            yield (line, int(kv["m"]), int(kv["n"]), int(kv["k"]), int(kv.get("batch", 1)),
                   kv.get("dtype", "bf16"))


def gemm_fn(m, n, k, batch, dtype):
    if dtype == "bf16":
        if batch == 1:
            a = torch.randn(m, k, dtype=bf16, device=dev)
            b = torch.randn(n, k, dtype=bf16, device=dev)
            return lambda: torch.matmul(a, b.t())
        a = torch.randn(batch, m, k, dtype=bf16, device=dev)
        b = torch.randn(batch, n, k, dtype=bf16, device=dev)
        return lambda: torch.bmm(a, b.transpose(1, 2))
    f8 = torch.float8_e4m3fn
    a = (torch.randn(m, k, device=dev) * 0.5).to(f8)
    b = (torch.randn(n, k, device=dev) * 0.5).to(f8).t()
    one = torch.tensor(1.0, device=dev)
    return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=bf16)


def gemms(lines):
    extra = ["gemm:m=2048,n=2048,k=13312", "gemm:m=8192,n=8192,k=8192",
             "gemm:m=4096,n=12288,k=4096", "gemm:m=2048,n=2304,k=2304",
             "gemm:m=1280,n=4096,k=12032,dtype=fp8", "gemm:m=8192,n=8192,k=8192,dtype=fp8",
             "gemm:m=4096,n=12288,k=4096,dtype=fp8", "gemm:m=2048,n=2304,k=2304,dtype=fp8",
             "gemm:m=128,n=256,k=65536"]
    with open(f"{OUT}/gemm.csv", "w") as f:
        f.write("m,n,k,batch,dtype,median_us,min_us,iters,tflops_median\n")
        for line, m, n, k, batch, dtype in gemms_of(extra + lines):
            try:
                fn = gemm_fn(m, n, k, batch, dtype)
                med, lo, it = timeit(fn)
                tf = 2.0 * m * n * k * batch / (med * 1e-6) / 1e12
                f.write(f"{m},{n},{k},{batch},{dtype},{med:.3f},{lo:.3f},{it},{tf:.1f}\n")
            except Exception as e:
                f.write(f"{m},{n},{k},{batch},{dtype},error,{type(e).__name__},0,0\n")
                p("gemm", line, "failed:", repr(e)[:200])
            f.flush()
            del fn
    torch.cuda.empty_cache()
    p("gemm done; clocks after:", smi("clocks.sm,clocks.mem,power.draw,temperature.gpu"))


def attn_one(direction, b, hq, hkv, sq, skv, d, causal, backend):
    from torch.nn.attention import sdpa_kernel, SDPBackend
    be = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[backend]
    q = torch.randn(b, hq, sq, d, dtype=bf16, device=dev, requires_grad=True)
    k = torch.randn(b, hkv, skv, d, dtype=bf16, device=dev, requires_grad=True)
    v = torch.randn(b, hkv, skv, d, dtype=bf16, device=dev, requires_grad=True)
    gqa = hq != hkv
    with sdpa_kernel([be]):
        def fwd():
            return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), enable_gqa=gqa)
        if direction == "fwd":
            return timeit(fwd)
        out = fwd()
        dout = torch.randn_like(out)
        return timeit(lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True))


def attn_flops(direction, b, hq, sq, skv, d, causal):
    x = 4.0 * b * hq * sq * skv * d
    if causal:
        x /= 2
    return x * (2.5 if direction == "bwd" else 1.0)


def attns(lines):
    cases = []
    for line in lines:
        op, kv = parse(line)
        if op != "attn":
            continue
        hq = int(kv["hq"]); sq = int(kv["sq"])
        cases.append(("trace", kv["dir"], int(kv["b"]), hq, int(kv.get("hkv", hq)), sq,
                      int(kv.get("skv", sq)), int(kv["d"]), int(kv.get("causal", 0))))
    for s in (512, 1024, 2048, 4096, 8192, 16384):      # FA3 paper's sweep: 16k tokens, hidden 2048
        for d in (64, 128, 256):
            for causal in (0, 1):
                for direction in ("fwd", "bwd"):
                    cases.append(("sweep", direction, 16384 // s, 2048 // d, 2048 // d, s, s, d, causal))
    with open(f"{OUT}/attn.csv", "w") as f:
        f.write("set,backend,dir,b,hq,hkv,sq,skv,d,causal,median_us,min_us,iters,tflops_median\n")
        for c in cases:
            for backend in ("cudnn", "flash"):
                key = ",".join(str(x) for x in (c[0], backend) + c[1:])
                try:
                    med, lo, it = attn_one(*c[1:], backend)
                    tf = attn_flops(c[1], c[2], c[3], c[5], c[6], c[7], c[8]) / (med * 1e-6) / 1e12
                    f.write(f"{key},{med:.3f},{lo:.3f},{it},{tf:.1f}\n")
                except Exception as e:
                    f.write(f"{key},error,{type(e).__name__},0,0\n")
                    p("attn", key, "failed:", repr(e)[:300])
                f.flush()
                torch.cuda.empty_cache()
    p("attn done; clocks after:", smi("clocks.sm,clocks.mem,power.draw,temperature.gpu"))


def mems():
    with open(f"{OUT}/mem.csv", "w") as f:
        f.write("op,elements,bytes,median_us,min_us,iters,gbps_median\n")
        for mib in (64, 256, 1024, 4096):
            n = mib * 2**20 // 2          # bf16 elements of the primary tensor
            h = 4096
            x = torch.randn(n // h, h, dtype=bf16, device=dev)
            y = torch.randn_like(x)
            z = torch.empty_like(x)
            w = torch.ones(h, dtype=bf16, device=dev)
            bias = torch.zeros(h, dtype=bf16, device=dev)
            f8 = torch.empty(n // h, h, dtype=torch.float8_e4m3fn, device=dev)
            ops = [
                ("copy", lambda: z.copy_(x), 4 * n),
                ("add", lambda: torch.add(x, y, out=z), 6 * n),
                ("cast_fp8", lambda: f8.copy_(x), 3 * n),
                ("layernorm", lambda: F.layer_norm(x, (h,), w, bias), 4 * n),
                ("rmsnorm", lambda: F.rms_norm(x, (h,), w), 4 * n),
                ("gelu", lambda: F.gelu(x), 4 * n),
                ("silu", lambda: F.silu(x), 4 * n),
                ("softmax", lambda: torch.softmax(x, dim=-1), 4 * n),
                ("dropout", lambda: torch.native_dropout(x, 0.1, True), 5 * n),
                ("transpose", lambda: x.t().contiguous(), 4 * n),
            ]
            for name, fn, nbytes in ops:
                try:
                    med, lo, it = timeit(fn, target_ms=40)
                    f.write(f"{name},{n},{nbytes},{med:.3f},{lo:.3f},{it},{nbytes / (med * 1e-6) / 1e9:.1f}\n")
                except Exception as e:
                    f.write(f"{name},{n},{nbytes},error,{type(e).__name__},0,0\n")
                    p("mem", name, mib, "failed:", repr(e)[:200])
                f.flush()
            del x, y, z, f8
            torch.cuda.empty_cache()
        # fused Adam: 28 bytes per fp32 parameter (p, g, m, v read; p, m, v written)
        for mparams in (64, 512):
            n = mparams * 2**20
            prm = torch.zeros(n, device=dev, requires_grad=True)
            prm.grad = torch.randn(n, device=dev)
            opt = torch.optim.Adam([prm], lr=1e-4, fused=True)
            try:
                med, lo, it = timeit(opt.step, target_ms=40)
                f.write(f"adam_fused,{n},{28 * n},{med:.3f},{lo:.3f},{it},{28 * n / (med * 1e-6) / 1e9:.1f}\n")
            except Exception as e:
                f.write(f"adam_fused,{n},{28 * n},error,{type(e).__name__},0,0\n")
                p("adam failed", repr(e)[:200])
            del prm, opt
            torch.cuda.empty_cache()
    p("mem done")


def launches():
    with open(f"{OUT}/launch.csv", "w") as f:
        f.write("what,kernels,total_us,per_kernel_us\n")
        t = torch.zeros(1, device=dev)
        for _ in range(100):
            t.add_(1)
        torch.cuda.synchronize()
        N = 2000
        a, b = ev(), ev()
        a.record()
        for _ in range(N):
            t.add_(1)
        b.record(); torch.cuda.synchronize()
        tot = a.elapsed_time(b) * 1e3
        f.write(f"eager_tiny,{N},{tot:.1f},{tot / N:.3f}\n")
        # the same tiny kernel replayed from a CUDA graph: the GPU-side cost of a launch
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                t.add_(1)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(1000):
                t.add_(1)
        for _ in range(3):
            g.replay()
        torch.cuda.synchronize()
        best = 1e18
        for _ in range(5):
            a, b = ev(), ev()
            a.record(); g.replay(); b.record(); torch.cuda.synchronize()
            best = min(best, a.elapsed_time(b) * 1e3)
        f.write(f"graph_tiny,1000,{best:.1f},{best / 1000:.3f}\n")
        # gap between back-to-back ~20 us GEMMs launched eagerly (host runs ahead)
        for (m, n, k) in ((2048, 2048, 2048), (4096, 4096, 4096)):
            x = torch.randn(m, k, dtype=bf16, device=dev)
            y = torch.randn(n, k, dtype=bf16, device=dev)
            fn = lambda: torch.matmul(x, y.t())
            med, lo, it = timeit(fn, nmax=200)
            N = 200
            for _ in range(10):
                fn()
            torch.cuda.synchronize()
            a, b = ev(), ev()
            a.record()
            for _ in range(N):
                fn()
            b.record(); torch.cuda.synchronize()
            tot = a.elapsed_time(b) * 1e3
            f.write(f"gemm{m}_alone_median,1,{med:.3f},{med:.3f}\n")
            f.write(f"gemm{m}_back_to_back,{N},{tot:.1f},{tot / N:.3f}\n")
            f.write(f"gemm{m}_gap,{N},{tot - N * med:.1f},{tot / N - med:.3f}\n")
            f.flush()
    p("launch done")


def kernel_lines():
    path = os.environ.get("KERNELS", os.path.join(HERE, "kernels.txt"))
    return [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]


def main():
    env()
    lines = kernel_lines()
    which = sys.argv[1:] or ["gemm", "attn", "mem", "launch"]
    for part, fn in (("gemm", lambda: gemms(lines)), ("attn", lambda: attns(lines)),
                     ("mem", mems), ("launch", launches)):
        if part not in which:
            continue
        t0 = time.time()
        try:
            fn()
        except Exception:
            p(part, "crashed:", traceback.format_exc()[-1500:])
        p(f"{part}: {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
