# Install rules and package metadata for the two public marker libraries: the CMake package
# (find_package(perfmarker CONFIG) -> perfmarker::CLPerfMarker, perfmarker::ActivityLogger and
# their *_static variants) and one pkg-config file per library. The version has one source:
# project(VERSION).

option(PERFMARKER_INSTALL "Generate the install rules" ON)
if(NOT PERFMARKER_INSTALL)
  return()
endif()

set(PERFMARKER_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/perfmarker")
set(PERFMARKER_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

install(TARGETS CLPerfMarker CLPerfMarker_static ActivityLogger ActivityLogger_static
  EXPORT perfmarkerTargets
  RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT runtime
          NAMELINK_COMPONENT development
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development
  PUBLIC_HEADER DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT development)

install(EXPORT perfmarkerTargets
  NAMESPACE perfmarker::
  FILE perfmarkerTargets.cmake
  DESTINATION "${PERFMARKER_INSTALL_CMAKEDIR}"
  COMPONENT development)

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/perfmarkerConfig.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/perfmarkerConfig.cmake"
  INSTALL_DESTINATION "${PERFMARKER_INSTALL_CMAKEDIR}")
write_basic_package_version_file(
  "${CMAKE_CURRENT_BINARY_DIR}/perfmarkerConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${CMAKE_CURRENT_BINARY_DIR}/perfmarkerConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/perfmarkerConfigVersion.cmake"
  DESTINATION "${PERFMARKER_INSTALL_CMAKEDIR}"
  COMPONENT development)

# The .pc files are configured at install time, not at configure time, so that they name the
# prefix actually installed to (`cmake --install <dir> --prefix <p>` overrides the configured
# CMAKE_INSTALL_PREFIX). DESTDIR is not part of CMAKE_INSTALL_PREFIX, as packaging wants.
foreach(_perfmarker_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_perfmarker_dir}}")
    set(_perfmarker_pc_${_perfmarker_dir} "${CMAKE_INSTALL_${_perfmarker_dir}}")
  else()
    set(_perfmarker_pc_${_perfmarker_dir} "\${prefix}/${CMAKE_INSTALL_${_perfmarker_dir}}")
  endif()
endforeach()
foreach(_perfmarker_pc perfmarker-clperfmarker perfmarker-activitylogger)
  set(_perfmarker_pc_out "${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/${_perfmarker_pc}.pc")
  # Bracket arguments keep the literal ${prefix} of the values out of the install script's
  # variable expansion; only CMAKE_INSTALL_PREFIX is evaluated at install time.
  install(CODE "
    set(PERFMARKER_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(PERFMARKER_PC_LIBDIR [[${_perfmarker_pc_LIBDIR}]])
    set(PERFMARKER_PC_INCLUDEDIR [[${_perfmarker_pc_INCLUDEDIR}]])
    set(PROJECT_VERSION [[${PROJECT_VERSION}]])
    configure_file([[${CMAKE_CURRENT_LIST_DIR}/${_perfmarker_pc}.pc.in]]
                   [[${_perfmarker_pc_out}]] @ONLY)"
    COMPONENT development)
  install(FILES "${_perfmarker_pc_out}"
    DESTINATION "${PERFMARKER_INSTALL_PKGCONFIGDIR}"
    COMPONENT development)
endforeach()
unset(_perfmarker_dir)
unset(_perfmarker_pc)
unset(_perfmarker_pc_out)
unset(_perfmarker_pc_LIBDIR)
unset(_perfmarker_pc_INCLUDEDIR)

# The command-line tool. It finds the agent relative to itself (src/cli/CMakeLists.txt:
# <bindir>/../<libdir>/perfmarker), so the two are installed together.
if(TARGET perfmarker)
  install(TARGETS perfmarker RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime)
endif()

# The OpenCL tracing layer is a plug-in loaded by the ICD loader (OPENCL_LAYERS), not a library
# to link against: installed as a module without namelink or package target.
if(TARGET CLTraceAgent)
  install(TARGETS CLTraceAgent
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}/perfmarker" COMPONENT runtime)
endif()
