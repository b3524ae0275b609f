// Which sanitizer a test is built with, told the same way under GCC (__SANITIZE_ADDRESS__,
// __SANITIZE_THREAD__) and Clang (__has_feature): PERFMARKER_TEST_ASAN, PERFMARKER_TEST_TSAN and
// PERFMARKER_TEST_SANITIZED are 1 or 0, for #if and for constexpr alike.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define PERFMARKER_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PERFMARKER_TEST_ASAN 1
#endif
#endif
#ifndef PERFMARKER_TEST_ASAN
#define PERFMARKER_TEST_ASAN 0
#endif

#if defined(__SANITIZE_THREAD__)
#define PERFMARKER_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PERFMARKER_TEST_TSAN 1
#endif
#endif
#ifndef PERFMARKER_TEST_TSAN
#define PERFMARKER_TEST_TSAN 0
#endif

#define PERFMARKER_TEST_SANITIZED (PERFMARKER_TEST_ASAN || PERFMARKER_TEST_TSAN)
