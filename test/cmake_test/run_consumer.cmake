# cmake -DMODE=find_package|add_subdirectory -DSOURCE_DIR=... -DWORK_DIR=...
#       -DGENERATOR=... -P run_consumer.cmake
# find_package: builds and installs asio_wheel into WORK_DIR/prefix, then
# builds the consumer against that prefix. add_subdirectory: builds the
# consumer with the source tree added as a subdirectory. Then runs it.

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(consumer ${SOURCE_DIR}/test/cmake_test/consumer)

if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/lib -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix
      -DASIO_WHEEL_BUILD_TESTS=OFF -DASIO_WHEEL_BUILD_EXAMPLES=OFF
      -DASIO_WHEEL_BUILD_BENCHMARKS=OFF)
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/lib)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/lib)
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer -G ${GENERATOR}
      -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCONSUMER_MODE=find_package)
else()
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer -G ${GENERATOR}
      -DCONSUMER_MODE=add_subdirectory -DASIO_WHEEL_SOURCE_DIR=${SOURCE_DIR})
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/consumer)
