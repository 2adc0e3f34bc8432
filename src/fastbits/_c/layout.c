/* The layout of a fresh result (see layout.h). */
#include "layout.h"

#include <string.h>

/* numpy's npyiter_find_best_axis_ordering: an insertion sort of the axes, innermost first, in
   which an axis moves inside another only when every operand that spans both steps less along
   it; where operands disagree, or none spans both, C order stays. */
static void order_k(int nd, int nop, const fb_ssize *const *strides, int *inner) {
    int i0, i1, pos, k, ambiguous, swap;
    for (i0 = 0; i0 < nd; i0++) inner[i0] = nd - 1 - i0;
    for (i0 = 1; i0 < nd; i0++) {
        const int a0 = inner[i0];
        for (pos = i0, i1 = i0 - 1; i1 >= 0; i1--) {
            const int a1 = inner[i1];
            for (ambiguous = 1, swap = 0, k = 0; k < nop; k++) {
                if (strides[k][a0] == 0 || strides[k][a1] == 0) continue;
                if (fb_abs(strides[k][a1]) <= fb_abs(strides[k][a0])) swap = 0; /* C order wins a conflict */
                else if (ambiguous) swap = 1;
                ambiguous = 0;
            }
            if (ambiguous) continue;
            if (!swap) break;
            pos = i1;
        }
        if (pos != i0) {
            memmove(&inner[pos + 1], &inner[pos], (size_t)(i0 - pos) * sizeof(int));
            inner[pos] = a0;
        }
    }
}

/* Strides for the axes ``inner`` lists, innermost first; 1 when that is C order. */
static int strides_of(int nd, const int *inner, const fb_ssize *shape, fb_ssize itemsize, fb_ssize *out_strides) {
    int i, c_order = 1;
    fb_ssize step = itemsize;
    for (i = 0; i < nd; i++) c_order = c_order && inner[i] == nd - 1 - i;
    if (c_order) return 1;
    for (i = 0; i < nd; i++) {
        out_strides[inner[i]] = step;
        step *= shape[inner[i]] > 0 ? shape[inner[i]] : 1; /* numpy's rule for a zero-size axis */
    }
    return 0;
}

int fb_layout(int order, int nd, const fb_ssize *shape, fb_ssize itemsize, int nop,
              const fb_ssize *const *strides, int all_f, fb_ssize *out_strides) {
    int inner[FB_MAXD], i;
    if (order == FB_ORDER_A) order = all_f ? FB_ORDER_F : FB_ORDER_C;
    if (order == FB_ORDER_C || nd <= 1 || nd > FB_MAXD) return 1;
    if (order == FB_ORDER_F) {
        for (i = 0; i < nd; i++) inner[i] = i;
    } else {
        order_k(nd, nop, strides, inner);
    }
    return strides_of(nd, inner, shape, itemsize, out_strides);
}

int fb_layout_copy(int nd, const fb_ssize *shape, const fb_ssize *strides, fb_ssize itemsize, int c_contiguous,
                   int f_contiguous, fb_ssize *out_strides) {
    int outer[FB_MAXD], inner[FB_MAXD], i, j, axis;
    if (c_contiguous || nd <= 1 || nd > FB_MAXD) return 1;
    if (f_contiguous) return fb_layout(FB_ORDER_F, nd, shape, itemsize, 0, NULL, 0, out_strides);
    /* numpy's PyArray_CreateSortedStridePerm: |stride| descending, ties in axis order */
    for (i = 0; i < nd; i++) {
        axis = i;
        for (j = i; j > 0 && fb_abs(strides[outer[j - 1]]) < fb_abs(strides[axis]); j--) outer[j] = outer[j - 1];
        outer[j] = axis;
    }
    for (i = 0; i < nd; i++) inner[i] = outer[nd - 1 - i];
    return strides_of(nd, inner, shape, itemsize, out_strides);
}
