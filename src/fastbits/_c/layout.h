/* The layout numpy's ufuncs give a fresh result (order 'K', 'C', 'F' or 'A'), for the
   operators' fresh results and BitCast's copies: the same axis order as numpy's iterator
   (nditer) chooses, so that operands that share a layout get a result in it, and the engine
   runs them as one contiguous run. */
#ifndef FASTBITS_LAYOUT_H
#define FASTBITS_LAYOUT_H

#include "platform.h"

enum { FB_ORDER_K = 0, FB_ORDER_C = 1, FB_ORDER_F = 2, FB_ORDER_A = 3 };

/* The byte strides of a new array of ``nd`` axes of ``shape`` and ``itemsize`` laid out for
   ``order``, in ``out_strides``: its axes ordered, outermost first, by the |strides| of the
   ``nop`` operands (``strides[k][d]``, 0 on an axis operand k does not span: broadcast or of
   length 1), C order between two axes the operands disagree on or do not tell apart (order
   'K'); C order ('C'); reversed ('F'); 'F' where ``all_f`` (every input F-contiguous), else
   C ('A').  Returns 1 when that is C order (``out_strides`` then untouched), else 0. */
int fb_layout(int order, int nd, const fb_ssize *shape, fb_ssize itemsize, int nop,
              const fb_ssize *const *strides, int all_f, fb_ssize *out_strides);

/* The byte strides numpy.copy(x) (order 'K', numpy's empty_like) gives a copy of an array of
   ``nd`` axes of ``shape``, ``strides`` and ``itemsize``, in ``out_strides``: C order where x is
   C-contiguous (``c_contiguous``), F order where it is F-contiguous, else its axes ordered by
   |stride|, largest first, a stable sort (a stride-0 axis innermost).  Returns 1 when that is
   C order (``out_strides`` then untouched), else 0. */
int fb_layout_copy(int nd, const fb_ssize *shape, const fb_ssize *strides, fb_ssize itemsize, int c_contiguous,
                   int f_contiguous, fb_ssize *out_strides);

#endif /* FASTBITS_LAYOUT_H */
