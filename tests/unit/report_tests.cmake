# The HTML report: timeline collection (nesting, queues, processes, the cap) and the page writer
# (escaping, embedded JSON, no network references, write errors).
find_package(nlohmann_json CONFIG REQUIRED)
perfmarker_add_gtest(report_timeline_test SOURCES report_timeline_test.cpp LIBS perfmarker::report)
perfmarker_add_gtest(report_html_test SOURCES report_html_test.cpp
  LIBS perfmarker::report nlohmann_json::nlohmann_json)
