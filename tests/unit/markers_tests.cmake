# Tests of the marker libraries: the marker core (state machine, hot path, output) and the public
# C APIs of libCLPerfMarker.so / libActivityLogger.so.

# The marker core, driven through MarkerCore instances with a fake environment.
perfmarker_add_gtest(markers_core_test
  SOURCES markers_core_test.cpp
  LIBS perfmarker_markers)

# A stand-in tracing agent (libCLTraceAgent.so) for amdtStopProfiling()/amdtResumeProfiling().
add_library(perfmarker_test_agent SHARED test_agent.c)
set_target_properties(perfmarker_test_agent PROPERTIES
  OUTPUT_NAME CLTraceAgent
  C_VISIBILITY_PRESET hidden)
target_link_options(perfmarker_test_agent PRIVATE "LINKER:-soname,libCLTraceAgent.so")
target_link_libraries(perfmarker_test_agent PRIVATE perfmarker_build_flags)

# The public C APIs through the real shared libraries (every scenario in a forked child).
perfmarker_add_gtest(markers_public_api_test
  SOURCES markers_public_api_test.cpp
  LIBS CLPerfMarker ActivityLogger perfmarker_record perfmarker_atp_format ${CMAKE_DL_LIBS})
target_compile_definitions(markers_public_api_test PRIVATE
  PERFMARKER_TEST_AGENT_PATH="$<TARGET_FILE:perfmarker_test_agent>")
add_dependencies(markers_public_api_test perfmarker_test_agent)
