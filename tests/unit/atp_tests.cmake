perfmarker_add_gtest(atp_perfmarker_section_test
  SOURCES atp_perfmarker_section_test.cpp
  LIBS perfmarker::atp)
