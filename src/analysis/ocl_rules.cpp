#include "analysis/ocl_rules.h"

#include <algorithm>
#include <utility>

#include "analysis/params.h"

namespace perfmarker::analysis {
namespace {

constexpr uint64_t kMinGlobalSize = 2560;
constexpr uint64_t kWavefront = 64;
constexpr uint64_t kOutOfOrderBit = 1;  // CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
constexpr std::string_view kOutOfOrderName = "CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE";

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool isMapApi(std::string_view name) {
    return name == "clEnqueueMapBuffer" || name == "clEnqueueMapImage";
}

// An enqueue API with an event (docs/format.md#enqueue-apis: clEnqueueWaitForEvents and
// clEnqueueBarrier have none).
bool isEnqueue(const atp::OclApiCall& call) {
    return call.hasCommand ||
           (startsWith(call.name, "clEnqueue") && call.name != "clEnqueueWaitForEvents" &&
            call.name != "clEnqueueBarrier");
}

bool succeeded(const atp::OclApiCall& call) {
    return call.returnValue == "CL_SUCCESS" ||
           (isMapApi(call.name) && startsWith(call.returnValue, "0x"));
}

const std::map<std::string_view, std::string_view>& deprecatedApis() {
    static const std::map<std::string_view, std::string_view> apis = {
        {"clSetCommandQueueProperty", "Set the properties when the queue is created."},
        {"clCreateImage2D", "Use clCreateImage instead."},
        {"clCreateImage3D", "Use clCreateImage instead."},
        {"clEnqueueMarker", "Use clEnqueueMarkerWithWaitList instead."},
        {"clEnqueueWaitForEvents", "Use clEnqueueBarrierWithWaitList instead."},
        {"clEnqueueBarrier", "Use clEnqueueBarrierWithWaitList instead."},
        {"clUnloadCompiler", "Use clUnloadPlatformCompiler instead."},
        {"clGetExtensionFunctionAddress", "Use clGetExtensionFunctionAddressForPlatform instead."},
        {"clCreateFromGLTexture2D", "Use clCreateFromGLTexture instead."},
        {"clCreateFromGLTexture3D", "Use clCreateFromGLTexture instead."},
        {"clEnqueueTask", "Use clEnqueueNDRangeKernel instead."},
        {"clCreateCommandQueue", "Use clCreateCommandQueueWithProperties instead."},
        {"clCreateSampler", "Use clCreateSamplerWithProperties instead."},
    };
    return apis;
}

// The value of CL_QUEUE_PROPERTIES in a printed properties list ("[{CL_QUEUE_PROPERTIES,1,NULL}]").
uint64_t queuePropertiesValue(std::string_view list) {
    const std::string_view key = "CL_QUEUE_PROPERTIES,";
    const size_t at = list.find(key);
    if (at == std::string_view::npos) return 0;
    const std::string_view rest = list.substr(at + key.size());
    return parseUnsigned(rest.substr(0, rest.find_first_of(",}"))).value_or(0);
}

}  // namespace

// The event an enqueue returned ("[0x...]"), "" when the application passed NULL.
std::string_view enqueueOutputEvent(const atp::OclApiCall& call) {
    const size_t n = call.params.size();
    const size_t back = isMapApi(call.name) ? 2 : 1;
    if (n < back) return {};
    const std::string_view value = call.params[n - back];
    return value.size() > 2 && value.front() == '[' ? stripBrackets(value) : std::string_view{};
}

void OclRules::onCall(const atp::OclApiCall& call, const CallRef& where, RuleLog& log) {
    retCode(call, where, log);
    trackRefs(call, where);
    trackQueues(call);
    blockingWrite(call, where, log);
    workGroupSize(call, where, log);
    dataTransfer(call, where, log);
    deprecated(call, where, log);
    sync(call, where, log);
}

uint64_t OclRules::endFile(RuleLog& log, bool cut) {
    const uint64_t alive = m_refs.finish(log, "RefTracker", cut);
    m_outOfOrderQueues.clear();
    m_persistentBuffers.clear();
    m_chains.clear();
    m_pendingSyncs.clear();
    return alive;
}

// The return code, or for object-returning APIs the errcode_ret argument (always the last
// one); errcode_ret printed as NULL says nothing (docs/summary.md#best-practice-rules).
void OclRules::retCode(const atp::OclApiCall& call, const CallRef& where, RuleLog& log) {
    static const std::set<std::string_view> kNoCode = {"clGetExtensionFunctionAddress",
                                                       "clGetExtensionFunctionAddressForPlatform",
                                                       "clSVMAlloc",
                                                       "clSVMFree",
                                                       "clSVMAllocAMD",
                                                       "clSVMFreeAMD"};
    const std::string_view ret = call.returnValue;
    if (ret.empty() || ret == "CL_SUCCESS" || kNoCode.count(call.name) != 0) return;
    if (startsWith(ret, "0x") || ret == "NULL") {
        const std::string_view last = call.params.empty() ? "" : call.params.back();
        const std::string_view code = stripBrackets(last);
        if (last.size() > 2 && last.front() == '[' && code != "CL_SUCCESS") {
            log.add("RetCodeAnalyzer", kError, where,
                    std::string(call.name) + " returns " + std::string(code));
        }
        return;
    }
    log.add("RetCodeAnalyzer", kError, where,
            std::string(call.name) + " returns " + std::string(ret));
}

void OclRules::trackRefs(const atp::OclApiCall& call, const CallRef& where) {
    const OclParams& params = oclParams();
    const std::string_view name = call.name;
    const bool ok = call.returnValue == "CL_SUCCESS";
    if ((startsWith(name, "clCreate") || startsWith(name, "clSVMAlloc")) &&
        startsWith(call.returnValue, "0x")) {
        m_refs.create(normalizeHandle(call.returnValue), call.returnValue, name, where);
    } else if (name == "clCreateKernelsInProgram" && ok) {
        for (std::string_view kernel : splitList(stripBrackets(params.kernels.in(call)))) {
            if (startsWith(kernel, "0x"))
                m_refs.create(normalizeHandle(kernel), kernel, name, where);
        }
    } else if (startsWith(name, "clRetain") && ok) {
        m_refs.adjust(normalizeHandle(params.retained.in(call)), 1);
    } else if (startsWith(name, "clRelease") && ok) {
        m_refs.adjust(normalizeHandle(params.retained.in(call)), -1);
    } else if (name == "clSVMFree" || name == "clSVMFreeAMD") {
        m_refs.adjust(normalizeHandle(params.svmPointer.in(call)), -1);
    } else if (isEnqueue(call) && succeeded(call)) {
        const std::string_view event = enqueueOutputEvent(call);
        if (startsWith(event, "0x")) m_refs.create(normalizeHandle(event), event, name, where);
    }
}

// Out-of-order queues: the bit is printed by name for clCreateCommandQueue and as a number
// inside the properties list of clCreateCommandQueueWithProperties (docs/format.md#parameters).
void OclRules::trackQueues(const atp::OclApiCall& call) {
    const OclParams& params = oclParams();
    if (call.name == "clCreateCommandQueue" && startsWith(call.returnValue, "0x")) {
        if (hasFlag(params.properties.in(call), kOutOfOrderName)) {
            m_outOfOrderQueues.insert(normalizeHandle(call.returnValue));
        }
    } else if (call.name == "clCreateCommandQueueWithProperties" &&
               startsWith(call.returnValue, "0x")) {
        if ((queuePropertiesValue(params.properties.in(call)) & kOutOfOrderBit) != 0) {
            m_outOfOrderQueues.insert(normalizeHandle(call.returnValue));
        }
    } else if (call.name == "clSetCommandQueueProperty" && call.returnValue == "CL_SUCCESS" &&
               hasFlag(params.properties.in(call), kOutOfOrderName)) {
        const std::string queue = normalizeHandle(params.queue.in(call));
        if (params.enable.in(call) == "CL_TRUE") {
            m_outOfOrderQueues.insert(queue);
        } else {
            m_outOfOrderQueues.erase(queue);
        }
    }
}

bool OclRules::isInOrder(const std::string& queue) const {
    return m_outOfOrderQueues.count(queue) == 0;
}

void OclRules::blockingWrite(const atp::OclApiCall& call, const CallRef& where, RuleLog& log) {
    const std::string_view name = call.name;
    if (name != "clEnqueueWriteBuffer" && name != "clEnqueueWriteBufferRect" &&
        name != "clEnqueueWriteImage") {
        return;
    }
    const OclParams& params = oclParams();
    if (params.blockingWrite.in(call) != "CL_TRUE" ||
        !isInOrder(normalizeHandle(params.queue.in(call)))) {
        return;
    }
    log.add("BlockingWrite", kBestPractices, where,
            std::string(name) + ": Unnecessary synchronization: Blocking write.");
}

void OclRules::workGroupSize(const atp::OclApiCall& call, const CallRef& where, RuleLog& log) {
    const bool task = call.name == "clEnqueueTask";
    if (!call.hasCommand || (!task && call.name != "clEnqueueNDRangeKernel") ||
        call.command.deviceName == "CPU_Device") {
        return;
    }
    const OclParams& params = oclParams();
    const std::string_view globalText = task ? "[1]" : params.globalWorkSize.in(call);
    const std::string_view localText = task ? "[1]" : params.localWorkSize.in(call);
    const std::string api(call.name);
    const std::optional<uint64_t> global = sizeProduct(globalText);
    if (global && *global < kMinGlobalSize) {
        log.add("BadWorkGroupSize", kBestPractices, where,
                api + ": Global work size " + std::string(globalText) +
                    " is too small (fewer than 2560 work-items): the device is underused.");
        return;
    }
    const std::optional<uint64_t> local = sizeProduct(localText);
    if (!local) return;  // NULL: the runtime chooses
    if (*local < kWavefront) {
        log.add("BadWorkGroupSize", kBestPractices, where,
                api + ": Work-group size " + std::string(localText) +
                    " is too small (fewer than 64 work-items): the device is underused.");
    } else if (*local % kWavefront != 0) {
        log.add("BadWorkGroupSize", kBestPractices, where,
                api + ": Work-group size " + std::string(localText) +
                    " is not a multiple of 64 (the wavefront size): part of a wavefront idles.");
    }
}

// Only the persistent-memory map check: the ALLOC_HOST_PTR kernel-argument check needs to
// know whether the device is an APU, which the trace does not say (docs/summary.md).
void OclRules::dataTransfer(const atp::OclApiCall& call, const CallRef& where, RuleLog& log) {
    const OclParams& params = oclParams();
    if (call.name == "clCreateBuffer" && startsWith(call.returnValue, "0x") &&
        hasFlag(params.bufferFlags.in(call), "CL_MEM_USE_PERSISTENT_MEM_AMD")) {
        m_persistentBuffers.insert(normalizeHandle(call.returnValue));
        return;
    }
    if (call.name != "clEnqueueMapBuffer" ||
        m_persistentBuffers.count(normalizeHandle(params.mappedBuffer.in(call))) == 0 ||
        !hasFlag(params.mapFlags.in(call), "CL_MAP_READ")) {
        return;
    }
    log.add("DataTransferAnalyzer", kBestPractices, where,
            "clEnqueueMapBuffer: Mapping a buffer created with CL_MEM_USE_PERSISTENT_MEM_AMD "
            "for reading is slow: the host reads device memory directly.");
}

void OclRules::deprecated(const atp::OclApiCall& call, const CallRef& where, RuleLog& log) {
    const auto& apis = deprecatedApis();
    auto it = apis.find(call.name);
    if (it == apis.end()) return;
    log.add("DeprecatedFunctionAnalyzer", kWarning, where,
            std::string(call.name) + " is deprecated. " + std::string(it->second));
}

}  // namespace perfmarker::analysis
