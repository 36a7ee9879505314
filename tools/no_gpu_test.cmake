# Test (tools/CMakeLists.txt): on a machine without a GPU, every command given --backend cuda exits
# 2 with one line on stderr saying no GPU was found, before any work. Skipped (the test prints
# SKIPPED) where the NVIDIA driver's device nodes exist. Run as:
#   cmake -DKAUDIT_EXE=... -DCACHE=... -P no_gpu_test.cmake
if(EXISTS /dev/nvidiactl)
  message("SKIPPED: this machine has an NVIDIA driver; the GPU tests (label gpu) cover it")
  return()
endif()
set(commands "verify" "check" "audit" "cover" "sweep --oracle kernelbench --tolerances 1e-3"
             "diff kernelbench-v0.1 kernelbench")
foreach(command IN LISTS commands)
  separate_arguments(argv UNIX_COMMAND "${command}")
  execute_process(COMMAND ${KAUDIT_EXE} ${argv} --backend cuda --cache ${CACHE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${err}" err)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines extra_lines)
  if(NOT rc EQUAL 2 OR NOT extra_lines EQUAL 0 OR NOT err MATCHES "--backend cuda: no GPU found")
    message(FATAL_ERROR "kaudit ${command} --backend cuda: expected exit 2 and one line saying no GPU was found, "
                        "got ${rc}:\n${err}")
  endif()
  message(STATUS "kaudit ${command}: ${err}")
endforeach()
