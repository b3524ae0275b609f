# The OpenCL parts of the .atp format module: the API catalogue and the API-trace formatter.
perfmarker_add_gtest(atp_ocl_format_test
  SOURCES atp_ocl_format_test.cpp
  LIBS perfmarker::atp_merge perfmarker::atp_read)

# The generated constant names are up to date with the OpenCL headers the build uses.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND AND PERFMARKER_OPENCL_INCLUDE_DIR)
  add_test(NAME ocl_names_up_to_date
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/gen_cl_names.py
            ${PERFMARKER_OPENCL_INCLUDE_DIR} --check)
  set_tests_properties(ocl_names_up_to_date PROPERTIES LABELS unit)
endif()
