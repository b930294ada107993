// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// odr_canary_a.cpp and odr_canary_b.cpp define one class name two ways, as two flavours
// sharing a namespace would. Linked with both_flavours_test's flags, GCC's link-time ODR
// checker must reject them: the test odr_checker_canary proves that the checker guarding
// both_flavours_test is really running.
struct odr_canary
{
  int value;
};

int canary_a(odr_canary* c)
{
  return c->value;
}
