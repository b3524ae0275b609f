# Install rules: the two public marker libraries with their package metadata (the CMake package,
# find_package(perfmarker CONFIG) -> perfmarker::CLPerfMarker, perfmarker::ActivityLogger and
# their *_static variants, and one pkg-config file per library), the `perfmarker` launcher, its
# two agents, the documentation and the samples' sources. The version has one source:
# project(VERSION).
#
# Components (cmake/PerfmarkerPackaging.cmake makes packages of them):
#   runtime      the launcher, both agents, the shared marker libraries
#   development  headers, static libraries, library namelinks, CMake package, pkg-config files
#   docs         README.md and docs/*.md
#   samples      the samples' sources and samples/standalone/CMakeLists.txt, which builds them
#                against the installed package

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
# CMAKE_INSTALL_PREFIX). DESTDIR is not part of CMAKE_INSTALL_PREFIX, as packaging wants. Each
# destination gets its own staging folder in the build tree, so that installs to several prefixes
# at once (the tests of tests/consume/, cpack) do not overwrite each other's file.
foreach(_perfmarker_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_perfmarker_dir}}")
    set(_perfmarker_pc_${_perfmarker_dir} "${CMAKE_INSTALL_${_perfmarker_dir}}")
  else()
    set(_perfmarker_pc_${_perfmarker_dir} "\${prefix}/${CMAKE_INSTALL_${_perfmarker_dir}}")
  endif()
endforeach()
if(IS_ABSOLUTE "${PERFMARKER_INSTALL_PKGCONFIGDIR}")
  set(_perfmarker_pc_dest "${PERFMARKER_INSTALL_PKGCONFIGDIR}")
else()
  set(_perfmarker_pc_dest "\${CMAKE_INSTALL_PREFIX}/${PERFMARKER_INSTALL_PKGCONFIGDIR}")
endif()
foreach(_perfmarker_pc perfmarker-clperfmarker perfmarker-activitylogger)
  # Bracket arguments keep the literal ${prefix} of the values out of the install script's
  # variable expansion; only CMAKE_INSTALL_PREFIX and DESTDIR are evaluated at install time.
  install(CODE "
    set(PERFMARKER_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(PERFMARKER_PC_LIBDIR [[${_perfmarker_pc_LIBDIR}]])
    set(PERFMARKER_PC_INCLUDEDIR [[${_perfmarker_pc_INCLUDEDIR}]])
    set(PROJECT_VERSION [[${PROJECT_VERSION}]])
    string(MD5 _perfmarker_pc_stage \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
    string(PREPEND _perfmarker_pc_stage [[${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/]])
    configure_file([[${CMAKE_CURRENT_LIST_DIR}/${_perfmarker_pc}.pc.in]]
                   \"\${_perfmarker_pc_stage}/${_perfmarker_pc}.pc\" @ONLY)
    file(INSTALL DESTINATION \"${_perfmarker_pc_dest}\" TYPE FILE
         FILES \"\${_perfmarker_pc_stage}/${_perfmarker_pc}.pc\")"
    COMPONENT development)
endforeach()
unset(_perfmarker_dir)
unset(_perfmarker_pc)
unset(_perfmarker_pc_dest)
unset(_perfmarker_pc_LIBDIR)
unset(_perfmarker_pc_INCLUDEDIR)

# The command-line tool and its agents. The launcher finds the agents relative to itself
# (src/cli/CMakeLists.txt: <bindir>/../<libdir>/perfmarker), so they are installed together, in
# one component. The agents are plug-ins loaded by the ICD loader (OPENCL_LAYERS) and by the HSA
# runtime (HSA_TOOLS_LIB), not libraries to link against: installed as modules, without namelink
# or package target (docs/cli.md, "Where the agent is found").
set(PERFMARKER_INSTALLED_TARGETS
  CLPerfMarker CLPerfMarker_static ActivityLogger ActivityLogger_static)
if(TARGET perfmarker)
  install(TARGETS perfmarker RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT runtime)
  list(APPEND PERFMARKER_INSTALLED_TARGETS perfmarker)
endif()
foreach(_perfmarker_agent CLTraceAgent HSATraceAgent CLProfileAgent)
  if(TARGET ${_perfmarker_agent})
    install(TARGETS ${_perfmarker_agent}
      LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}/perfmarker" COMPONENT runtime NAMELINK_SKIP)
    list(APPEND PERFMARKER_INSTALLED_TARGETS ${_perfmarker_agent})
  endif()
endforeach()
unset(_perfmarker_agent)

# The documentation, and the samples' sources with the CMake project that builds them against the
# installed package (`cmake -S <docdir>/samples/standalone`; it reads its sources from `..`).
install(FILES "${PROJECT_SOURCE_DIR}/README.md"
  DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT docs)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
  COMPONENT docs FILES_MATCHING PATTERN "*.md")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/samples/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/samples"
  COMPONENT samples FILES_MATCHING PATTERN "*.c" PATTERN "*.cpp" PATTERN "*.h"
  PATTERN "standalone" EXCLUDE)
install(FILES "${PROJECT_SOURCE_DIR}/samples/standalone/CMakeLists.txt"
  DESTINATION "${CMAKE_INSTALL_DOCDIR}/samples/standalone" COMPONENT samples)
