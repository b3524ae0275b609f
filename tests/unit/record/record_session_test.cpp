// The session contract: readSession() through a fake environment, expandPid, directoryOf.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "record/session.h"

namespace perfmarker::record {
namespace {

// The fake environment: readSession takes a plain function pointer, so the variables live in
// a static map that each test fills.
std::map<std::string, std::string>& fakeEnv() {
    static std::map<std::string, std::string> env;
    return env;
}

const char* fakeLookup(const char* name) {
    auto it = fakeEnv().find(name);
    return it == fakeEnv().end() ? nullptr : it->second.c_str();
}

class record_SessionTest : public ::testing::Test {
protected:
    void SetUp() override { fakeEnv().clear(); }
    void TearDown() override { fakeEnv().clear(); }

    static SessionResult read(std::map<std::string, std::string> vars) {
        fakeEnv() = std::move(vars);
        return readSession(&fakeLookup);
    }

    // Expects `value` in variable `name` to make the session Invalid, with an error naming
    // both.
    static void expectInvalid(const std::string& name, const std::string& value) {
        std::map<std::string, std::string> vars{{"PERFMARKER_OUTPUT", "/tmp/out/trace"}};
        vars[name] = value;
        SessionResult r = read(vars);
        EXPECT_EQ(r.status, SessionStatus::Invalid) << name << "='" << value << "'";
        EXPECT_NE(r.error.find(name), std::string::npos) << r.error;
        EXPECT_NE(r.error.find("'" + value + "'"), std::string::npos) << r.error;
    }
};

TEST_F(record_SessionTest, AbsentWithoutOutput) {
    SessionResult r = read({});
    EXPECT_EQ(r.status, SessionStatus::Absent);
    EXPECT_TRUE(r.error.empty());
}

TEST_F(record_SessionTest, OtherVariablesWithoutOutputAreStillAbsent) {
    SessionResult r = read({{"PERFMARKER_MODE", "cached"}, {"PERFMARKER_INTERVAL_MS", "bogus"}});
    EXPECT_EQ(r.status, SessionStatus::Absent);
    EXPECT_TRUE(r.error.empty()) << r.error;
}

TEST_F(record_SessionTest, PresentWithDefaults) {
    SessionResult r = read({{"PERFMARKER_OUTPUT", "/tmp/x/trace____PID___"}});
    ASSERT_EQ(r.status, SessionStatus::Present) << r.error;
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.config.outputBase, "/tmp/x/trace____PID___");  // not expanded here
    EXPECT_EQ(r.config.mode, FlushMode::Timeout);
    EXPECT_EQ(r.config.intervalMs, 100u);
    EXPECT_EQ(r.config.maxMemoryMb, 64u);
    EXPECT_TRUE(r.config.tempDir.empty());
}

TEST_F(record_SessionTest, EveryVariableParsed) {
    SessionResult r = read({{"PERFMARKER_OUTPUT", "out/base"},
                            {"PERFMARKER_MODE", "cached"},
                            {"PERFMARKER_INTERVAL_MS", "250"},
                            {"PERFMARKER_TMPDIR", "/var/tmp/frags"},
                            {"PERFMARKER_MAX_MEMORY_MB", "64"}});
    ASSERT_EQ(r.status, SessionStatus::Present) << r.error;
    EXPECT_EQ(r.config.outputBase, "out/base");
    EXPECT_EQ(r.config.mode, FlushMode::Cached);
    EXPECT_EQ(r.config.intervalMs, 250u);
    EXPECT_EQ(r.config.tempDir, "/var/tmp/frags");
    EXPECT_EQ(r.config.maxMemoryMb, 64u);
}

TEST_F(record_SessionTest, ExplicitTimeoutMode) {
    SessionResult r = read({{"PERFMARKER_OUTPUT", "o"}, {"PERFMARKER_MODE", "timeout"}});
    ASSERT_EQ(r.status, SessionStatus::Present) << r.error;
    EXPECT_EQ(r.config.mode, FlushMode::Timeout);
}

TEST_F(record_SessionTest, RangeBoundsAccepted) {
    SessionResult lo = read({{"PERFMARKER_OUTPUT", "o"},
                             {"PERFMARKER_INTERVAL_MS", "1"},
                             {"PERFMARKER_MAX_MEMORY_MB", "1"}});
    ASSERT_EQ(lo.status, SessionStatus::Present) << lo.error;
    EXPECT_EQ(lo.config.intervalMs, 1u);
    EXPECT_EQ(lo.config.maxMemoryMb, 1u);

    SessionResult hi = read({{"PERFMARKER_OUTPUT", "o"},
                             {"PERFMARKER_INTERVAL_MS", "3600000"},
                             {"PERFMARKER_MAX_MEMORY_MB", "1048576"}});
    ASSERT_EQ(hi.status, SessionStatus::Present) << hi.error;
    EXPECT_EQ(hi.config.intervalMs, 3600000u);
    EXPECT_EQ(hi.config.maxMemoryMb, 1048576u);
}

TEST_F(record_SessionTest, InvalidMode) {
    expectInvalid("PERFMARKER_MODE", "fast");
    expectInvalid("PERFMARKER_MODE", "");
    expectInvalid("PERFMARKER_MODE", "Cached");
}

TEST_F(record_SessionTest, InvalidInterval) {
    for (const char* v : {"0", "abc", "3600001", "-5", "10ms", "", " 5", "+5", "4294967297",
                          "99999999999999999999999"}) {
        expectInvalid("PERFMARKER_INTERVAL_MS", v);
    }
}

TEST_F(record_SessionTest, InvalidMaxMemory) {
    for (const char* v : {"0", "1048577", "lots", "-1", "12MB"}) {
        expectInvalid("PERFMARKER_MAX_MEMORY_MB", v);
    }
}

TEST_F(record_SessionTest, InvalidEmptyPaths) {
    SessionResult r = read({{"PERFMARKER_OUTPUT", ""}});
    EXPECT_EQ(r.status, SessionStatus::Invalid);
    EXPECT_NE(r.error.find("PERFMARKER_OUTPUT"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("''"), std::string::npos) << r.error;

    expectInvalid("PERFMARKER_TMPDIR", "");
}

TEST_F(record_SessionTest, FirstErrorIsReported) {
    SessionResult r = read(
        {{"PERFMARKER_OUTPUT", "o"}, {"PERFMARKER_MODE", "fast"}, {"PERFMARKER_INTERVAL_MS", "0"}});
    EXPECT_EQ(r.status, SessionStatus::Invalid);
    EXPECT_NE(r.error.find("PERFMARKER_MODE"), std::string::npos) << r.error;
}

TEST(record_SessionEnv, RealEnvironmentLookupByDefault) {
    // With no lookup, readSession reads the process environment.
    ASSERT_EQ(setenv("PERFMARKER_OUTPUT", "/tmp/envtest/out", 1), 0);
    ASSERT_EQ(setenv("PERFMARKER_INTERVAL_MS", "42", 1), 0);
    SessionResult r = readSession();
    unsetenv("PERFMARKER_OUTPUT");
    unsetenv("PERFMARKER_INTERVAL_MS");
    ASSERT_EQ(r.status, SessionStatus::Present) << r.error;
    EXPECT_EQ(r.config.outputBase, "/tmp/envtest/out");
    EXPECT_EQ(r.config.intervalMs, 42u);
    EXPECT_EQ(readSession().status, SessionStatus::Absent);
}

TEST(record_ExpandPid, NoOccurrence) {
    EXPECT_EQ(expandPid("/tmp/trace", 1234), "/tmp/trace");
    EXPECT_EQ(expandPid("", 1234), "");
    EXPECT_EQ(expandPid("__PID__", 1234), "__PID__");
}

TEST(record_ExpandPid, OneOccurrence) {
    EXPECT_EQ(expandPid("/tmp/trace____PID___", 1234), "/tmp/trace_1234");
    EXPECT_EQ(expandPid("___PID___", 7), "7");
    EXPECT_EQ(expandPid("/tmp/___PID___/out", 99999), "/tmp/99999/out");
}

TEST(record_ExpandPid, SeveralOccurrences) {
    EXPECT_EQ(expandPid("/tmp/___PID___/t____PID___.x___PID___", 42), "/tmp/42/t_42.x42");
    EXPECT_EQ(expandPid("___PID______PID___", 5), "55");
    EXPECT_EQ(expandPid("___PID______PID______PID___", 1234567), "123456712345671234567");
}

TEST(record_DirectoryOf, Cases) {
    EXPECT_EQ(directoryOf("a/b/c"), "a/b");
    EXPECT_EQ(directoryOf("c"), ".");
    EXPECT_EQ(directoryOf("/c"), "/");
    EXPECT_EQ(directoryOf("/tmp/x/trace_1"), "/tmp/x");
    EXPECT_EQ(directoryOf(""), ".");
}

TEST(record_SessionOptionsMarkdown, ListsEveryVariableWithDefault) {
    const std::string md = sessionOptionsMarkdown();
    for (const char* name : {"PERFMARKER_OUTPUT", "PERFMARKER_MODE", "PERFMARKER_INTERVAL_MS",
                             "PERFMARKER_TMPDIR", "PERFMARKER_MAX_MEMORY_MB"}) {
        EXPECT_NE(md.find(std::string("`") + name + "`"), std::string::npos) << name;
    }
    EXPECT_NE(md.find("`timeout`"), std::string::npos);
    EXPECT_NE(md.find("`100`"), std::string::npos);
    EXPECT_NE(md.find("`64`"), std::string::npos);
}

// docs/session.md holds the generated table verbatim: changing an option without the docs fails.
TEST(SessionOptionsMarkdown, DocsHoldTheGeneratedTable) {
    std::ifstream in(std::string(PERFMARKER_SOURCE_DIR) + "/docs/session.md");
    ASSERT_TRUE(in.good());
    std::stringstream docs;
    docs << in.rdbuf();
    EXPECT_NE(docs.str().find(sessionOptionsMarkdown()), std::string::npos)
        << "regenerate the table of docs/session.md from src/record/session_options.inc:\n"
        << sessionOptionsMarkdown();
}

}  // namespace
}  // namespace perfmarker::record
