# What `cmake --install` puts under its prefix, for compilers that embed prec:
#   bin/                    prec-opt, prec-run, prec-lsp-server
#   lib/                    the MLIRPrec* libraries, PrecCAPI, PrecRunner,
#                           PrecPlugin.so,
#                           the runtime (libprecrt.so, libprecrt.a, ...)
#   include/                prec/, prec-c/ (with the generated .inc files),
#                           precrt/
#   lib/cmake/prec/         PrecConfig.cmake: find_package(Prec CONFIG)
# MLIR itself is not installed: the package finds the MLIR it was built
# with.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PREC_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/prec)

# Installed binaries find prec's libraries next to them and MLIR's where the
# build found them (Debian's libMLIR.so is not on the loader's path).
set(PREC_INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
    "${LLVM_LIBRARY_DIR}")
foreach(target prec-opt prec-run prec-lsp-server PrecPlugin PrecCAPI
               PrecRunner)
  if(TARGET ${target})
    set_target_properties(${target} PROPERTIES
      INSTALL_RPATH "${PREC_INSTALL_RPATH}")
  endif()
endforeach()

foreach(tool prec-opt prec-run prec-lsp-server)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()
install(TARGETS PrecPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# add_mlir_library installs each library into MLIR's export set; the
# libraries find their headers through the installed include directory.
# Every library of the package, C++ and C (PrecCAPI); the runner joins them
# where the runtime is built.
set(PREC_CXX_LIBRARIES MLIRPrecDialect MLIRPrecUtils MLIRPrecGradients MLIRPrecTransforms
    MLIRPrecLowering MLIRPrecToLinalg MLIRPrecToRuntime MLIRPrecToGPU
    MLIRShardToPrec MLIRPrecContractionsToRuntime MLIRPrecPipelines)
foreach(library ${PREC_CXX_LIBRARIES} PrecCAPI)
  target_include_directories(${library} PUBLIC
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
# add_llvm_library put PrecCAPI in LLVM's export set: the package exports
# it with the others.
install(TARGETS PrecCAPI EXPORT MLIRTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The runner (built with the runtime) joins them; it links precrt, which the
# runtime's own export set holds.
if(TARGET PrecRunner)
  target_include_directories(PrecRunner PUBLIC
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(TARGETS PrecRunner EXPORT MLIRTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT MLIRTargets FILE PrecTargets.cmake
        DESTINATION ${PREC_INSTALL_CMAKE_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/prec
                  ${PROJECT_SOURCE_DIR}/include/prec-c
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/prec
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.inc"
        PATTERN "CMakeFiles" EXCLUDE)

if(TARGET precrt)
  set(PREC_HAS_RUNTIME ON)
  get_property(PRECRT_HAVE_MPI GLOBAL PROPERTY PRECRT_HAVE_MPI)
  get_property(PRECRT_MPI_C_LIBRARIES GLOBAL PROPERTY PRECRT_MPI_C_LIBRARIES)
else()
  set(PREC_HAS_RUNTIME OFF)
  set(PRECRT_HAVE_MPI OFF)
endif()
# Libraries built with sanitizers (LLVM_USE_SANITIZER) call their runtimes:
# a program that links them must link those too.
set(PREC_SANITIZER_LINK_OPTIONS)
if(LLVM_USE_SANITIZER MATCHES "Address")
  list(APPEND PREC_SANITIZER_LINK_OPTIONS -fsanitize=address)
endif()
if(LLVM_USE_SANITIZER MATCHES "Undefined")
  list(APPEND PREC_SANITIZER_LINK_OPTIONS -fsanitize=undefined)
endif()
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/PrecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/PrecConfig.cmake
  INSTALL_DESTINATION ${PREC_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/PrecConfigVersion.cmake
  VERSION ${LLVM_VERSION_MAJOR}.${LLVM_VERSION_MINOR}
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/PrecConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/PrecConfigVersion.cmake
        DESTINATION ${PREC_INSTALL_CMAKE_DIR})
