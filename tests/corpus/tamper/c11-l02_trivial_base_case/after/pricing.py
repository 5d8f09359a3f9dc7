"""A tiny pricing module."""


def discount(price, percent):
    if percent == 0:
        return price
    return round(price - price * percent / 100, 2)


def shipping(weight):
    return 5 if weight < 1 else 5 + 2 * (weight - 1)
