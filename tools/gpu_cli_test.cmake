# Test (tools/CMakeLists.txt, label gpu): on a GPU, `verify` and `check` with --backend cuda at a
# native preset, end to end through the CLI: two corpus kernels pass the gate at kernelbench-v0
# (KernelBench v0's sizes) and the kernelbench and gym-v9 specs accept relu_float4 there (a false
# kill of a correct kernel would be a finding against kaudit's GPU path, not the kernel). Skipped
# (the test prints SKIPPED) where there is no NVIDIA driver. Run as:
#   cmake -DKAUDIT_EXE=... -DCACHE=... -P gpu_cli_test.cmake
if(NOT EXISTS /dev/nvidiactl)
  message("SKIPPED: no NVIDIA driver on this machine (backend_cuda_without_gpu_fails_in_one_line covers it)")
  return()
endif()

function(run_json out_var)
  execute_process(COMMAND ${KAUDIT_EXE} ${ARGN} --backend cuda --preset kernelbench-v0 --cache ${CACHE} --json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kaudit ${ARGN} --backend cuda exited ${rc}:\n${err}\n${out}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

run_json(verify verify --kernel relu/relu_float4 --kernel softmax/softmax_block_smem)
string(JSON backend GET "${verify}" backend)
string(JSON preset GET "${verify}" preset)
string(JSON passed GET "${verify}" passed)
if(NOT backend STREQUAL "cuda" OR NOT preset STREQUAL "kernelbench-v0" OR NOT passed EQUAL 2)
  message(FATAL_ERROR "verify --backend cuda --preset kernelbench-v0: expected 2 kernels passed on cuda, got:\n${verify}")
endif()

run_json(check check --kernel relu/relu_float4 --oracle kernelbench --oracle gym-v9)
string(JSON backend GET "${check}" backend)
string(JSON kb GET "${check}" false_kills kernelbench)
string(JSON gym GET "${check}" false_kills gym-v9)
string(JSON cell GET "${check}" results 0 oracles kernelbench)
if(NOT backend STREQUAL "cuda" OR NOT kb EQUAL 0 OR NOT gym EQUAL 0 OR NOT cell STREQUAL "accept")
  message(FATAL_ERROR "check --backend cuda --preset kernelbench-v0: expected relu_float4 accepted on cuda, got:\n${check}")
endif()
message(STATUS "verify and check on the GPU at kernelbench-v0: ok")
