# nova_add_library(name SOURCES... [DEPENDS targets...] [LINK_LIBS libs...])
#
# A static, position-independent library that links the shared libMLIR.so
# (the one Debian's mlir-opt uses), so the same objects can go into nova-opt
# and into the nova-plugin module without duplicating MLIR's global state.
# Every library is exported in the Nova package as Nova::<name>.
# With NOVA_STATIC_TOOLCHAIN, MLIR and LLVM come from their static archives
# instead (NovaStaticMLIR, NovaStaticToolchain.cmake): the MLIR and LLVM
# components named in LINK_LIBS are members of that link group.
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
  if(NOVA_STATIC_TOOLCHAIN)
    list(FILTER ARG_LINK_LIBS EXCLUDE REGEX "^(MLIR|LLVM)")
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} NovaStaticMLIR)
  else()
    target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  endif()
  set_property(GLOBAL APPEND PROPERTY NOVA_EXPORTED_LIBS ${name})
endfunction()
