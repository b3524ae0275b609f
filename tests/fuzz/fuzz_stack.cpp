// libFuzzer target: the Stack Trace part.
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using perfmarker::atp::SectionKind;
    perfmarker::atp::fuzz::run(data, size, {SectionKind::OclStackTrace, SectionKind::HsaStackTrace});
    return 0;
}
