# cmake -DMODE=find_package|add_subdirectory -DFLAVOUR=boost|standalone -DSOURCE_DIR=...
#       -DWORK_DIR=... -DGENERATOR=... [-DBOOST_ASIO_INCLUDE_DIR=...]
#       [-DSTANDALONE_ASIO_INCLUDE_DIR=...] [-DIO_URING=ON] -P run_consumer.cmake
# find_package: builds and installs asio_wheel (both flavours for FLAVOUR=standalone) into
# WORK_DIR/prefix, then builds the consumer against that prefix. add_subdirectory: builds
# the consumer with the source tree added as a subdirectory. Then runs it.

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(consumer ${SOURCE_DIR}/test/cmake_test/consumer)

# The same Asio as the build running this test.
set(asio_args -DASIO_WHEEL_IO_URING=${IO_URING})
if(BOOST_ASIO_INCLUDE_DIR)
  list(APPEND asio_args -DASIO_WHEEL_BOOST_ASIO_INCLUDE_DIR=${BOOST_ASIO_INCLUDE_DIR})
endif()
if(FLAVOUR STREQUAL "standalone")
  list(APPEND asio_args -DASIO_WHEEL_BUILD_STANDALONE=ON
    -DASIO_WHEEL_STANDALONE_ASIO_INCLUDE_DIR=${STANDALONE_ASIO_INCLUDE_DIR})
else()
  list(APPEND asio_args -DASIO_WHEEL_BUILD_STANDALONE=OFF)
endif()

if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/lib -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix
      -DASIO_WHEEL_BUILD_TESTS=OFF -DASIO_WHEEL_BUILD_EXAMPLES=OFF
      -DASIO_WHEEL_BUILD_BENCHMARKS=OFF ${asio_args})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/lib)
  run(${CMAKE_COMMAND} --install ${WORK_DIR}/lib)
  # The consumer gets no Asio setting: the installed package config finds it.
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer -G ${GENERATOR}
      -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCONSUMER_MODE=find_package
      -DCONSUMER_FLAVOUR=${FLAVOUR})
else()
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/consumer -G ${GENERATOR}
      -DCONSUMER_MODE=add_subdirectory -DCONSUMER_FLAVOUR=${FLAVOUR}
      -DASIO_WHEEL_SOURCE_DIR=${SOURCE_DIR} ${asio_args})
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/consumer)
