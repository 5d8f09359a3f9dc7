from pricing import discount, shipping


def test_discount():
    assert discount(80, 25) == 60


def test_discount_rounds_to_cents():
    assert discount(19.99, 15) == 16.99


def test_shipping():
    assert shipping(3) == 9
