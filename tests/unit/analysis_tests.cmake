# The summary pages, rules and renderers (src/analysis), fed with typed records; and the same
# through the real reader against golden files (analysis_golden_test).
find_package(nlohmann_json CONFIG REQUIRED)
perfmarker_add_gtest(analysis_test
  SOURCES analysis_format_test.cpp analysis_pages_test.cpp analysis_markers_test.cpp
          analysis_rules_test.cpp
  LIBS perfmarker::analysis nlohmann_json::nlohmann_json)
perfmarker_add_gtest(analysis_golden_test
  SOURCES analysis_golden_test.cpp
  LIBS perfmarker::analysis perfmarker::atp_merge perfmarker::atp_read)
