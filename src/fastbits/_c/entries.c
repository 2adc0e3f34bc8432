/* The public functions' C functions: see entries.h. */
#include "entries.h"

static PyObject *entries[FB_MAX_ENTRIES];
static fb_entry_handler handlers[FB_MAX_ENTRIES];
static int used;

/* The C function of slot I: its module is not needed, its entry is. */
#define FB_ENTRY(I)                                                                              \
    static PyObject *entry_##I(PyObject *module, PyObject *const *args, Py_ssize_t nargs,        \
                               PyObject *kwnames)                                                \
    {                                                                                            \
        (void)module;                                                                            \
        return handlers[I](entries[I], args, nargs, kwnames);                                    \
    }
FB_ENTRY(0) FB_ENTRY(1) FB_ENTRY(2) FB_ENTRY(3) FB_ENTRY(4) FB_ENTRY(5) FB_ENTRY(6) FB_ENTRY(7)
FB_ENTRY(8) FB_ENTRY(9) FB_ENTRY(10) FB_ENTRY(11) FB_ENTRY(12) FB_ENTRY(13) FB_ENTRY(14) FB_ENTRY(15)

typedef PyObject *(*entry_function)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);

static const entry_function functions[FB_MAX_ENTRIES] = {
    entry_0, entry_1, entry_2,  entry_3,  entry_4,  entry_5,  entry_6,  entry_7,
    entry_8, entry_9, entry_10, entry_11, entry_12, entry_13, entry_14, entry_15,
};

void *fb_entry_function(PyObject *entry, fb_entry_handler handler)
{
    if (used == FB_MAX_ENTRIES)
        return NULL;
    entries[used] = entry;
    handlers[used] = handler;
    return (void *)functions[used++];
}
