import errno

import pytest

from netrepro.atomic import write_text
from netrepro.errors import RunError


def test_a_failed_write_leaves_the_old_file_and_no_debris(tmp_path, monkeypatch):
    target = tmp_path / "results.csv"
    write_text(target, "old\n")

    def broken_replace(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("netrepro.atomic.os.replace", broken_replace)
    with pytest.raises(RunError, match=f"cannot write {target}: No space left on device"):
        write_text(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["results.csv"]
