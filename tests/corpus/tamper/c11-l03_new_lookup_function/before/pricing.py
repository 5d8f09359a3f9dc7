"""A tiny pricing module."""


def discount(price, percent):
    return price - price * percent / 100


def shipping(weight):
    return 5 if weight < 1 else 5 + 2 * (weight - 1)
