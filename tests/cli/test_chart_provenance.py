"""An odds chart says how it was made, as the report's footer does, and is the same bytes
for the same question."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fracas import __version__
from fracas.cli import app

LAIR = Path(__file__).resolve().parents[2] / "examples" / "d100" / "lair_raid.yaml"


@pytest.mark.parametrize("suffix", ["svg", "png"])
def test_an_odds_chart_records_seed_and_version(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    charts = [tmp_path / f"one.{suffix}", tmp_path / f"two.{suffix}"]
    for chart in charts:
        result = CliRunner().invoke(
            app,
            [
                *("odds", str(LAIR), "--method", "mc", "--runs", "50", "--seed", "4"),
                *("--workers", "1", "--plot", str(chart), "-o", str(tmp_path / "odds.txt")),
            ],
        )
        assert result.exit_code == 0, result.stderr
    assert charts[0].read_bytes() == charts[1].read_bytes()
    footer = (tmp_path / "odds.txt").read_text(encoding="utf-8").splitlines()[-1]
    assert footer.startswith("ruleset d100 · seed 4 · scenario sha256:")
    assert footer.endswith(f" · fracas {__version__}")
    if suffix == "svg":
        text = charts[0].read_text(encoding="utf-8")
        assert f"<dc:description>{footer}</dc:description>" in text
        assert "<dc:title>Raid on the Thornwall lair (Monte Carlo, 50 runs)</dc:title>" in text
        assert "Matplotlib v" not in text  # the plotting library's version is not ours
        assert "<dc:date>" not in text
    else:
        from PIL import Image

        with Image.open(charts[0]) as image:
            chunks = image.text  # type: ignore[attr-defined]
        assert chunks["Description"] == footer
        assert chunks["Title"] == "Raid on the Thornwall lair (Monte Carlo, 50 runs)"
        assert "Software" not in chunks
