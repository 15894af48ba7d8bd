"""Every report, rendered from the SYNTHETIC test data, opened in headless Chromium.

Checks what a reader sees, not the HTML source: the table of contents holds only the
report's own sections (at most 40), every figure loads and has alt text, no raw Markdown
or NA shows in the text, nothing is wider than the window, and the file stays under
1.5 MB. A report has test data when reports/tests/synthetic-results.R lists it in
`synthetic_reports`; each such report is picked up here without changing this file.
The first screen of each test render is saved as reports/html/synthetic/<id>-first-screen.png,
apart from the reports `make reproduce` writes beside it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import FEW_RESAMPLES_ENV

pytestmark = pytest.mark.xdist_group("rendered")  # one worker renders the reports (make test: -n)

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
SCREENSHOTS = REPORTS / "html" / "synthetic"
MAX_TOC = 40
MAX_BYTES = 1_500_000
WINDOW = "1280,900"

# Runs in the page once everything has loaded; leaves its findings as JSON in the DOM.
CHECK_SCRIPT = """
<script>
window.addEventListener('load', function () {
  var root = document.documentElement, width = root.clientWidth;
  var scrolls = function (e) {
    for (var a = e.parentElement; a; a = a.parentElement) {
      var o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
    }
    return false;
  };
  var r = {
    toc: Array.from(document.querySelectorAll('#TOC li > a')).map(function (a) {
      return a.textContent.replace(/\\s+/g, ' ').trim();
    }),
    images: Array.from(document.images).map(function (i) {
      return {width: i.naturalWidth, alt: (i.getAttribute('alt') || '').trim()};
    }),
    scrollWidth: root.scrollWidth,
    clientWidth: width,
    wide: Array.from(document.querySelectorAll('body *')).filter(function (e) {
      return e.getBoundingClientRect().right > width + 1 && !scrolls(e);
    }).slice(0, 5).map(function (e) {
      return e.tagName + ': ' + (e.textContent || '').slice(0, 60);
    })
  };
  // Text shown as code is data on purpose; the rest must read as prose.
  document.querySelectorAll('pre, code').forEach(function (e) { e.remove(); });
  r.text = document.body.innerText;
  var out = document.createElement('script');
  out.type = 'application/json';
  out.id = 'netrepro-browser-check';
  out.textContent = JSON.stringify(r).replace(/</g, '\\\\u003c');
  document.body.appendChild(out);
});
</script>
"""

RAW_MARKDOWN = {
    "a heading mark": re.compile(r"^\s*#{1,6}\s", re.M),
    "'##'": re.compile(r"##"),
    "'**'": re.compile(r"\*\*"),
    "a table pipe row": re.compile(r"^\s*\|.*\|\s*$|\|\s*:?-{3,}", re.M),
    "backtick code": re.compile(r"`[^`\n]+`"),
    "NA": re.compile(r"\bNA\b"),
}


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("chromium is not installed (Debian package `chromium`, envs/debian-packages.txt)")


def run(argv: list[str], timeout: int = 1200) -> str:
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=FEW_RESAMPLES_ENV)
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


# A page opens in about 2 s. Headless Chromium now and then never exits after writing its
# output (seen once in CI on a page it had just read); such a browser is killed with every
# process it started and the page opened again in a fresh profile, at most BROWSER_TRIES times.
BROWSER_TIMEOUT_S = 60
BROWSER_TRIES = 3


def browse(html: Path, *flags: str) -> str:
    argv = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--window-size={WINDOW}", "--virtual-time-budget=20000", *flags, html.as_uri()]
    for _ in range(BROWSER_TRIES):
        with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
            child = subprocess.Popen([*argv[:1], f"--user-data-dir={profile}", *argv[1:]], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     start_new_session=True)
            try:
                out, err = child.communicate(timeout=BROWSER_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.communicate()
                continue
        assert child.returncode == 0, f"{' '.join(argv)} failed:\n{out}\n{err}"
        return out
    pytest.fail(f"{' '.join(argv)} did not finish in {BROWSER_TIMEOUT_S} s, {BROWSER_TRIES} times")


def own_sections(rmd: Path) -> set[str]:
    """The level 1 and 2 headings the report's source writes, outside code chunks."""
    sections, in_chunk = set(), False
    for line in rmd.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_chunk = not in_chunk
            continue
        match = re.match(r"#{1,2}\s+(.*?)\s*(\{[^}]*\})?\s*$", line)
        if match and not in_chunk:
            sections.add(normalise(match.group(1)))
    return sections


def normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def reports_with_test_data() -> list[str]:
    listed = run(["Rscript", "reports/tests/synthetic-results.R", "--reports"]).split()
    return sorted(r for r in listed if (REPORTS / f"{r}.Rmd").exists())


@pytest.fixture(scope="module")
def rendered() -> Iterator[tuple[Path, list[str]]]:
    ids = reports_with_test_data()
    assert ids, "no report has test data"
    with tempfile.TemporaryDirectory(prefix="netrepro-browser-") as tmp:
        data, html = Path(tmp, "results"), Path(tmp, "html")
        run(["Rscript", "reports/tests/synthetic-results.R", str(data), *ids])
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda r: run(["Rscript", "reports/render.R", r, str(data), str(html)]), ids))
        run(["Rscript", "reports/index.R", str(html)])
        yield html, ids


def look(html: Path, page: Path) -> dict:
    """The page's findings, from a copy of it with the check script added."""
    probe = html.parent / f"probe-{page.name}"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", CHECK_SCRIPT + "</body>"),
                     encoding="utf-8")
    dom = browse(probe, "--dump-dom")
    found = re.search(r'<script type="application/json" id="netrepro-browser-check">(.*?)</script>',
                      dom, re.S)
    assert found, f"{page.name}: the check script did not run"
    return json.loads(found.group(1))


def problems(findings: dict, page: Path, sections: set[str] | None) -> list[str]:
    found = []
    if sections is not None:
        toc = findings["toc"]
        if len(toc) > MAX_TOC:
            found.append(f"{len(toc)} table-of-contents entries (at most {MAX_TOC})")
        strangers = [t for t in toc if normalise(t) not in sections]
        if strangers:
            found.append(f"table-of-contents entries that are not the report's sections: {strangers[:5]}")
    for i, image in enumerate(findings["images"]):
        if image["width"] <= 0:
            found.append(f"image {i + 1} did not load")
        if not image["alt"]:
            found.append(f"image {i + 1} has no alt text")
    for what, pattern in RAW_MARKDOWN.items():
        hit = pattern.search(findings["text"])
        if hit:
            start = max(0, hit.start() - 60)
            found.append(f"{what} in the text: ...{findings['text'][start:hit.end() + 60]!r}...")
    if findings["scrollWidth"] > findings["clientWidth"] or findings["wide"]:
        found.append(f"wider than the window ({findings['scrollWidth']} > {findings['clientWidth']} px): "
                     f"{findings['wide']}")
    size = page.stat().st_size
    if size > MAX_BYTES:
        found.append(f"{size / 1e6:.2f} MB (at most {MAX_BYTES / 1e6} MB)")
    return found


def test_every_report_reads_well_in_a_browser(rendered: tuple[Path, list[str]]) -> None:
    html, ids = rendered
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    failures = {}
    for report in ids:
        page = html / f"{report}.html"
        found = problems(look(html, page), page, own_sections(REPORTS / f"{report}.Rmd"))
        if found:
            failures[report] = found
        browse(page, f"--screenshot={SCREENSHOTS / f'{report}-first-screen.png'}")
    assert not failures, json.dumps(failures, indent=2)


def test_the_index_names_every_paper_and_reads_well(rendered: tuple[Path, list[str]]) -> None:
    html, _ = rendered
    page = html / "index.html"
    assert problems(look(html, page), page, None) == []
    papers = (REPORTS / "reference" / "papers.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(papers) == 5
    text = page.read_text(encoding="utf-8")
    for line in papers:
        paper = line.split(",")[0]
        assert f'id="paper-{paper}"' in text, f"index.html does not show {paper}"
