// The HSA agent's call sites (docs/call-sites.md) through the constructed runtime table: with
// PERFMARKER_SYM=1 the .atp gets an hsa Stack Trace section parallel to the API trace; merged at
// the process's exit it names module and offset, merged the launcher's way it names the line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agent_harness.h"
#include "atp/merge/merger.h"
#include "atp/symbols/call_site_lines.h"

namespace perfmarker::test {
namespace {

namespace fs = std::filesystem;
using atp::SectionKind;

// The line of this file that holds `marker` (the calls below are marked).
int lineOf(const std::string& marker) {
    std::ifstream in(__FILE__);
    int number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (line.find(marker) != std::string::npos && line.find("lineOf") == std::string::npos) {
            return number;
        }
    }
    return 0;
}

// hsa_init, two calls from this file at known lines, hsa_shut_down.
void twoCalls(FakeRuntime& rt, const Agent& agent) {
    CHILD_CHECK(agent.onLoad(rt.table(), 0x10000, 0, nullptr));
    CoreApiTable& t = rt.core();
    hsa_signal_t s{};
    const hsa_status_t created = t.hsa_signal_create_fn(1, 0, nullptr, &s);  // CALL create
    CHILD_CHECK(created == HSA_STATUS_SUCCESS);
    char n[64];
    const hsa_status_t info = t.hsa_agent_get_info_fn(gpu(), HSA_AGENT_INFO_NAME, n);  // CALL info
    CHILD_CHECK(info == HSA_STATUS_SUCCESS);
    agent.onUnload();
}

std::vector<std::vector<std::string>> tabFields(const std::vector<std::string>& lines) {
    std::vector<std::vector<std::string>> out;
    for (const std::string& line : lines) {
        out.emplace_back();
        size_t start = 0;
        for (size_t tab = line.find('\t');; tab = line.find('\t', start)) {
            out.back().push_back(line.substr(start, tab - start));
            if (tab == std::string::npos) break;
            start = tab + 1;
        }
    }
    return out;
}

TEST(HsaCallSites, ExitMergeWritesModuleAndOffsetParallelToTheApiTrace) {
    const TracedRun run = runTraced("sym_exit", &twoCalls, {{"PERFMARKER_SYM", "1"}});
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    ASSERT_TRUE(run.haveAtp) << run.childErrors;
    ASSERT_TRUE(run.readError.empty()) << run.readError;
    const auto api = run.lines(SectionKind::HsaApiTrace);
    const auto sites = tabFields(run.lines(SectionKind::HsaStackTrace));
    ASSERT_EQ(api.size(), 4u);
    ASSERT_EQ(sites.size(), api.size());
    EXPECT_EQ(run.blocks(SectionKind::HsaStackTrace).size(),
              run.blocks(SectionKind::HsaApiTrace).size());
    // hsa_init and hsa_shut_down are written by OnLoad and OnUnload: no call site.
    EXPECT_EQ(sites[0], std::vector<std::string>{"hsa_init"});
    EXPECT_EQ(sites[3], std::vector<std::string>{"hsa_shut_down"});
    for (size_t i : {size_t{1}, size_t{2}}) {
        ASSERT_EQ(sites[i].size(), 2u) << "not the module form";
        EXPECT_EQ(sites[i][1].rfind("hsa_agent_test+0x", 0), 0u) << sites[i][1];
    }
    EXPECT_EQ(sites[1][0], "hsa_signal_create");
    EXPECT_EQ(sites[2][0], "hsa_agent_get_info");
    EXPECT_NE(sites[1][1], sites[2][1]);
}

TEST(HsaCallSites, LaunchersMergeNamesTheLines) {
    const TracedRun left = runTraced("sym_launcher", &twoCalls,
                                     {{"PERFMARKER_SYM", "1"}, {"PERFMARKER_MERGE_AT_EXIT", "0"}});
    ASSERT_EQ(left.exitStatus, 0) << left.childErrors;
    ASSERT_FALSE(left.haveAtp) << "the agent merged although the launcher should";
    // The fragments and the modules file are in the process's own directory below the
    // session's (record/session_files.h) or in the session's itself.
    std::string dir;
    for (const auto& entry :
         fs::recursive_directory_iterator(fs::path(left.atpPath).parent_path())) {
        if (entry.path().extension() == ".modules") dir = entry.path().parent_path().string();
    }
    ASSERT_FALSE(dir.empty()) << "no modules file was written";
    atp::SessionDirListing listing;
    std::string error;
    ASSERT_TRUE(atp::listSessionPids(dir, listing, error)) << error;
    ASSERT_EQ(listing.pids.size(), 1u);
    atp::MergeOptions options;
    options.callSites = [](const std::string& modules) -> std::unique_ptr<atp::CallSiteWriter> {
        return std::make_unique<symbols::SymbolizingCallSites>(modules);
    };
    options.note = [](const std::string&) {};
    atp::MergeResult result;
    ASSERT_TRUE(atp::mergeProcess(dir, listing.pids[0], dir + "/trace", atp::AtpHeader{}, options,
                                  result, error))
        << error;
    ASSERT_TRUE(result.written);
    atp::AtpDocument doc;
    ASSERT_TRUE(atp::loadAtpFile(result.atpPath, doc, error)) << error;
    std::vector<std::string> lines;
    for (const auto& block : doc.blocks[SectionKind::HsaStackTrace]) {
        lines.insert(lines.end(), block.lines.begin(), block.lines.end());
    }
    const auto sites = tabFields(lines);
    ASSERT_EQ(sites.size(), 4u);
    const int expected[] = {lineOf("CALL create"), lineOf("CALL info")};
    for (size_t i : {size_t{1}, size_t{2}}) {
        ASSERT_EQ(sites[i].size(), 4u) << "not the symbol form";
        EXPECT_EQ(sites[i][2], std::to_string(expected[i - 1]));
        EXPECT_EQ(fs::path(sites[i][3]).filename(), "hsa_callsite_test.cpp");
    }
    EXPECT_FALSE(fs::exists(dir + "/" + std::to_string(listing.pids[0]) + ".modules"))
        << "the modules file is an input of the merge";
}

}  // namespace
}  // namespace perfmarker::test
