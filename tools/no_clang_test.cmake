# Test (tools/CMakeLists.txt, builds without Clang LibTooling only): every command that generates
# mutants exits 2 with one line on stderr saying this kaudit has no Clang, before any work; its
# --help still works. Run as: cmake -DKAUDIT_EXE=... -DCACHE=... -P no_clang_test.cmake
set(commands "mutate" "rules" "audit" "cover" "sweep --oracle kernelbench --tolerances 1e-3"
             "gpu-bundle --from x --out y" "diff kernelbench-v0.1 kernelbench")
foreach(command IN LISTS commands)
  separate_arguments(argv UNIX_COMMAND "${command}")
  execute_process(COMMAND ${KAUDIT_EXE} ${argv} --cache ${CACHE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${err}" err)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines extra_lines)
  if(NOT rc EQUAL 2 OR NOT extra_lines EQUAL 0 OR NOT err MATCHES "built without Clang LibTooling")
    message(FATAL_ERROR "kaudit ${command}: expected exit 2 and one line about Clang, got ${rc}:\n${err}")
  endif()
  message(STATUS "kaudit ${command}: ${err}")
endforeach()
execute_process(COMMAND ${KAUDIT_EXE} mutate --help RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "usage")
  message(FATAL_ERROR "kaudit mutate --help: expected its usage, got ${rc}:\n${out}${err}")
endif()
