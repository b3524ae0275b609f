#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/html_report.h"
#include "report_records.h"

namespace perfmarker::report {
namespace {

using testing::sendApi;
using testing::sendEnqueue;
using testing::sendMarker;

const std::string kHostile = "</script><img src=x onerror=alert(1)>\"'&<!--";

ReportData sampleReport(size_t maxItems = kDefaultMaxItems) {
    TimelineCollector collector(maxItems);
    collector.onFileBegin("app.atp");
    collector.onHeader("ProcessId", "4242", {});
    sendMarker(collector, 1, atp::MarkerKind::Begin, 100, kHostile, "user " + kHostile);
    sendApi(collector, 1, "clFinish", 150, 400);
    sendEnqueue(collector, 4592, "CL_COMMAND_NDRANGE_KERNEL", "k" + kHostile, 200, 700);
    sendMarker(collector, 1, atp::MarkerKind::End, 800);
    ReportData data;
    data.title = "Run " + kHostile;
    data.inputs = {"in/" + kHostile + ".atp"};
    data.maxItems = maxItems;
    data.timeline = collector.take();
    analysis::Table table;
    table.id = "CLAPISummary";
    table.title = "API Summary Page";
    table.columns = {"API Name", "# of Calls"};
    table.rows = {{"clFinish", "1"}, {kHostile, "2"}};
    table.notes = {"note " + kHostile};
    data.tables.push_back(table);
    return data;
}

std::string render(const ReportData& data) {
    std::ostringstream out;
    writeHtmlReport(out, data);
    return out.str();
}

size_t countOf(const std::string& text, const std::string& needle) {
    size_t count = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
        ++count;
    }
    return count;
}

// The text between the JSON block's opening tag and the first "</script" after it.
std::string embeddedJson(const std::string& html) {
    const std::string open = "<script type=\"application/json\" id=\"timeline-data\">";
    const size_t start = html.find(open);
    if (start == std::string::npos) return {};
    const size_t end = html.find("</script", start);
    return html.substr(start + open.size(), end - start - open.size());
}

TEST(ReportHtml, EscapeHtml) {
    EXPECT_EQ(escapeHtml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    EXPECT_EQ(escapeHtml(""), "");
    EXPECT_EQ(escapeHtml("plain"), "plain");
}

TEST(ReportHtml, TablesAreWrittenEscaped) {
    const std::string html = render(sampleReport());
    EXPECT_NE(html.find("<h2>API Summary Page</h2>"), std::string::npos);
    EXPECT_NE(html.find("<th>API Name</th><th># of Calls</th>"), std::string::npos);
    EXPECT_NE(html.find("<tr><td>clFinish</td><td>1</td></tr>"), std::string::npos);
    EXPECT_NE(html.find("<tr><td>" + escapeHtml(kHostile) + "</td><td>2</td></tr>"),
              std::string::npos);
    EXPECT_NE(html.find("<li>note " + escapeHtml(kHostile) + "</li>"), std::string::npos);
    EXPECT_NE(html.find("<title>Run " + escapeHtml(kHostile) + "</title>"), std::string::npos);
    EXPECT_NE(html.find("id=\"table-CLAPISummary\""), std::string::npos);
}

TEST(ReportHtml, HostileNamesCannotBreakOut) {
    const std::string html = render(sampleReport());
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_EQ(html.find("<!--"), std::string::npos);
    // Exactly the page's own three scripts open and close.
    EXPECT_EQ(countOf(html, "<script"), 3u);
    EXPECT_EQ(countOf(html, "</script>"), 3u);
    const std::string json = embeddedJson(html);
    EXPECT_EQ(json.find('<'), std::string::npos);
    EXPECT_EQ(json.find('>'), std::string::npos);
    EXPECT_EQ(json.find('&'), std::string::npos);
}

TEST(ReportHtml, EmbeddedJsonParsesAndKeepsTheNames) {
    const ReportData data = sampleReport();
    const nlohmann::json json = nlohmann::json::parse(embeddedJson(render(data)));
    EXPECT_EQ(json.at("title"), data.title);
    ASSERT_EQ(json.at("processes").size(), 1u);
    EXPECT_EQ(json.at("processes")[0].at("pid"), 4242);
    EXPECT_EQ(json.at("items").size(), data.timeline.items.size());
    EXPECT_EQ(json.at("totalItems"), 4);
    bool sawMarker = false;
    for (const nlohmann::json& item : json.at("items")) {
        ASSERT_EQ(item.size(), 7u);
        const std::string name = json.at("strings")[item[3].get<size_t>()];
        if (item[4] == "marker") {
            sawMarker = true;
            EXPECT_EQ(name, kHostile);
            EXPECT_EQ(item[1], 0);    // the earliest slice starts the time axis
            EXPECT_EQ(item[2], 700);  // 100 .. 800
            EXPECT_EQ(item[6], "group=Default\nuser=user " + kHostile);
        }
    }
    EXPECT_TRUE(sawMarker);
    ASSERT_EQ(json.at("tracks").size(), 2u);
    EXPECT_EQ(json.at("tracks")[1].at("kind"), "queue");
}

TEST(ReportHtml, InvalidUtf8StillGivesValidJson) {
    ReportData data = sampleReport();
    data.timeline.strings.push_back("bad \xff\xfe name");
    data.timeline.items[0].name = static_cast<uint32_t>(data.timeline.strings.size() - 1);
    const nlohmann::json json = nlohmann::json::parse(embeddedJson(render(data)));
    const std::string name = json.at("strings").back();
    EXPECT_EQ(name.rfind("bad ", 0), 0u);
    EXPECT_NE(name.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD
}

TEST(ReportHtml, NoNetworkReferences) {
    const std::string html = render(sampleReport());
    EXPECT_EQ(html.find("http://"), std::string::npos);
    EXPECT_EQ(html.find("https://"), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);
    EXPECT_EQ(html.find("url("), std::string::npos);
    EXPECT_EQ(html.find("<script src"), std::string::npos);
    EXPECT_EQ(html.find("@import"), std::string::npos);
    EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
}

TEST(ReportHtml, TheCapIsStatedOnThePage) {
    const std::string capped = render(sampleReport(2));
    EXPECT_NE(capped.find("Showing the 2 longest of 4 slices (--max-items 2)"), std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(embeddedJson(capped)).at("items").size(), 2u);
    EXPECT_EQ(render(sampleReport()).find("cap-notice"), std::string::npos);
}

TEST(ReportHtml, EmptyReportStillRenders) {
    ReportData data;
    const std::string html = render(data);
    EXPECT_NE(html.find("No summary tables."), std::string::npos);
    const nlohmann::json json = nlohmann::json::parse(embeddedJson(html));
    EXPECT_TRUE(json.at("items").empty());
    EXPECT_EQ(json.at("t0"), 0);
}

TEST(ReportHtml, WarningsAreShownEscaped) {
    TimelineCollector collector;
    collector.onFileBegin("<b>.atp");
    sendMarker(collector, 1, atp::MarkerKind::Begin, 10, "open");
    ReportData data;
    data.timeline = collector.take();
    const std::string html = render(data);
    EXPECT_NE(html.find("<p class=\"notice\">&lt;b&gt;.atp: thread 1: 1 marker(s) never ended"),
              std::string::npos);
}

TEST(ReportHtml, WritesAFile) {
    const std::string path = ::testing::TempDir() + "report_html_test.html";
    std::string error;
    ASSERT_TRUE(writeHtmlReportFile(path, sampleReport(), error)) << error;
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), render(sampleReport()));
    std::remove(path.c_str());
}

TEST(ReportHtml, UncreatableFileIsAnError) {
    std::string error;
    EXPECT_FALSE(writeHtmlReportFile("/nonexistent-dir/r.html", sampleReport(), error));
    EXPECT_NE(error.find("/nonexistent-dir/r.html: cannot create"), std::string::npos) << error;
}

TEST(ReportHtml, FullDiskIsAnError) {
    std::string error;
    EXPECT_FALSE(writeHtmlReportFile("/dev/full", sampleReport(), error));
    EXPECT_NE(error.find("/dev/full: write failed"), std::string::npos) << error;
}

}  // namespace
}  // namespace perfmarker::report
