/* The "application" of the call-site tests (tests/unit/symbols): built with -g -O0 into a shared
 * library, plus a stripped copy and a separate debug file of it. Each call site calls a function
 * of the test through a pointer, on a line the test finds by the marker comment on it. */
typedef void* (*PmCallee)(void);

void* pm_first_site(PmCallee callee) { return callee(); /* SITE first */ }

void* pm_second_site(PmCallee callee) {
    void* address = callee(); /* SITE second */
    return address;
}

/* Not in the dynamic symbol table: a stripped copy has no name for it. */
static void* pm_hidden_site(PmCallee callee) { return callee(); /* SITE hidden */ }

void* pm_call_hidden(PmCallee callee) { return pm_hidden_site(callee); }

/* Inlined even at -O0: the call site lies in pm_inlined_call's code inside pm_inline_site. */
static inline __attribute__((always_inline)) void* pm_inlined_call(PmCallee callee) {
    return callee(); /* SITE inlined */
}

void* pm_inline_site(PmCallee callee) { return pm_inlined_call(callee); }
