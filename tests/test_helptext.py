"""A command's --help describes it in whole sentences, from its module's docstring."""
import subprocess
import sys

from netrepro.helptext import description
from tests.conftest import REPO


def test_the_description_is_the_docstrings_first_paragraph_on_one_line():
    assert description("Does one thing, over two\n  lines.\n\n    usage: example\n") == \
        "Does one thing, over two lines."
    assert description(None) == ""


def test_a_commands_help_ends_its_first_paragraph_where_the_docstring_does():
    done = subprocess.run([sys.executable, "-m", "netrepro.digest", "--help"], capture_output=True, text=True,
                          cwd=REPO, timeout=60)
    assert done.returncode == 0
    assert "record for record." in " ".join(done.stdout.split())
