//
// asio_wheel.hpp
//
// Everything of asio-wheel: wheel_options, wheel_stats, wheel_timer_service,
// basic_wheel_timer and wheel_timer.
//

#ifndef ASIO_WHEEL_HPP
#define ASIO_WHEEL_HPP

#include <asio_wheel/wheel_options.hpp>
#include <asio_wheel/wheel_timer_service.hpp>
#include <asio_wheel/wheel_timer.hpp>

#endif // ASIO_WHEEL_HPP
