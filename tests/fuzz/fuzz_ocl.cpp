// libFuzzer target: the OpenCL part (API Trace and Timestamp sections joined).
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using perfmarker::atp::SectionKind;
    perfmarker::atp::fuzz::run(data, size, {SectionKind::OclApiTrace, SectionKind::OclTimestamp});
    return 0;
}
