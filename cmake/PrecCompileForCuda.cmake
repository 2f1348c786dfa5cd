# prec_compile_for_cuda(<input.mlir> <object-variable>)
#
# Compiles a prec module ahead of time for NVIDIA GPUs into an object file
# whose entry points have C interfaces: prec-opt --prec-lower-to-cuda,
# mlir-translate --mlir-to-llvmir, llc -filetype=obj. The object links with
# libprecrt_nompi.a into a program that needs only the C and C++ libraries
# (the runtime loads the CUDA driver and NCCL). Kernels are a fatbin where
# ptxas is found, PTX for the driver to compile otherwise.
# PREC_CAN_COMPILE_FOR_CUDA says whether the tools are there.

find_program(PREC_MLIR_TRANSLATE mlir-translate
  HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(PREC_LLC llc HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
find_program(PREC_PTXAS ptxas HINTS /usr/local/cuda/bin)
if(PREC_MLIR_TRANSLATE AND PREC_LLC)
  set(PREC_CAN_COMPILE_FOR_CUDA ON)
else()
  set(PREC_CAN_COMPILE_FOR_CUDA OFF)
  message(STATUS "prec: no mlir-translate or llc in ${LLVM_TOOLS_BINARY_DIR}; "
                 "no programs compiled ahead of time for CUDA")
endif()
if(PREC_PTXAS)
  set(PREC_CUDA_KERNEL_FORMAT fatbin)
else()
  set(PREC_CUDA_KERNEL_FORMAT isa)
endif()

function(prec_compile_for_cuda input object_variable)
  get_filename_component(name ${input} NAME_WE)
  set(lowered ${CMAKE_CURRENT_BINARY_DIR}/${name}.lowered.mlir)
  set(llvm_ir ${CMAKE_CURRENT_BINARY_DIR}/${name}.ll)
  set(object ${CMAKE_CURRENT_BINARY_DIR}/${name}.o)
  add_custom_command(OUTPUT ${lowered}
    COMMAND $<TARGET_FILE:prec-opt> ${input}
            "--prec-lower-to-cuda=format=${PREC_CUDA_KERNEL_FORMAT}"
            -o ${lowered}
    DEPENDS prec-opt ${input}
    COMMENT "Lowering ${name} for CUDA (${PREC_CUDA_KERNEL_FORMAT})"
    VERBATIM)
  add_custom_command(OUTPUT ${llvm_ir}
    COMMAND ${PREC_MLIR_TRANSLATE} --mlir-to-llvmir ${lowered} -o ${llvm_ir}
    DEPENDS ${lowered}
    COMMENT "Translating ${name} to LLVM IR"
    VERBATIM)
  add_custom_command(OUTPUT ${object}
    COMMAND ${PREC_LLC} -O3 -filetype=obj -relocation-model=pic ${llvm_ir}
            -o ${object}
    DEPENDS ${llvm_ir}
    COMMENT "Compiling ${name} to an object file"
    VERBATIM)
  set_source_files_properties(${object} PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set(${object_variable} ${object} PARENT_SCOPE)
endfunction()
