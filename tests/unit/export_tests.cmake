# The exporters (src/export): shared writers, Perfetto JSON, VTune and flat CSV, and golden
# outputs of fixture traces through the real reader.
find_package(nlohmann_json REQUIRED)
perfmarker_add_gtest(export_writers_test SOURCES export_writers_test.cpp
  LIBS perfmarker::export nlohmann_json::nlohmann_json)
perfmarker_add_gtest(export_perfetto_test SOURCES export_perfetto_test.cpp
  LIBS perfmarker::export nlohmann_json::nlohmann_json)
perfmarker_add_gtest(export_vtune_csv_test SOURCES export_vtune_csv_test.cpp
  LIBS perfmarker::export nlohmann_json::nlohmann_json)
perfmarker_add_gtest(export_golden_test SOURCES export_golden_test.cpp
  LIBS perfmarker::export nlohmann_json::nlohmann_json)
