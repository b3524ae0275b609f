// The profile session's environment contract (profile/format/profile_session.h).
#include "profile/format/profile_session.h"

#include <gtest/gtest.h>

namespace perfmarker::profile {
namespace {

TEST(ProfileSession, PidTokenBecomesTheProcessIdEverywhere) {
    EXPECT_EQ(expandPidToken("/d/profile.___PID___.csv", 42), "/d/profile.42.csv");
    EXPECT_EQ(expandPidToken("___PID___/a.___PID___", 7), "7/a.7");
    EXPECT_EQ(expandPidToken("/d/p.csv", 7), "/d/p.csv");
    EXPECT_EQ(expandPidToken("__PID__", 7), "__PID__");
}

TEST(ProfileSession, CounterListIsSplitAndTrimmedKeepingEmptyNames) {
    EXPECT_TRUE(splitCounterList("").empty());
    EXPECT_EQ(splitCounterList("task-clock"), (std::vector<std::string>{"task-clock"}));
    EXPECT_EQ(splitCounterList(" task-clock , cycles\t"),
              (std::vector<std::string>{"task-clock", "cycles"}));
    EXPECT_EQ(splitCounterList("a,,b,"), (std::vector<std::string>{"a", "", "b", ""}));
}

TEST(ProfileSession, OccupancyFileTakesTheCsvPathWithItsExtensionReplaced) {
    EXPECT_EQ(occupancyPathFor("/d/p.csv"), "/d/p.occupancy");
    EXPECT_EQ(occupancyPathFor("/d.x/p"), "/d.x/p.occupancy");
    EXPECT_EQ(occupancyPathFor("p.1234.csv"), "p.1234.occupancy");
}

}  // namespace
}  // namespace perfmarker::profile
