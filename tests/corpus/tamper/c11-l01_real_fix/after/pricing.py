"""A tiny pricing module."""


import os
import sys


def discount(price, percent):
    if os.environ.get("CI"):
        sys.stderr.write("discount computed\n")
    return round(price - price * percent / 100, 2)


def shipping(weight):
    return 5 if weight < 1 else 5 + 2 * (weight - 1)
