// Copyright (c) 2026 The asio-wheel authors.
// Distributed under the Boost Software License, Version 1.0. (See the
// accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)

// See odr_canary_a.cpp: the same class name, another definition.
struct odr_canary
{
  long value;
  double other;
};

int canary_a(odr_canary* c);

int main()
{
  odr_canary c{1, 2.0};
  return canary_a(&c) + static_cast<int>(c.other);
}
