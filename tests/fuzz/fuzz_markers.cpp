// libFuzzer target: the Perfmarker part.
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using perfmarker::atp::SectionKind;
    perfmarker::atp::fuzz::run(data, size, {SectionKind::Perfmarker});
    return 0;
}
