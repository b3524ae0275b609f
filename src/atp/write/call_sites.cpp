#include "atp/write/call_sites.h"

#include <cstring>

namespace perfmarker::atp {

bool recordedCallSite(const record::ApiCallView& call, RecordedCallSite& site) {
    record::CaptureEncoding encoding{};
    std::string_view bytes;
    if (!call.captured(record::kCallSiteArg, encoding, bytes) ||
        encoding != record::CaptureEncoding::Bytes || bytes.size() != record::kCallSiteBytes) {
        return false;
    }
    std::memcpy(&site.returnAddress, bytes.data(), 8);
    std::memcpy(&site.callerReturnAddress, bytes.data() + 8, 8);
    return site.returnAddress != 0;
}

}  // namespace perfmarker::atp
