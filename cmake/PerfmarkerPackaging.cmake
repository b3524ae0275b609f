# Binary packages of the install rules (cmake/PerfmarkerInstall.cmake), made with CPack from the
# build tree:
#
#   cd <build dir> && cpack -G DEB   # -> perfmarker_<version>_<arch>.deb, perfmarker-dev_<...>.deb
#
# Two packages, one per component group:
#   perfmarker      (runtime, docs)          the launcher, both agents, the shared marker
#                                            libraries, README.md and docs/*.md
#   perfmarker-dev  (development, samples)   headers, static libraries, namelinks, the CMake
#                                            package, the pkg-config files, the samples' sources;
#                                            depends on exactly the same version of perfmarker
# Files go under the packaging prefix (/usr) with the directories configured by GNUInstallDirs;
# the launcher's path to its agents is relative (bin -> lib/perfmarker), so it holds there too.
#
# Only top-level, non-sanitizer builds with the install rules are packaged: a sanitizer build's
# libraries need the sanitizer runtime loaded first, which no user of the package has.

if(NOT PERFMARKER_TOP_LEVEL OR NOT PERFMARKER_INSTALL)
  return()
endif()
if(NOT PERFMARKER_SANITIZE STREQUAL "")
  message(STATUS "PERFMARKER_SANITIZE=${PERFMARKER_SANITIZE}: no CPack packages for this build")
  return()
endif()

set(PERFMARKER_PACKAGE_CONTACT "perfmarker maintainers <maintainers@perfmarker.invalid>"
  CACHE STRING "Maintainer field of the binary packages")

set(CPACK_PACKAGE_NAME "perfmarker")
set(CPACK_PACKAGE_VENDOR "perfmarker")
set(CPACK_PACKAGE_CONTACT "${PERFMARKER_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)
if(NOT CPACK_GENERATOR)
  find_program(PERFMARKER_DPKG_DEB dpkg-deb DOC "dpkg-deb, to make the Debian packages")
  if(PERFMARKER_DPKG_DEB)
    set(CPACK_GENERATOR DEB)
  else()
    set(CPACK_GENERATOR TGZ)
  endif()
endif()
# `cpack --config CPackSourceConfig.cmake`: the sources only, without build trees.
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/\\\\.cache/")

# Components and their packages.
set(CPACK_COMPONENTS_ALL runtime docs development samples)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_ARCHIVE_COMPONENT_INSTALL ON)

# The Debian fields. Both packages are named by hand (DEB-DEFAULT file names:
# <name>_<version>_<arch>.deb); the dependencies on the C and C++ runtimes come from
# dpkg-shlibdeps where it is installed (dpkg-dev, with file), else they are written here.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME perfmarker)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME perfmarker-dev)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION devel)
# The description: CPack puts the project's one-line description first (the synopsis) and the
# package's text below it.
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "perfmarker traces OpenCL applications (and HSA ones,
with --hsa) into .atp traces: every API call, device times on the host clock, and the
application's CLPerfMarker / ActivityLogger markers. This package holds the perfmarker
command (trace, merge, summary, export, report), the OpenCL trace layer and the HSA tools
library it loads, the shared marker libraries libCLPerfMarker and libActivityLogger that
applications link, and the documentation.")
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION "Development files of the perfmarker marker
libraries: the headers CLPerfMarker.h and ActivityLogger.h, the static libraries, the CMake
package (find_package(perfmarker CONFIG)), the pkg-config files, and the sources of the
samples with a CMake project that builds them against the installed package.")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)

find_program(PERFMARKER_DPKG_SHLIBDEPS dpkg-shlibdeps DOC "dpkg-shlibdeps (dpkg-dev)")
find_program(PERFMARKER_FILE_COMMAND file DOC "file, which CPack's shlibdeps step needs")
# The tracing needs an ICD loader that reads OPENCL_LAYERS (ocl-icd 2.2.14 and later); it is
# loaded by the application, never linked by our files, so dpkg-shlibdeps cannot see it.
set(_perfmarker_runtime_depends "ocl-icd-libopencl1 (>= 2.2.14)")
if(PERFMARKER_DPKG_SHLIBDEPS AND PERFMARKER_FILE_COMMAND)
  set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
else()
  string(APPEND _perfmarker_runtime_depends
    ", libc6, libgcc-s1, libstdc++6, libpfm4, libdw1, libopen-trace-format2-10, libsqlite3-0")
endif()
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "${_perfmarker_runtime_depends}")
unset(_perfmarker_runtime_depends)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "opencl-icd")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "perfmarker (= ${CPACK_PACKAGE_VERSION})")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_RECOMMENDS "pkg-config")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SUGGESTS "cmake, ocl-icd-opencl-dev")

include(CPack)

cpack_add_component_group(runtime
  DISPLAY_NAME "perfmarker"
  DESCRIPTION "The perfmarker launcher and trace agents, and the marker libraries")
cpack_add_component_group(development
  DISPLAY_NAME "perfmarker-dev"
  DESCRIPTION "Headers, static libraries, CMake and pkg-config files of the marker libraries")

cpack_add_component(runtime GROUP runtime
  DISPLAY_NAME "Launcher, agents and shared libraries")
cpack_add_component(docs GROUP runtime DISPLAY_NAME "Documentation")
cpack_add_component(development GROUP development DEPENDS runtime
  DISPLAY_NAME "Development files")
cpack_add_component(samples GROUP development DEPENDS development
  DISPLAY_NAME "Samples' sources")
