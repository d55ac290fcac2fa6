# Thin wrappers so every ROCDSL library and tool is declared the same way.
#
# Development builds link against Debian's shared libMLIR/libLLVM: one copy of
# every upstream dialect and registry per process, and fast links on small
# machines. ROCDSL_STATIC_LLVM=ON links the static archives instead
# (StaticLLVM.cmake).
option(ROCDSL_STATIC_LLVM
       "Link LLVM/MLIR statically: self-contained tools and librocdsl" OFF)
if(ROCDSL_STATIC_LLVM)
  include(StaticLLVM)
  set(ROCDSL_MLIR_LINK_LIBS ROCDSLStaticLLVM)
  set(ROCDSL_FINAL_LINK_LIBS ROCDSLStaticLLVM)
else()
  set(ROCDSL_MLIR_LINK_LIBS MLIR LLVM)
  set(ROCDSL_FINAL_LINK_LIBS MLIR LLVM)
endif()

# add_rocdsl_library(name sources... [DEPENDS targets...] [LINK_LIBS libs...])
function(add_rocdsl_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PUBLIC
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} ${ROCDSL_MLIR_LINK_LIBS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  llvm_update_compile_flags(${name})
endfunction()

# add_rocdsl_tool(name sources... [LINK_LIBS libs...])
function(add_rocdsl_tool name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  llvm_update_compile_flags(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} ${ROCDSL_FINAL_LINK_LIBS})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endfunction()
