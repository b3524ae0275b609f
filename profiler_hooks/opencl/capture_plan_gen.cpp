// Build-time generator of capture_plan.inc: the capture rules of the API catalogue
// (api/ocl_api.h), one line per captured parameter, in slot order, as an X-macro the layer
// compiles into per-entry-point code (api_capture.h). The catalogue stays the only source of the
// rules; this program only writes them down so that the compiler can see them.
//
//   capture_plan_gen OUTPUT
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "api/ocl_api.h"

namespace {

using perfmarker::atp::ocl::ParamKind;

const char* kindName(ParamKind k) {
    switch (k) {
        case ParamKind::OutScalar: return "OutScalar";
        case ParamKind::OutError: return "OutError";
        case ParamKind::OutHandle: return "OutHandle";
        case ParamKind::HandleArray: return "HandleArray";
        case ParamKind::SizeArray: return "SizeArray";
        case ParamKind::ErrorArray: return "ErrorArray";
        case ParamKind::ImageFormat: return "ImageFormat";
        case ParamKind::ImageDesc: return "ImageDesc";
        case ParamKind::BufferRegion: return "BufferRegion";
        case ParamKind::String: return "String";
        case ParamKind::Properties: return "Properties";
        case ParamKind::InfoValue: return "InfoValue";
        case ParamKind::KernelArgValue: return "KernelArgValue";
        default: return nullptr;  // not captured
    }
}

// Whether the call writes the pointee: then it is captured only after a successful call.
bool isOutput(const perfmarker::atp::ocl::ParamSpec& p) {
    return p.type.substr(0, 6) != "const " && p.kind != ParamKind::OutError &&
           p.kind != ParamKind::OutScalar && p.kind != ParamKind::OutHandle;
}

std::string plan() {
    std::ostringstream out;
    out << "// GENERATED at build time by capture_plan_gen from the API catalogue (api/ocl_api.h).\n"
           "// PM_CL_CAPTURE(slot, arg, kind, countArg, countOutArg, countOutSize, elemSize, "
           "clamp3, output)\n";
    for (const auto& api : perfmarker::atp::ocl::apis()) {
        if (api.name.empty()) continue;
        for (size_t i = 0; i < api.params.size(); ++i) {
            const auto& p = api.params[i];
            if (!perfmarker::atp::ocl::isCaptured(p.kind)) continue;
            const char* kind = kindName(p.kind);
            if (kind == nullptr) continue;
            const unsigned countOutSize =
                p.countOutArg >= 0 ? api.params[static_cast<size_t>(p.countOutArg)].elemSize : 4;
            out << "PM_CL_CAPTURE(" << api.slot << ", " << i << ", " << kind << ", "
                << int{p.countArg} << ", " << int{p.countOutArg} << ", " << countOutSize << ", "
                << unsigned{p.elemSize} << ", " << (p.clamp3 ? 1 : 0) << ", "
                << (isOutput(p) ? 1 : 0) << ")  // " << api.name << " " << p.name << "\n";
        }
    }
    out << "#undef PM_CL_CAPTURE\n";
    return out.str();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: capture_plan_gen OUTPUT\n");
        return 2;
    }
    std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
    out << plan();
    if (!out.flush()) {
        std::fprintf(stderr, "capture_plan_gen: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
