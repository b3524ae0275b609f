# perfmarker_add_module(<name> SOURCES <files...> [DEPS <modules...>] [EXTERNAL <targets...>])
#
# One internal module of the product (docs/architecture.md): <name>_objects, an OBJECT library
# built once with position-independent code and hidden visibility (linked into the marker
# libraries and the agents, each of which gets its own copy), and <name>, a STATIC library of the
# same objects for the tools, tests and benchmarks, with the alias perfmarker::<short name>.
# DEPS names the modules it uses (their headers and, for the static library, their code);
# EXTERNAL names other targets it links.
function(perfmarker_add_module name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;DEPS;EXTERNAL")
  add_library(${name}_objects OBJECT ${arg_SOURCES})
  target_include_directories(${name}_objects PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>)
  target_link_libraries(${name}_objects PUBLIC perfmarker_build_flags ${arg_EXTERNAL})
  set(static_deps "")
  foreach(dep ${arg_DEPS})
    target_link_libraries(${name}_objects PUBLIC ${dep}_objects)
    list(APPEND static_deps ${dep})
  endforeach()
  set_target_properties(${name}_objects PROPERTIES
    POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  add_library(${name} STATIC $<TARGET_OBJECTS:${name}_objects>)
  target_link_libraries(${name} PUBLIC ${name}_objects ${static_deps})
  string(REGEX REPLACE "^perfmarker_" "" short ${name})
  add_library(perfmarker::${short} ALIAS ${name})
endfunction()
