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
def test_the_report_renders_its_plots_in_chromium(smoke_db, smoke_report, tmp_path):
    from edgematch.bench.plots import report_styles
    from edgematch.bench.store import Store
    from edgematch.bench.summary import summarise

    report = smoke_report.html
    with Store(smoke_db) as store:
        summary = summarise(store.session(), store.runs(store.session().id))
        palette = {b: s.colour for b, s in report_styles(summary).items()}
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


@needs_browser
def test_without_a_height_the_screenshot_is_the_whole_page(tmp_path):
    # a page of known height, taller than any fixed default: red, then a green last strip
    page = tmp_path / "tall.html"
    page.write_text('<!DOCTYPE html><html><body style="margin:0"><div style="height:5123px;background:#ff0000">'
                    '</div><div style="height:7px;background:#00ff00"></div></body></html>', encoding="utf-8")
    out = tmp_path / "tall.png"
    proc = subprocess.run(["bash", str(SCRIPT), str(page), str(out), "600"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "CHROMIUM": BROWSER})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _png_size(out.read_bytes()) == (600, 5130)
    image = pytest.importorskip("PIL.Image")
    with image.open(out) as img:
        rgb = img.convert("RGB")
        assert rgb.getpixel((300, 5129)) == (0, 255, 0) and rgb.getpixel((300, 5100)) == (255, 0, 0)


@needs_browser
def test_the_report_screenshot_reaches_the_end_of_the_page(smoke_report, tmp_path):
    report = smoke_report.html
    out = tmp_path / "whole.png"
    proc = subprocess.run(["bash", str(SCRIPT), str(report), str(out), "1280"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "CHROMIUM": BROWSER})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    width, height = _png_size(out.read_bytes())
    assert width == 1280 and height > 2000
    image = pytest.importorskip("PIL.Image")
    with image.open(out) as img:
        rgb = img.convert("RGB")
        # the page ends in its bottom padding (white), and the environment table is just above it
        assert {rgb.getpixel((x, height - 10)) for x in range(0, 1280, 16)} == {(255, 255, 255)}
        assert len({rgb.getpixel((x, y)) for x in range(0, 1280, 4) for y in range(height - 400, height - 60)}) > 2


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
