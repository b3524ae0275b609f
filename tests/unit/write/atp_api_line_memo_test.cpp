// The section writers' memo of API lines (src/atp/write/api_line_memo.h): a line kept for a
// call comes back for a call that differs in its end time and enqueue id alone, and for no call
// that differs in any other byte, in size or in its count of collapsed calls (checked on a memo
// of one entry, where every call meets the kept one), and a later call takes its entry.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "atp/write/api_line_memo.h"

namespace perfmarker::atp {
namespace {

using record::ApiCallHead;
using record::ApiCallView;

// A call of 3 arguments and a captured string: 32 + 24 + 8 + 16 bytes.
std::string payloadOf(uint64_t end, uint64_t enqueueId) {
    ApiCallHead head{};
    head.endTime = end;
    head.apiId = 12;
    head.slot = 34;
    head.argCount = 3;
    head.ret = 0;
    head.enqueueId = enqueueId;
    std::string p(reinterpret_cast<const char*>(&head), sizeof head);
    for (uint64_t a : {uint64_t{0x5000}, uint64_t{7}, uint64_t{0x6000}}) {
        p.append(reinterpret_cast<const char*>(&a), 8);
    }
    const record::CapturedHead c{2, static_cast<uint16_t>(record::CaptureEncoding::String), 11};
    p.append(reinterpret_cast<const char*>(&c), sizeof c);
    p.append("hello world", 11).append(5, '\0');
    return p;
}

ApiCallView viewOf(const std::string& payload) {
    ApiCallView v;
    EXPECT_TRUE(record::decodeApiCall(payload, v));
    return v;
}

template <typename Memo>
bool found(Memo& memo, const std::string& payload, uint32_t count, std::string& out) {
    const std::string* line = memo.find(viewOf(payload), count);
    out = line != nullptr ? *line : std::string();
    return line != nullptr;
}

template <typename Memo>
void keep(Memo& memo, const std::string& payload, uint32_t count, const std::string& line) {
    std::string* kept = memo.keep(viewOf(payload), count);
    ASSERT_NE(kept, nullptr);
    *kept = line;
}

TEST(ApiLineMemo, ACallLikeTheKeptOneButForItsTimesHasItsLine) {
    ApiLineMemo memo;
    std::string out;
    EXPECT_FALSE(found(memo, payloadOf(100, 1), 1, out));
    keep(memo, payloadOf(100, 1), 1, "CL_SUCCESS = clCall ( 0x5000;7;\"hello world\" )");
    EXPECT_TRUE(found(memo, payloadOf(900, 2), 1, out));
    EXPECT_EQ(out, "CL_SUCCESS = clCall ( 0x5000;7;\"hello world\" )");
}

TEST(ApiLineMemo, AnyOtherByteSizeOrCountIsAnotherCall) {
    PayloadMemo<std::string, 0> memo;
    const std::string kept = payloadOf(100, 1);
    keep(memo, kept, 1, "kept");
    // Every byte but those of the end time (0-7) and the enqueue id (24-31), each of its values.
    for (size_t at = 8; at < kept.size(); ++at) {
        if (at >= 24 && at < 32) continue;
        for (int flip = 1; flip < 256; ++flip) {
            std::string other = kept;
            other[at] = static_cast<char>(other[at] ^ flip);
            ApiCallView v;
            if (!record::decodeApiCall(other, v)) continue;  // an argument count past the end
            ASSERT_EQ(memo.find(v, 1), nullptr) << "byte " << at << " ^ " << flip;
        }
    }
    std::string out;
    for (uint32_t count = 2; count < 100; ++count) {
        ASSERT_FALSE(found(memo, kept, count, out)) << count;
    }
    for (size_t extra = 1; extra < 64; ++extra) {
        ASSERT_FALSE(found(memo, kept + std::string(extra, '\0'), 1, out)) << extra;
    }
    EXPECT_TRUE(found(memo, kept, 1, out));
    EXPECT_EQ(out, "kept");
}

TEST(ApiLineMemo, ALaterCallTakesTheEntryOfAnEarlierOne) {
    ApiLineMemo memo;
    std::string out;
    for (uint64_t i = 0; i < 3000; ++i) {
        std::string p = payloadOf(100 + i, i);
        std::memcpy(&p[40], &i, 8);  // argument 1
        keep(memo, p, 1, "line " + std::to_string(i));
        ASSERT_TRUE(found(memo, p, 1, out)) << i;
        ASSERT_EQ(out, "line " + std::to_string(i));
    }
}

TEST(ApiLineMemo, APayloadShorterThanAHeadIsNeverKept) {
    ApiLineMemo memo;
    ApiCallView v;
    v.payload = std::string_view("short", 5);
    EXPECT_EQ(memo.keep(v, 1), nullptr);
    EXPECT_EQ(memo.find(v, 1), nullptr);
}

}  // namespace
}  // namespace perfmarker::atp
