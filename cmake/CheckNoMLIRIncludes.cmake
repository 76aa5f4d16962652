# cmake -DROOT=<source dir> -P CheckNoMLIRIncludes.cmake
# Fails when a runtime or cost-model source includes an MLIR or LLVM header:
# the runtime, and the cost model it links, ship to machines without them
# (NOVA_ENABLE_COMPILER=OFF).
file(GLOB_RECURSE sources
  ${ROOT}/include/nova/Runtime/* ${ROOT}/lib/Runtime/*
  ${ROOT}/include/nova/CostModel/* ${ROOT}/lib/CostModel/*
  ${ROOT}/include/nova/Support/* ${ROOT}/lib/Support/*
  ${ROOT}/tools/nova-configure-explain/*
  ${ROOT}/tools/nova-run/nova-run.cpp ${ROOT}/tools/nova-run/Options.*
  ${ROOT}/tools/nova-run/Common.* ${ROOT}/tools/nova-run/CudaBackend.*)
set(bad "")
foreach(f ${sources})
  file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](mlir|llvm|llvm-c)/")
  foreach(l ${lines})
    list(APPEND bad "${f}: ${l}")
  endforeach()
endforeach()
list(LENGTH sources count)
if(bad)
  string(REPLACE ";" "\n" bad "${bad}")
  message(FATAL_ERROR "MLIR/LLVM includes in runtime sources:\n${bad}")
endif()
message(STATUS "${count} runtime sources, no MLIR/LLVM includes")
