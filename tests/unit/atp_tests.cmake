perfmarker_add_gtest(atp_perfmarker_section_test
  SOURCES atp_perfmarker_section_test.cpp
  LIBS perfmarker::atp)

# The trace model: .atp header and writer, timestamp lines, reader, OpenCL builder, merge.
perfmarker_add_gtest(atp_writer_test SOURCES atp_writer_test.cpp LIBS perfmarker::atp_trace)
perfmarker_add_gtest(atp_reader_test SOURCES atp_reader_test.cpp LIBS perfmarker::atp_trace)
perfmarker_add_gtest(atp_ocl_trace_test SOURCES atp_ocl_trace_test.cpp LIBS perfmarker::atp_trace)
perfmarker_add_gtest(atp_merge_test SOURCES atp_merge_test.cpp LIBS perfmarker::atp_trace)
