# cython: language_level=3, boundscheck=False, wraparound=False
"""The C loops of ``fast_layers.py``: a dense layer whose input rows are mostly zeros,
computed on their non-zero entries only (a Common Cause observation has ~75 of 1,202).

The weight is read in its transposed layout, ``(inputs, outputs)`` row-major, so that each
non-zero input adds one contiguous row of it to the output. Built by GCC for x86-64, the
loops are compiled for AVX-512, AVX2 and plain x86-64, the CPU picking one at load time
(elsewhere, once, for the target)."""

from libc.stdint cimport INT32_MAX

import numpy as np

cdef extern from *:
    """
    #include <stddef.h>

    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
    #define CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
    #else
    #define CLONES
    #endif

    /* Row r's non-zero entries of x (rows x width), as (column, value) pairs; offsets[r] is
       where row r's pairs start, offsets[rows] their count. */
    CLONES static int sparse_rows(const float *restrict x, int rows, int width,
                                  int *restrict offsets, int *restrict cols,
                                  float *restrict vals) {
        int n = 0;
        for (int r = 0; r < rows; r++) {
            const float *row = x + (ptrdiff_t)r * width;
            offsets[r] = n;
            for (int c = 0; c < width; c++) {  /* (branch-free: no mispredictions) */
                cols[n] = c;
                vals[n] = row[c];
                n += row[c] != 0.0f;
            }
        }
        offsets[rows] = n;
        return n;
    }

    /* out[r] = bias + sum over row r's pairs (c, v) of v * weight_t[c], four pairs at a
       time (four products per output summed, not one chain of additions: 4x faster) */
    CLONES static void sparse_forward(const int *restrict offsets, const int *restrict cols,
                                      const float *restrict vals, int rows,
                                      const float *restrict weight_t,
                                      const float *restrict bias, int outputs,
                                      float *restrict out) {
        for (int r = 0; r < rows; r++) {
            float *acc = out + (ptrdiff_t)r * outputs;
            for (int o = 0; o < outputs; o++) acc[o] = bias[o];
            int k = offsets[r];
            for (; k + 4 <= offsets[r + 1]; k += 4) {
                const float v0 = vals[k], v1 = vals[k + 1], v2 = vals[k + 2];
                const float v3 = vals[k + 3];
                const float *w0 = weight_t + (ptrdiff_t)cols[k] * outputs;
                const float *w1 = weight_t + (ptrdiff_t)cols[k + 1] * outputs;
                const float *w2 = weight_t + (ptrdiff_t)cols[k + 2] * outputs;
                const float *w3 = weight_t + (ptrdiff_t)cols[k + 3] * outputs;
                for (int o = 0; o < outputs; o++)
                    acc[o] += (v0 * w0[o] + v1 * w1[o]) + (v2 * w2[o] + v3 * w3[o]);
            }
            for (; k < offsets[r + 1]; k++) {
                const float v = vals[k];
                const float *w = weight_t + (ptrdiff_t)cols[k] * outputs;
                for (int o = 0; o < outputs; o++) acc[o] += v * w[o];
            }
        }
    }

    /* grad_t[c] += v * grad_out[r] for each of row r's pairs (c, v), rows in order */
    CLONES static void sparse_weight_grad(const int *restrict offsets,
                                          const int *restrict cols,
                                          const float *restrict vals, int rows,
                                          const float *restrict grad_out, int outputs,
                                          float *restrict grad_t) {
        for (int r = 0; r < rows; r++) {
            const float *g = grad_out + (ptrdiff_t)r * outputs;
            for (int k = offsets[r]; k < offsets[r + 1]; k++) {
                const float v = vals[k];
                float *w = grad_t + (ptrdiff_t)cols[k] * outputs;
                for (int o = 0; o < outputs; o++) w[o] += v * g[o];
            }
        }
    }
    """
    int sparse_rows(const float *x, int rows, int width, int *offsets, int *cols,
                    float *vals) nogil
    void sparse_forward(const int *offsets, const int *cols, const float *vals, int rows,
                        const float *weight_t, const float *bias, int outputs,
                        float *out) nogil
    void sparse_weight_grad(const int *offsets, const int *cols, const float *vals, int rows,
                            const float *grad_out, int outputs, float *grad_t) nogil


def forward(const float[:, ::1] x, const float[:, ::1] weight_t, const float[::1] bias,
            float[:, ::1] out):
    """``out = x @ weight_t + bias`` on ``x``'s non-zeros; returns them as ``(offsets,
    cols, vals)`` numpy arrays for :func:`weight_grad`."""
    cdef Py_ssize_t rows = x.shape[0], width = x.shape[1], outputs = weight_t.shape[1]
    if weight_t.shape[0] != width or bias.shape[0] != outputs:
        raise ValueError("weight_t must be (inputs, outputs) and bias (outputs,)")
    if out.shape[0] != rows or out.shape[1] != outputs:
        raise ValueError("out must be (rows, outputs)")
    if rows * width >= INT32_MAX or outputs >= INT32_MAX:
        raise ValueError(f"a batch of {rows:,} rows of {width:,} is too large: split it")
    offsets = np.zeros(rows + 1, dtype=np.int32)
    cols = np.empty(rows * width, dtype=np.int32)
    vals = np.empty(rows * width, dtype=np.float32)
    cdef int[::1] offsets_v = offsets, cols_v = cols
    cdef float[::1] vals_v = vals
    cdef int n
    if rows == 0:
        return offsets, cols[:0].copy(), vals[:0].copy()
    with nogil:
        n = sparse_rows(&x[0, 0], <int>rows, <int>width, &offsets_v[0], &cols_v[0],
                        &vals_v[0])
        sparse_forward(&offsets_v[0], &cols_v[0], &vals_v[0], <int>rows, &weight_t[0, 0],
                       &bias[0], <int>outputs, &out[0, 0])
    return offsets, cols[:n].copy(), vals[:n].copy()  # (not the rows x width scratch)


def weight_grad(const int[::1] offsets, const int[::1] cols, const float[::1] vals,
                const float[:, ::1] grad_out, float[:, ::1] grad_t) -> None:
    """``grad_t += x.T @ grad_out`` (the weight's gradient, transposed), ``x`` given by
    :func:`forward`'s non-zeros."""
    cdef Py_ssize_t rows = grad_out.shape[0], outputs = grad_out.shape[1]
    if offsets.shape[0] != rows + 1 or grad_t.shape[1] != outputs:
        raise ValueError("grad_out must have a row per row of x, grad_t its outputs")
    if cols.shape[0] != vals.shape[0] or offsets[rows] != cols.shape[0]:
        raise ValueError("offsets, cols and vals must be forward()'s")
    if rows == 0 or cols.shape[0] == 0:
        return
    if np.asarray(cols).max() >= grad_t.shape[0] or np.asarray(cols).min() < 0:
        raise ValueError("a column is outside grad_t's rows")
    with nogil:
        sparse_weight_grad(&offsets[0], &cols[0], &vals[0], <int>rows, &grad_out[0, 0],
                           <int>outputs, &grad_t[0, 0])
