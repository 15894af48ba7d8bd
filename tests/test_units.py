import pytest

from netrepro.units import UnitError, parse_rate, parse_size, parse_time


@pytest.mark.parametrize("text, octets", [
    ("16K", 16384), ("12K-1", 12287), ("4K+1", 4097), ("9188B", 9188), ("4M", 4194304), ("1000K", 1024000), (512, 512),
])
def test_parse_size(text, octets):
    assert parse_size(text) == octets


@pytest.mark.parametrize("text", ["16", "16 kb", "1.5B", "K", "-3B", True])
def test_parse_size_refuses_missing_or_unknown_units(text):
    with pytest.raises(UnitError):
        parse_size(text)


def test_parse_rate_and_time():
    assert parse_rate("155.52Mbit") == pytest.approx(155.52e6)
    assert parse_rate("64Kbit") == 64000
    assert parse_time("200ms") == pytest.approx(0.2)
    assert parse_time("50us") == pytest.approx(50e-6)
    with pytest.raises(UnitError):
        parse_rate("10MB")
    with pytest.raises(UnitError):
        parse_time("200")

