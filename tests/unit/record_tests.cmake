# Tests of the recorder (src/record): session contract, clock, recorder and fragments.
perfmarker_add_gtest(record_session_test SOURCES record_session_test.cpp LIBS perfmarker_record)
perfmarker_add_gtest(record_clock_test SOURCES record_clock_test.cpp LIBS perfmarker_record)
perfmarker_add_gtest(record_recorder_test SOURCES record_recorder_test.cpp LIBS perfmarker_record)
