// The OpenCL pages (docs/summary.md#pages): API, context, kernel, top kernels, data transfer and
// top transfers. Memory: one entry per API name, kernel/device pair, transfer kind/context/queue,
// context, and per file one entry per handle that created queues, buffers or images; the top
// lists hold at most SummaryOptions::topCount rows. Nothing grows with the number of calls.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/api_stats.h"
#include "analysis/format.h"
#include "analysis/summary.h"

namespace perfmarker::analysis {

class OclPages : public FamilyPages {
public:
    explicit OclPages(const SummaryOptions& options);
    void onCall(const atp::OclApiCall& call, const std::string& callIndex);
    // Folds the per-file context handles into context ids (ids are per process).
    void endFile();

private:
    struct ContextStats {
        uint64_t queues = 0;
        uint64_t buffers = 0;
        uint64_t images = 0;
        std::map<std::string, DurationStats> kernelsByDevice;
        TransferStats read, write, map, copy;
    };
    // A handle seen as the first parameter of a create call, or as a context of a command.
    struct FileHandle {
        bool isContext = false;
        uint64_t createdAt = 0;
        bool hasId = false;
        uint64_t id = 0;
        uint64_t queues = 0, buffers = 0, images = 0;
    };
    using TransferKey = std::tuple<std::string, uint64_t, uint64_t>;  // type, context, queue

    void countCreation(const atp::OclApiCall& call);
    void addKernel(const atp::OclApiCall& call, const std::string& callIndex);
    void addTransfer(const atp::OclApiCall& call, const std::string& callIndex);
    void addContextTraffic(const atp::OclCommand& command);
    void appendContextTables(std::vector<Table>& out) const override;
    std::vector<std::string> contextRow(const std::string& id, const ContextStats& c) const;
    static void addContext(ContextStats& total, const ContextStats& context);
    bool hasTransfers() const override { return !m_transfers.empty(); }
    void appendTransferRows(std::vector<std::vector<std::string>>& rows) const override;

    std::map<TransferKey, TransferStats> m_transfers;
    std::map<uint64_t, ContextStats> m_contexts;
    std::set<std::string, std::less<>> m_devices;
    std::map<std::string, FileHandle> m_fileHandles;
};

}  // namespace perfmarker::analysis
