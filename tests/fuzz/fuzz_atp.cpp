// libFuzzer target: the whole reader: header, sections and every part.
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    perfmarker::atp::fuzz::run(data, size, {});
    return 0;
}
