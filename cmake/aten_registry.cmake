# The aten operator registry, generated at build time: a small C++ tool
# linked with libtorch lists every registered operator schema into
# aten_registry.c, which goes into mtrial_python (python/opmap.c reads it).
# `mtrial scan` then knows the operators of the libtorch it was built with
# and never loads libtorch.
#
# Included from the top CMakeLists.txt right after mtrial_python is defined.
# The generator is a build tool: it is never built with the sanitizers
# (mt_target_flags is not applied), so an ASan build still runs it as is.

add_executable(mtrial_gen_aten_registry ${CMAKE_SOURCE_DIR}/tools/gen_aten_registry.cc)
target_link_libraries(mtrial_gen_aten_registry PRIVATE ${TORCH_LIBRARIES})

# libtorch's generated header that declares one at::Tensor member per method
# variant: it tells which operators are also torch.Tensor methods. Without
# it the generator falls back to "first argument is Tensor self".
find_file(MT_TENSORBODY_H ATen/core/TensorBody.h PATHS ${TORCH_INCLUDE_DIRS}
  NO_DEFAULT_PATH NO_CACHE)
set(MT_ATEN_REGISTRY_ARGS ${CMAKE_BINARY_DIR}/aten_registry.c)
if(MT_TENSORBODY_H)
  list(APPEND MT_ATEN_REGISTRY_ARGS ${MT_TENSORBODY_H})
else()
  message(WARNING "ATen/core/TensorBody.h not found under ${TORCH_INCLUDE_DIRS}: "
    "tensor methods are guessed from schemas whose first argument is Tensor self")
endif()

# One OpenMP/intra-op thread: the generator only reads the registry, and a
# build machine need not start a thread pool per core for that.
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/aten_registry.c
  COMMAND ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
          $<TARGET_FILE:mtrial_gen_aten_registry> ${MT_ATEN_REGISTRY_ARGS}
  DEPENDS mtrial_gen_aten_registry ${MT_TENSORBODY_H}
  COMMENT "Listing libtorch's operator registry into aten_registry.c"
  VERBATIM)
target_sources(mtrial_python PRIVATE ${CMAKE_BINARY_DIR}/aten_registry.c)
