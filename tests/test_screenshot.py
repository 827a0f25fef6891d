"""The HTML bench report opened in headless Chromium (scripts/screenshot-report.sh) draws its plots.

Skipped where no Chromium is installed (``apt-get install chromium``).
"""

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "screenshot-report.sh"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _find_browser():
    override = os.environ.get("CHROMIUM")
    if override:
        return shutil.which(override)
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


BROWSER = _find_browser()

needs_browser = pytest.mark.skipif(
    BROWSER is None,
    reason="no chromium binary on PATH (apt-get install chromium)",
)


def _png_size(data):
    # IHDR is the first chunk: 8-byte signature, 4-byte length, b"IHDR", then width, height.
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@needs_browser
def test_the_report_renders_its_plots_in_chromium(smoke_db, tmp_path):
    from edgematch.bench.plots import colours
    from edgematch.bench.report import write_report
    from edgematch.bench.store import Store
    from edgematch.bench.summary import summarise

    with Store(smoke_db) as store:
        report = write_report(store, out=tmp_path).html
        palette = colours(summarise(store.session(), store.runs(store.session().id)))
    out = tmp_path / "shot.png"
    width, height = 1300, 2600

    proc = subprocess.run(
        ["bash", str(SCRIPT), str(report), str(out), str(width), str(height)],
        capture_output=True,
        text=True,
        timeout=90,
        env={**os.environ, "CHROMIUM": BROWSER},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"screenshot: {out}" in proc.stdout

    data = out.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert _png_size(data) == (width, height)

    image = pytest.importorskip("PIL.Image")
    with image.open(out) as img:
        seen = {rgb for _, rgb in img.convert("RGB").getcolors(maxcolors=width * height)}
    # the backends' line colours appear only in the plots: each one drawn means the SVGs rendered
    for backend, colour in palette.items():
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert rgb in seen, f"no pixel of {backend}'s colour {colour}: the plots did not render"


def test_missing_browser_exits_2(tmp_path):
    report = tmp_path / "r.html"
    report.write_text("<html><body>x</body></html>", encoding="utf-8")
    proc = subprocess.run(
        ["bash", str(SCRIPT), str(report)],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "CHROMIUM": str(tmp_path / "no-such-browser")},
    )
    assert proc.returncode == 2
    assert "apt-get install chromium" in proc.stderr
    assert not (tmp_path / "r.png").exists()
