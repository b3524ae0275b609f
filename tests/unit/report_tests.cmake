# The HTML report: timeline collection (nesting, queues, processes, the cap) and the page writer
# (escaping, embedded JSON, no network references, write errors); golden files of the page's
# content for the fixture traces (report_golden_test), written by the library and, where the
# tool is built, by `perfmarker report`.
find_package(nlohmann_json CONFIG REQUIRED)
perfmarker_add_gtest(report_timeline_test SOURCES report_timeline_test.cpp LIBS perfmarker::report)
perfmarker_add_gtest(report_html_test SOURCES report_html_test.cpp
  LIBS perfmarker::report nlohmann_json::nlohmann_json)
perfmarker_add_gtest(report_golden_test SOURCES report_golden_test.cpp
  LIBS perfmarker::report nlohmann_json::nlohmann_json)
if(TARGET perfmarker)
  target_compile_definitions(report_golden_test PRIVATE
    PERFMARKER_CLI_PATH="$<TARGET_FILE:perfmarker>")
  add_dependencies(report_golden_test perfmarker)
endif()
