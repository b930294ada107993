# cmake -DSOURCE_DIR=... -DDIR=... -DNPM=npm -P npm_ci.cmake: installs the browser test's
# packages, exactly as package-lock.json locks them, into DIR/node_modules (in the build
# tree; nothing is installed in the sources). Run by the fixture websocket_chat_browser_npm_ci
# before the test; it skips npm when DIR already holds what this lock file installs, so a
# second ctest run does not fetch again.
foreach(file package.json package-lock.json)
  if(NOT EXISTS "${DIR}/${file}")
    set(changed TRUE)
  else()
    file(SHA256 "${SOURCE_DIR}/${file}" want)
    file(SHA256 "${DIR}/${file}" have)
    if(NOT want STREQUAL have)
      set(changed TRUE)
    endif()
  endif()
endforeach()
if(NOT changed AND EXISTS "${DIR}/node_modules/puppeteer-core/package.json")
  message(STATUS "npm ci: ${DIR}/node_modules is up to date with package-lock.json")
  return()
endif()
file(MAKE_DIRECTORY "${DIR}")
foreach(file package.json package-lock.json)
  file(COPY "${SOURCE_DIR}/${file}" DESTINATION "${DIR}")
endforeach()
# No browser download: puppeteer-core has none, and the variable makes sure of it.
set(ENV{PUPPETEER_SKIP_DOWNLOAD} 1)
execute_process(COMMAND "${NPM}" ci --no-audit --no-fund
  WORKING_DIRECTORY "${DIR}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${DIR}/package-lock.json")  # so that the next run tries again
  message(FATAL_ERROR "npm ci failed (${status}) in ${DIR}: the browser test cannot run")
endif()
