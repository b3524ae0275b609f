# The trace model: .atp header and writer, timestamp lines, reader, OpenCL builder, merge.
perfmarker_add_gtest(atp_writer_test SOURCES atp_writer_test.cpp LIBS perfmarker::atp_merge perfmarker::atp_read)
perfmarker_add_gtest(atp_ocl_trace_test SOURCES atp_ocl_trace_test.cpp LIBS perfmarker::atp_merge perfmarker::atp_read)
perfmarker_add_gtest(atp_merge_test SOURCES atp_merge_test.cpp LIBS perfmarker::atp_merge perfmarker::atp_read)
