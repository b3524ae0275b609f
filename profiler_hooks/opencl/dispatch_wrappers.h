// The layer's dispatch table: one generated wrapper per callable slot of cl_api_table.inc.
#pragma once

#include "cl_api.h"

namespace perfmarker::cltrace {

struct DispatchCounts {
    cl_uint wrapped = 0;        // slots pointing at a wrapper
    cl_uint passedThrough = 0;  // reserved slots holding a non-null entry of the next layer
};

// Saves the first `targetEntries` slots of `target` (the next layer down: the loader's table or
// the layer loaded before us) and returns the table to hand to the loader. A slot gets a
// wrapper when the table has a prototype for it, the target provides a non-null entry there
// and no API filter leaves it out (isSlotIntercepted); reserved and filtered slots are copied
// through; slots at or beyond `targetEntries` stay null. Never reads target slots at or beyond
// `targetEntries`.
//
// Not thread-safe: the loader calls it once, from its initialization, before it routes any call
// through the returned table; the wrappers then only read the saved target table.
const cl_icd_dispatch* buildLayerDispatch(const cl_icd_dispatch* target, cl_uint targetEntries,
                                          DispatchCounts* counts);

}  // namespace perfmarker::cltrace
