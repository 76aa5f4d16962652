# NOVA_STATIC_TOOLCHAIN=ON: the tools link MLIR's and LLVM's static archives
# (Debian ships them next to libMLIR.so and libLLVM.so) instead of the shared
# libraries, and libstdc++ and libgcc statically, so nova-compile, nova-run
# and nova-gpt2 run on a machine with glibc alone: no LLVM or MLIR package,
# no compiler. libcuda is dlopen'ed by the runtime (lib/Runtime/CudaDriver.cpp)
# and ptxas is run as a program, so neither is linked.
#
# Included by the top-level CMakeLists.txt after find_package(MLIR), before
# any target is defined. nova_add_library (NovaAddLibrary.cmake) links
# NovaStaticMLIR in place of the MLIR and LLVM dylib targets, and
# nova_add_static_toolchain_package() below adds the `nova-toolchain` target
# (stripped copies of the tools, checked and packed into a tarball).

if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
  message(FATAL_ERROR "NOVA_STATIC_TOOLCHAIN: Linux only")
endif()
if(CMAKE_VERSION VERSION_LESS 3.24)
  message(FATAL_ERROR "NOVA_STATIC_TOOLCHAIN needs CMake 3.24 or newer ($<LINK_GROUP>)")
endif()

# Every MLIR and LLVM archive, in one link group: the linker takes only the
# members something references (registerAllDialects and the NVVM target
# reach far), in whatever order they reference each other. Debian's
# MLIRTargets.cmake cannot give the order itself: its component targets
# name the LLVM dylib, not the LLVM components they use.
file(GLOB NOVA_STATIC_MLIR_ARCHIVES "${LLVM_LIBRARY_DIR}/libMLIR*.a")
file(GLOB NOVA_STATIC_LLVM_ARCHIVES "${LLVM_LIBRARY_DIR}/libLLVM*.a")
foreach(required libMLIRIR.a libMLIRNVVMTarget.a libLLVMSupport.a libLLVMNVPTXCodeGen.a)
  if(NOT EXISTS "${LLVM_LIBRARY_DIR}/${required}")
    message(FATAL_ERROR "NOVA_STATIC_TOOLCHAIN: no ${LLVM_LIBRARY_DIR}/${required} "
      "(Debian's libmlir-22-dev and llvm-22-dev ship the archives)")
  endif()
endforeach()
list(LENGTH NOVA_STATIC_MLIR_ARCHIVES mlir_count)
list(LENGTH NOVA_STATIC_LLVM_ARCHIVES llvm_count)
message(STATUS "NOVA_STATIC_TOOLCHAIN: ${mlir_count} MLIR and ${llvm_count} LLVM archives "
  "from ${LLVM_LIBRARY_DIR}")

# LLVMSupport's compression calls zlib and zstd: their archives are linked.
# `llvm-config --system-libs --link-static` also names rt, dl and m (glibc's),
# Z3 and libxml2. Nothing the tools use reaches Z3, libxml2, libedit, libffi
# or curl: were it to, the link would fail on undefined symbols rather than
# pick up a shared library.
find_library(NOVA_STATIC_ZLIB NAMES libz.a)
find_library(NOVA_STATIC_ZSTD NAMES libzstd.a)
if(NOT NOVA_STATIC_ZLIB OR NOT NOVA_STATIC_ZSTD)
  message(FATAL_ERROR "NOVA_STATIC_TOOLCHAIN: no libz.a or libzstd.a "
    "(apt-get install zlib1g-dev libzstd-dev; scripts/install-deps.sh does)")
endif()
find_package(Threads REQUIRED)

set(archives ${NOVA_STATIC_MLIR_ARCHIVES} ${NOVA_STATIC_LLVM_ARCHIVES})
list(JOIN archives "," archives)
add_library(NovaStaticMLIR INTERFACE)
target_link_libraries(NovaStaticMLIR INTERFACE
  "$<LINK_GROUP:RESCAN,${archives}>"
  ${NOVA_STATIC_ZSTD} ${NOVA_STATIC_ZLIB} Threads::Threads ${CMAKE_DL_LIBS} rt m)

# Every executable of this build: the C++ runtime inside, and the sections
# nothing references dropped (the archives are built with
# -ffunction-sections -fdata-sections).
add_link_options(-static-libstdc++ -static-libgcc LINKER:--gc-sections)
# No libraries to find at run time, so no RUNPATH in installed tools.
set(CMAKE_INSTALL_RPATH "")

# The tools that make up the toolchain.
set(NOVA_STATIC_TOOLS nova-compile nova-run nova-gpt2)

# `nova-toolchain`: stripped copies of the tools in
# <build>/nova-toolchain/bin, checked to need nothing outside glibc
# (NovaCheckSelfContained.cmake), and <build>/nova-toolchain.tar.xz holding
# that folder. Called at the end of the top-level CMakeLists.txt, once the
# tools are defined.
function(nova_add_static_toolchain_package)
  if(NOT CMAKE_STRIP OR NOT CMAKE_READELF)
    message(FATAL_ERROR "NOVA_STATIC_TOOLCHAIN: no strip or readelf found")
  endif()
  set(dir ${CMAKE_BINARY_DIR}/nova-toolchain)
  set(copies)
  foreach(tool ${NOVA_STATIC_TOOLS})
    list(APPEND copies COMMAND ${CMAKE_STRIP} --strip-all -o ${dir}/bin/${tool} $<TARGET_FILE:${tool}>)
  endforeach()
  # A command with an output, so the target packs again only when a tool
  # or the check changed.
  add_custom_command(OUTPUT ${dir}.tar.xz
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir} ${dir}.tar.xz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}/bin
    ${copies}
    COMMAND ${CMAKE_COMMAND} -DREADELF=${CMAKE_READELF} -DDIR=${dir}/bin
      -P ${NOVA_SOURCE_DIR}/cmake/NovaCheckSelfContained.cmake
    COMMAND ${CMAKE_COMMAND} -E tar cJf ${dir}.tar.xz "--mtime=1970-01-01 00:00:00 UTC" nova-toolchain
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
    DEPENDS ${NOVA_STATIC_TOOLS} ${NOVA_SOURCE_DIR}/cmake/NovaCheckSelfContained.cmake
    COMMENT "Packing the self-contained toolchain: ${dir}.tar.xz"
    VERBATIM)
  add_custom_target(nova-toolchain DEPENDS ${dir}.tar.xz)
endfunction()
