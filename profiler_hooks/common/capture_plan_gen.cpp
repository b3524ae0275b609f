// Build-time generator of both agents' capture plans: which arguments of a call have their
// pointee copied into the ApiCall record, one line per captured parameter, in slot order, as
// an X-macro each agent compiles into per-entry-point code (no plan walked per call):
//
//   capture_plan.inc      from the OpenCL catalogue (api/ocl_api.h), for the OpenCL layer
//                         (profiler_hooks/opencl/api_capture.h)
//   hsa_capture_plan.inc  from the HSA catalogue (api/hsa_api.h), for the HSA agent
//                         (profiler_hooks/hsa/api_capture.h)
//
// The catalogues stay the only source of the rules; this program only writes them down so that
// the compiler can see them.
//
//   capture_plan_gen OPENCL_OUTPUT HSA_OUTPUT
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "api/hsa_api.h"
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

std::string openClPlan() {
    std::ostringstream out;
    out << "// GENERATED at build time by capture_plan_gen from the API catalogue "
           "(api/ocl_api.h).\n"
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

// The HSA plan: outputs of a fixed size (read after a successful call), input strings, and the
// queue an hsa_queue_t** output points to. Input queues are not read: the record is written
// after the call, and hsa_queue_destroy has freed its queue by then. They print as pointers.
const char* hsaCaptureKind(const perfmarker::atp::HsaParam& p) {
    using perfmarker::atp::HsaKind;
    if (p.out) return perfmarker::atp::hsaKindBytes(p.kind) > 0 ? "OutScalar" : nullptr;
    if (p.kind == HsaKind::Str) return "String";
    if (p.kind == HsaKind::QueueOut) return "QueueOut";
    return nullptr;
}

// At most this many captures per call (the HSA prototypes have fewer).
constexpr unsigned kMaxHsaCaptures = 4;

std::string hsaPlan() {
    std::ostringstream out;
    out << "// GENERATED at build time by capture_plan_gen from the API catalogue "
           "(api/hsa_api.h).\n"
           "// PM_HSA_CAPTURE(slot, arg, kind, bytes)\n";
    for (const auto& api : perfmarker::atp::hsaApis()) {
        unsigned count = 0;
        for (size_t i = 0; i < api.params.size() && count < kMaxHsaCaptures; ++i) {
            const auto& p = api.params[i];
            const char* kind = hsaCaptureKind(p);
            if (kind == nullptr) continue;
            ++count;
            const size_t bytes = p.out ? perfmarker::atp::hsaKindBytes(p.kind) : 0;
            out << "PM_HSA_CAPTURE(" << api.slot << ", " << i << ", " << kind << ", " << bytes
                << ")  // " << api.name << " " << p.name << "\n";
        }
    }
    out << "#undef PM_HSA_CAPTURE\n";
    return out.str();
}

bool writeFile(const char* path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (out.flush()) return true;
    std::fprintf(stderr, "capture_plan_gen: cannot write %s\n", path);
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: capture_plan_gen OPENCL_OUTPUT HSA_OUTPUT\n");
        return 2;
    }
    return writeFile(argv[1], openClPlan()) && writeFile(argv[2], hsaPlan()) ? 0 : 1;
}
