// libFuzzer target: the HSA part (API, Timestamp and Kernel Timestamp sections).
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using perfmarker::atp::SectionKind;
    perfmarker::atp::fuzz::run(data, size, {SectionKind::HsaApiTrace, SectionKind::HsaTimestamp, SectionKind::HsaKernelTimestamp});
    return 0;
}
