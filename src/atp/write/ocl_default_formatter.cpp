// The trace builder's OclFormatter over the API catalogue and line formatter of ocl_format.h.
// Kept apart from ocl_trace.cpp so the builder and its tests do not depend on the catalogue.
#include "api/ocl_api.h"
#include "atp/write/ocl_api_line.h"
#include "atp/write/ocl_sections.h"

namespace perfmarker::atp {
namespace {

constexpr int kUnknownFuncType = 146;  // PM_CL_FUNC_TYPE_UNKNOWN of cl_api_table.inc

class CatalogueFormatter final : public OclFormatter {
public:
    std::string_view apiName(const record::ApiCallView& call) const override {
        const ocl::ApiSpec* api = ocl::apiBySlot(call.head.slot);
        if (api != nullptr && !api->name.empty()) return api->name;
        return oclApiNameView(call.head.apiId == record::kNoApiId
                                  ? kUnknownFuncType
                                  : static_cast<int>(call.head.apiId));
    }

    int apiType(const record::ApiCallView& call) const override {
        return call.head.apiId == record::kNoApiId ? kUnknownFuncType
                                                   : static_cast<int>(call.head.apiId);
    }

    bool isSuccessfulEnqueue(const record::ApiCallView& call) const override {
        const ocl::ApiSpec* api = ocl::apiBySlot(call.head.slot);
        if (api == nullptr || !api->isEnqueue) return false;
        // cl_int APIs return CL_SUCCESS; the map APIs return the mapped pointer (NULL: failed).
        if (api->returnType == "cl_int") return static_cast<int32_t>(call.head.ret) == 0;
        return call.head.ret != 0;
    }

    bool apiLine(const record::ApiCallView& call, uint32_t consecutiveCalls, std::string& line,
                 std::string& error) const override {
        OclLineOptions options;
        options.consecutiveCalls = consecutiveCalls;
        return appendOclApiLine(call, line, error, options);
    }

    bool linesAreOfPayload() const override { return true; }

    bool enqueueInfo(const record::ApiCallView& call, OclEnqueueInfo& info,
                     std::string& error) const override {
        OclEnqueueFields fields;
        if (!oclEnqueueFields(call, fields, error)) return false;
        info.queue = fields.queue;
        info.kernel = fields.kernel;
        info.globalSize = std::move(fields.globalSize);
        info.localSize = std::move(fields.localSize);
        info.hasDataSize = fields.hasDataSize;
        info.dataSize = fields.dataSize;
        return true;
    }

    std::string commandTypeName(uint32_t commandType) const override {
        return oclCommandTypeName(commandType);
    }

    std::string handleString(uint64_t handle) const override { return oclHandleString(handle); }
};

}  // namespace

const OclFormatter& defaultOclFormatter() {
    static const CatalogueFormatter formatter;
    return formatter;
}

}  // namespace perfmarker::atp
