# cmake -DREADELF=<readelf> -DDIR=<folder> -P NovaCheckSelfContained.cmake
#
# Fails unless every file in DIR is a stripped executable whose only shared
# libraries (DT_NEEDED) are glibc's and which has no RPATH or RUNPATH: what
# the `nova-toolchain` target (NovaStaticToolchain.cmake) packs must run on
# a machine with nothing but glibc.
cmake_minimum_required(VERSION 3.20)
set(glibc libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1
  ld-linux-x86-64.so.2)

file(GLOB files "${DIR}/*")
if(NOT files)
  message(FATAL_ERROR "no files in ${DIR}")
endif()
set(bad "")
foreach(file ${files})
  get_filename_component(name ${file} NAME)
  execute_process(COMMAND ${READELF} --dynamic --section-headers --wide ${file}
    OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(APPEND bad "\n  ${name}: readelf failed")
    continue()
  endif()
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]+\\]" entries "${out}")
  foreach(entry ${entries})
    string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" lib "${entry}")
    if(NOT lib IN_LIST glibc)
      string(APPEND bad "\n  ${name}: needs ${lib}")
    endif()
  endforeach()
  if(out MATCHES "\\((RPATH|RUNPATH)\\)")
    string(APPEND bad "\n  ${name}: has an ${CMAKE_MATCH_1}")
  endif()
  if(out MATCHES "\\.symtab")
    string(APPEND bad "\n  ${name}: not stripped")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "not self-contained:${bad}")
endif()
list(LENGTH files count)
message(STATUS "${count} tools in ${DIR}: glibc only, stripped")
