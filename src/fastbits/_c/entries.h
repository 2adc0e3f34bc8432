/* The public functions' C functions.
 *
 * Each public function of the compiled path is a builtin (METH_FASTCALL | METH_KEYWORDS) whose
 * __self__ is its module, so that help() shows a module's function and pickle finds it by name.
 * CPython hands such a function its module, not which function was called: so each public
 * function gets a C function of its own, one of FB_MAX_ENTRIES alike, that passes its entry
 * (the function's plumbing, _common.Entry) to the one handler every entry shares.
 */
#ifndef FASTBITS_ENTRIES_H
#define FASTBITS_ENTRIES_H

#include <Python.h>

/* Public functions of the compiled modules: 10 operators, pack and unpack, with room. */
#define FB_MAX_ENTRIES 16

/* The shared handler: a METH_FASTCALL | METH_KEYWORDS function that takes the entry as self. */
typedef PyObject *(*fb_entry_handler)(PyObject *entry, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames);

/* The next free C function, bound to ``entry`` (borrowed: the caller keeps it alive for the
 * process's life) and ``handler``; NULL when all FB_MAX_ENTRIES are taken.  Called while a
 * module is imported, under the caller's lock. */
void *fb_entry_function(PyObject *entry, fb_entry_handler handler);

#endif
