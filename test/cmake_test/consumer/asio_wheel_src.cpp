// The separate-compilation consumers' one translation unit of asio-wheel's compiled part,
// built with ASIO_WHEEL_SEPARATE_COMPILATION like the rest of the program.
#include <asio_wheel/src.hpp>
