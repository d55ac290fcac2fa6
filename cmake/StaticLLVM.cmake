# ROCDSL_STATIC_LLVM: link LLVM and MLIR from their static archives, so the
# tools and librocdsl run on machines that have no LLVM (ldd shows only
# system libraries).
#
# Debian's imported MLIR targets name the shared `LLVM` library in their link
# interface, so they cannot be used for a static link. Instead every MLIR
# and LLVM archive goes into one linker group (ROCDSLStaticLLVM), which every
# ROCDSL library depends on, so it lands after all of them on a link line:
# the linker takes only the archive members something references, and
# --gc-sections drops unused functions inside them.
file(GLOB ROCDSL_MLIR_ARCHIVES "${LLVM_LIBRARY_DIR}/libMLIR*.a")
# Test and C-API archives are never referenced by ROCDSL.
list(FILTER ROCDSL_MLIR_ARCHIVES EXCLUDE REGEX "/libMLIR(Test|CAPI)[^/]*\\.a$")
file(GLOB ROCDSL_LLVM_ARCHIVES "${LLVM_LIBRARY_DIR}/libLLVM*.a")
# LLVMSupport compresses with zstd; take it static too (libzstd-dev).
find_library(ROCDSL_ZSTD_ARCHIVE NAMES libzstd.a REQUIRED)

list(JOIN ROCDSL_MLIR_ARCHIVES "," mlir_archives)
list(JOIN ROCDSL_LLVM_ARCHIVES "," llvm_archives)
add_library(ROCDSLStaticLLVM INTERFACE)
target_link_libraries(ROCDSLStaticLLVM INTERFACE
  "$<LINK_GROUP:RESCAN,${mlir_archives},${llvm_archives}>"
  ${ROCDSL_ZSTD_ARCHIVE} z pthread dl m rt)

# Let the linker drop what the archives bring but nothing calls.
add_compile_options(-ffunction-sections -fdata-sections)
add_link_options(-Wl,--gc-sections -Wl,-O1)
