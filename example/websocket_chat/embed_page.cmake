# cmake -DINPUT=chat.html -DOUTPUT=chat_page.hpp -P embed_page.cmake: writes the page as a
# C++ array, so the server serves it from memory and needs no file at run time. Bytes, not a
# raw string literal: nothing in the page can end the literal early.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
# Lines of 16 bytes, for a readable diff of the generated file.
string(REGEX REPLACE "(('[^']+',){16})" "\\1\n  " bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by embed_page.cmake; do not edit.\n"
  "#pragma once\n#include <cstddef>\n"
  "namespace websocket_chat {\n"
  "inline constexpr char embedded_chat_page[] = {\n  ${bytes}'\\0'};\n"
  "inline constexpr std::size_t embedded_chat_page_size = ${size};\n"
  "}  // namespace websocket_chat\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
