# Installs headers (hand-written and TableGen-generated), libraries, tools and
# a CMake package so another MLIR compiler can `find_package(Nova)`.
include(CMakePackageConfigHelpers)
if(NOVA_STATIC_TOOLCHAIN)
  # The self-contained tools only (nova-compile, nova-run and
  # nova-configure-explain install from their folders): no libraries,
  # headers or CMake package.
  install(TARGETS nova-gpt2 RUNTIME DESTINATION bin)
  return()
endif()
set(NOVA_INSTALL_CMAKE_DIR lib/cmake/nova)

get_property(nova_libs GLOBAL PROPERTY NOVA_EXPORTED_LIBS)
install(TARGETS ${nova_libs} EXPORT NovaTargets
  ARCHIVE DESTINATION lib
  LIBRARY DESTINATION lib
  INCLUDES DESTINATION include)
if(TARGET nova-opt)
  install(TARGETS nova-opt nova-gpt2 RUNTIME DESTINATION bin)
  install(TARGETS nova-plugin nova-tile-plugin nova-mem-plugin LIBRARY DESTINATION lib)
endif()
install(DIRECTORY ${NOVA_SOURCE_DIR}/include/nova DESTINATION include
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${NOVA_BINARY_DIR}/include/nova DESTINATION include
  FILES_MATCHING PATTERN "*.inc")
install(EXPORT NovaTargets NAMESPACE Nova:: DESTINATION ${NOVA_INSTALL_CMAKE_DIR})

configure_package_config_file(${NOVA_SOURCE_DIR}/cmake/NovaConfig.cmake.in
  ${NOVA_BINARY_DIR}/NovaConfig.cmake
  INSTALL_DESTINATION ${NOVA_INSTALL_CMAKE_DIR}
)
write_basic_package_version_file(${NOVA_BINARY_DIR}/NovaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${NOVA_BINARY_DIR}/NovaConfig.cmake ${NOVA_BINARY_DIR}/NovaConfigVersion.cmake
  DESTINATION ${NOVA_INSTALL_CMAKE_DIR})
