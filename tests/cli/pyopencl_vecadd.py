"""A real OpenCL client that is not ours: pyopencl adds two vectors on the first platform.

Prints the result's checksum; exits 0 only when every element is right. Run with the
interpreter that has Debian's python3-pyopencl (/usr/bin/python3).
"""
import sys

import numpy as np
import pyopencl as cl


def main():
    n = 1 << 16
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 2.0, dtype=np.float32)
    ctx = cl.Context(cl.get_platforms()[0].get_devices())
    queue = cl.CommandQueue(ctx)
    flags = cl.mem_flags
    a_buf = cl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=b)
    out_buf = cl.Buffer(ctx, flags.WRITE_ONLY, a.nbytes)
    program = cl.Program(ctx, """
        __kernel void vadd(__global const float* a, __global const float* b,
                           __global float* out) {
            size_t i = get_global_id(0);
            out[i] = a[i] + b[i];
        }""").build()
    program.vadd(queue, (n,), None, a_buf, b_buf, out_buf)
    out = np.empty_like(a)
    cl.enqueue_copy(queue, out, out_buf)
    queue.finish()
    wrong = int(np.count_nonzero(out != a + b))
    print(f"pyopencl vadd n={n} wrong={wrong} sum={float(out.sum()):.1f}")
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
