# nova_add_library(name SOURCES... [DEPENDS targets...] [LINK_LIBS libs...])
#
# A static, position-independent library that links the shared libMLIR.so
# (the one Debian's mlir-opt uses), so the same objects can go into nova-opt
# and into the nova-plugin module without duplicating MLIR's global state.
# Every library is exported in the Nova package as Nova::<name>.
function(nova_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${NOVA_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${NOVA_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  # Consumers of the installed package compile against the same MLIR headers.
  target_include_directories(${name} SYSTEM PUBLIC ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  set_property(GLOBAL APPEND PROPERTY NOVA_EXPORTED_LIBS ${name})
endfunction()
