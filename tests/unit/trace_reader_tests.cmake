# The streaming .atp reader (src/atp/read/trace_parser.h): parts, listeners, fixtures, bad input.
perfmarker_add_gtest(trace_parser_test
  SOURCES trace_parser_test.cpp trace_parser_errors_test.cpp trace_parser_scan_test.cpp
          trace_parser_ahead_test.cpp
  LIBS perfmarker::atp_merge perfmarker::atp_read)
