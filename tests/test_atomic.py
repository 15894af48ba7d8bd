import pytest

from netrepro.atomic import write_text


def test_a_failed_write_leaves_the_old_file_and_no_debris(tmp_path, monkeypatch):
    target = tmp_path / "results.csv"
    write_text(target, "old\n")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr("netrepro.atomic.os.replace", broken_replace)
    with pytest.raises(OSError):
        write_text(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["results.csv"]
