# Writes OUT with the SHA-256 of every compiler source file, rewriting it only
# when the hash changes. The runtime puts this build id in every cache key,
# so a cache filled by another build of ROCDSL is never served.
file(GLOB_RECURSE sources
  ${SRC}/dialects/*.td ${SRC}/dialects/*.cpp ${SRC}/dialects/*.h
  ${SRC}/include/*.h ${SRC}/include/*.td
  ${SRC}/lib/*.cpp ${SRC}/lib/*.h
  ${SRC}/kernels/*.cpp ${SRC}/kernels/*.h)
list(SORT sources)
set(all "")
foreach(f ${sources})
  file(SHA256 ${f} h)
  file(RELATIVE_PATH rel ${SRC} ${f})
  string(APPEND all "${rel}:${h}\n")
endforeach()
string(SHA256 id "${all}")
set(content "#define ROCDSL_BUILD_ID \"${id}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
