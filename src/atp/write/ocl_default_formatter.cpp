// The trace builder's OclFormatter over the API catalogue and line formatter of ocl_format.h.
// Kept apart from ocl_trace.cpp so the builder and its tests do not depend on the catalogue.
#include <string_view>
#include <vector>

#include "api/ocl_api.h"
#include "atp/write/ocl_api_line.h"
#include "atp/write/ocl_sections.h"

namespace perfmarker::atp {
namespace {

constexpr int kUnknownFuncType = 146;  // PM_CL_FUNC_TYPE_UNKNOWN of cl_api_table.inc

class CatalogueFormatter final : public OclFormatter {
public:
    // What the merge asks of every call's slot, three times a call (its passes), taken from the
    // catalogue once: a look-up there is a guarded static and a string comparison.
    CatalogueFormatter() {
        const std::vector<ocl::ApiSpec>& all = ocl::apis();
        m_slots.reserve(all.size());
        for (const ocl::ApiSpec& api : all) {
            m_slots.push_back(Slot{api.name, api.isEnqueue, api.returnType == "cl_int"});
        }
    }

    std::string_view apiName(const record::ApiCallView& call) const override {
        if (call.head.slot < m_slots.size() && !m_slots[call.head.slot].name.empty()) {
            return m_slots[call.head.slot].name;
        }
        return oclApiNameView(call.head.apiId == record::kNoApiId
                                  ? kUnknownFuncType
                                  : static_cast<int>(call.head.apiId));
    }

    int apiType(const record::ApiCallView& call) const override {
        return call.head.apiId == record::kNoApiId ? kUnknownFuncType
                                                   : static_cast<int>(call.head.apiId);
    }

    bool isSuccessfulEnqueue(const record::ApiCallView& call) const override {
        if (call.head.slot >= m_slots.size() || !m_slots[call.head.slot].isEnqueue) return false;
        // cl_int APIs return CL_SUCCESS; the map APIs return the mapped pointer (NULL: failed).
        if (m_slots[call.head.slot].returnsClInt) return static_cast<int32_t>(call.head.ret) == 0;
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

private:
    struct Slot {
        std::string_view name;  // empty: no API in the catalogue's slot
        bool isEnqueue = false;
        bool returnsClInt = false;
    };
    std::vector<Slot> m_slots;
};

}  // namespace

const OclFormatter& defaultOclFormatter() {
    static const CatalogueFormatter formatter;
    return formatter;
}

}  // namespace perfmarker::atp
