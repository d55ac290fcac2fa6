# What the `rocdsl` Python package installs (setup.py runs
# `cmake --install <build> --component python --prefix <staging>` and ships
# the staging tree): the extension, librocdsl.so, the emulated HIP runtime
# and the tools, all under rocdsl/, found from one another through
# $ORIGIN-relative run paths and from the system's LLVM/MLIR through its
# library directory. Installed files never point into the build tree.
set(ROCDSL_PACKAGE_TOOLS rocdsl-compile rocdsl-opt rocdsl-run rocdsl-isa-check
    rocdsl-emu)

set_target_properties(_rocdsl PROPERTIES INSTALL_RPATH "$ORIGIN/lib")
install(TARGETS _rocdsl LIBRARY DESTINATION rocdsl COMPONENT python)

set_target_properties(rocdsl rocdsl-hip-emu PROPERTIES
  INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
install(TARGETS rocdsl rocdsl-hip-emu LIBRARY DESTINATION rocdsl/lib
        COMPONENT python)

set_target_properties(${ROCDSL_PACKAGE_TOOLS} PROPERTIES
  INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
install(TARGETS ${ROCDSL_PACKAGE_TOOLS} RUNTIME DESTINATION rocdsl/bin
        COMPONENT python)

# rocdsl.torch compiles rocdsl/native/torch_ops.cpp (package data) against
# this header where PyTorch runs (rocdsl/torch_native.py).
install(FILES ${PROJECT_SOURCE_DIR}/include/rocdsl/API.h
        DESTINATION rocdsl/native/include/rocdsl COMPONENT python)

# The targets setup.py builds before installing them.
add_custom_target(rocdsl-python-install-deps
  DEPENDS _rocdsl rocdsl rocdsl-hip-emu ${ROCDSL_PACKAGE_TOOLS})
