#include "analysis/ocl_pages.h"

#include <algorithm>

#include "analysis/params.h"

namespace perfmarker::analysis {
namespace {

constexpr std::string_view kCommandPrefix = "CL_COMMAND_";

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

std::string shortCommandName(std::string_view name) {
    return std::string(startsWith(name, kCommandPrefix) ? name.substr(kCommandPrefix.size())
                                                        : name);
}

// Image and map commands: device times too coarse for a rate below 1 us (docs/summary.md#pages).
bool isImageOrMap(std::string_view commandName) {
    return contains(commandName, "IMAGE") || contains(commandName, "MAP");
}

const FamilyPages::Layout kLayout{
    "CL",
    {"Kernel Name", "Context ID", "Command Queue ID", "Device Name", "Duration(ms)",
     "Global Work Size", "Work Group Size", "Thread ID", "Call Index"},
    "Memory Operation Summary Page",
    {"Command Type", "Context ID", "Command Queue ID"},
    {"Command Type", "Context ID", "Command Queue ID", "Duration(ms)", "Transfer Size",
     "Transfer Rate(MB/s)", "Thread ID", "Call Index"}};

}  // namespace

OclPages::OclPages(const SummaryOptions& options) : FamilyPages(options, kLayout) {}

// Calls and commands whose times are unknown or end before they start are left out of every
// duration (docs/format.md#unknown-times; the notes page counts them).
void OclPages::onCall(const atp::OclApiCall& call, const std::string& callIndex) {
    if (atp::hostTimes(call) == atp::Times::Known) {
        m_api.add(call.name, call.end - call.start, call.consecutiveCalls);
    }
    countCreation(call);
    if (!call.hasCommand) return;
    const atp::OclCommand& command = call.command;
    FileHandle& context = m_fileHandles[normalizeHandle(command.contextHandle)];
    context.isContext = true;
    context.hasId = true;
    context.id = command.contextId;
    if (m_devices.find(command.deviceName) == m_devices.end()) {
        m_devices.emplace(command.deviceName);
    }
    if (atp::deviceTimes(command) != atp::Times::Known) return;
    addContextTraffic(command);
    if (command.isKernel) {
        addKernel(call, callIndex);
    } else if (command.hasDataSize) {
        addTransfer(call, callIndex);
    }
}

// Queues, buffers and images by the context handle of their create call (docs/summary.md#pages).
void OclPages::countCreation(const atp::OclApiCall& call) {
    if (!startsWith(call.name, "clCreate") || !startsWith(call.returnValue, "0x")) return;
    const bool isContext = call.name == "clCreateContext" || call.name == "clCreateContextFromType";
    if (isContext) {
        FileHandle& handle = m_fileHandles[normalizeHandle(call.returnValue)];
        handle.isContext = true;
        handle.createdAt = call.start;
        return;
    }
    const bool queue = contains(call.name, "CommandQueue");
    const bool buffer = contains(call.name, "Buffer");
    const bool image = contains(call.name, "Image");
    if (!queue && !buffer && !image) return;
    const std::string owner = normalizeHandle(oclParams().owner.in(call));
    if (owner.empty()) return;
    FileHandle& handle = m_fileHandles[owner];
    handle.queues += queue ? 1 : 0;
    handle.buffers += buffer ? 1 : 0;
    handle.images += image ? 1 : 0;
}

void OclPages::addContextTraffic(const atp::OclCommand& command) {
    ContextStats& context = m_contexts[command.contextId];
    const uint64_t ns = durationNs(command.start, command.end);
    if (command.isKernel) {
        context.kernelsByDevice[std::string(command.deviceName)].add(ns);
        return;
    }
    const uint64_t size = command.hasDataSize ? command.dataSize : 0;
    const std::string_view name = command.commandName;
    TransferStats* traffic = contains(name, "COPY")    ? &context.copy
                             : contains(name, "READ")  ? &context.read
                             : contains(name, "WRITE") ? &context.write
                             : contains(name, "_MAP")  ? &context.map
                                                       : nullptr;
    if (traffic != nullptr) traffic->add(ns, size);
}

void OclPages::addKernel(const atp::OclApiCall& call, const std::string& callIndex) {
    const atp::OclCommand& command = call.command;
    const uint64_t ns = durationNs(command.start, command.end);
    m_kernels[{command.kernelName, std::string(command.deviceName)}].add(ns);
    if (!m_topKernels.wouldKeep(ns)) return;
    m_topKernels.offer(
        ns, {command.kernelName, std::to_string(command.contextId), std::to_string(command.queueId),
             std::string(command.deviceName), formatMs(ns), std::string(command.globalSize),
             std::string(command.localSize), std::to_string(call.tid), callIndex});
}

void OclPages::addTransfer(const atp::OclApiCall& call, const std::string& callIndex) {
    const atp::OclCommand& command = call.command;
    const bool imageOrMap = isImageOrMap(command.commandName);
    const uint64_t ns = durationNs(command.start, command.end);
    const std::string type = shortCommandName(command.commandName);
    m_transfers[{type, command.contextId, command.queueId}].add(ns, command.dataSize);
    if (!m_topTransfers.wouldKeep(ns)) return;
    m_topTransfers.offer(
        ns, {type, std::to_string(command.contextId), std::to_string(command.queueId), formatMs(ns),
             formatSize(command.dataSize), formatRate(command.dataSize, ns, imageOrMap),
             std::to_string(call.tid), callIndex});
}

void OclPages::endFile() {
    // A context without a command gets the id the agent gave it: its rank in creation order.
    std::vector<FileHandle*> created;
    for (auto& [name, handle] : m_fileHandles) {
        if (handle.isContext && handle.createdAt != 0) created.push_back(&handle);
    }
    std::stable_sort(created.begin(), created.end(), [](const FileHandle* a, const FileHandle* b) {
        return a->createdAt < b->createdAt;
    });
    for (size_t rank = 0; rank < created.size(); ++rank) {
        if (!created[rank]->hasId) created[rank]->id = rank;
        created[rank]->hasId = true;
    }
    for (const auto& [name, handle] : m_fileHandles) {
        if (!handle.isContext || !handle.hasId) continue;
        ContextStats& context = m_contexts[handle.id];
        context.queues += handle.queues;
        context.buffers += handle.buffers;
        context.images += handle.images;
    }
    m_fileHandles.clear();
}

void OclPages::appendContextTables(std::vector<Table>& out) const {
    if (m_contexts.empty()) return;
    Table table{"CLContextSummary",
                "Context Summary Page",
                {"Context ID", "# of Queues", "# of Buffers", "# of Images"},
                {},
                {}};
    for (const std::string& device : m_devices) {
        table.columns.push_back("# of Kernel Dispatch - " + device);
        table.columns.push_back("Total Kernel Time(ms) - " + device);
    }
    for (const char* column :
         {"# of Memory Transfer", "Total Memory Time(ms)", "# of Read", "Total Read Time(ms)",
          "Size of Read", "# of Write", "Total Write Time(ms)", "Size of Write", "# of Map",
          "Total Map Time(ms)", "Size of Map", "# of Copy", "Total Copy Time(ms)",
          "Size of Copy"}) {
        table.columns.push_back(column);
    }
    ContextStats total;
    for (const auto& [id, context] : m_contexts) {
        table.rows.push_back(contextRow(std::to_string(id), context));
        addContext(total, context);
    }
    table.rows.push_back(contextRow("Total", total));
    out.push_back(std::move(table));
}

std::vector<std::string> OclPages::contextRow(const std::string& id, const ContextStats& c) const {
    std::vector<std::string> cells{id, std::to_string(c.queues), std::to_string(c.buffers),
                                   std::to_string(c.images)};
    for (const std::string& device : m_devices) {
        auto it = c.kernelsByDevice.find(device);
        const bool any = it != c.kernelsByDevice.end();
        cells.push_back(any ? std::to_string(it->second.count) : "NA");
        cells.push_back(any ? formatMs(it->second.totalNs) : "NA");
    }
    const TransferStats* kinds[] = {&c.read, &c.write, &c.map, &c.copy};
    uint64_t count = 0, ns = 0;
    for (const TransferStats* t : kinds) count += t->count, ns += t->totalNs;
    cells.push_back(std::to_string(count));
    cells.push_back(formatMs(ns));
    for (const TransferStats* t : kinds) {
        cells.push_back(std::to_string(t->count));
        cells.push_back(formatMs(t->totalNs));
        cells.push_back(formatSize(t->bytes));
    }
    return cells;
}

void OclPages::addContext(ContextStats& total, const ContextStats& context) {
    total.queues += context.queues;
    total.buffers += context.buffers;
    total.images += context.images;
    for (const auto& [device, stats] : context.kernelsByDevice) {
        DurationStats& sum = total.kernelsByDevice[device];
        sum.count += stats.count;
        sum.totalNs += stats.totalNs;
    }
    TransferStats* sums[] = {&total.read, &total.write, &total.map, &total.copy};
    const TransferStats* parts[] = {&context.read, &context.write, &context.map, &context.copy};
    for (size_t i = 0; i < 4; ++i) {
        sums[i]->count += parts[i]->count;
        sums[i]->totalNs += parts[i]->totalNs;
        sums[i]->bytes += parts[i]->bytes;
    }
}

void OclPages::appendTransferRows(std::vector<std::vector<std::string>>& rows) const {
    for (const auto& [key, stats] : m_transfers) {
        const auto& [type, context, queue] = key;
        rows.push_back(transferRow({type, std::to_string(context), std::to_string(queue)}, stats,
                                   isImageOrMap(type)));
    }
}

}  // namespace perfmarker::analysis
