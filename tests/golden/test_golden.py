"""What users have never changes silently: ``fracas resolve`` of every example, seeds 1–20,
text and JSON, byte for byte against the files stored in ``tests/golden/``, and the stored
sealed forum posts still verify (``regenerate.py`` says when and how to rewrite them)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from fracas.cli import app

HERE = Path(__file__).resolve().parent


def _regenerate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("golden_regenerate", HERE / "regenerate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


golden = _regenerate()
CASES = [(example, seed) for example in golden.examples() for seed in golden.SEEDS]


def test_every_example_has_its_golden_files() -> None:
    # Python's own bytecode caches (__pycache__, written wherever bytecode may be) are not
    # golden files, nor are the sealed posts.
    stored = {
        p.relative_to(HERE).as_posix()
        for p in HERE.glob("*/*.*.*")
        if p.parent.name not in ("sealed", "journals", "__pycache__")
    }
    expected = {
        golden.golden_name(example, seed, fmt) for example, seed in CASES for fmt in golden.FORMATS
    }
    assert stored == expected


@pytest.mark.parametrize(
    ("example", "seed"), CASES, ids=[f"{e.parent.name}/{e.stem}-{s}" for e, s in CASES]
)
def test_resolve_is_byte_identical(example: Path, seed: int) -> None:
    for fmt in golden.FORMATS:
        name = golden.golden_name(example, seed, fmt)
        assert golden.resolve_bytes(example, seed, fmt) == (HERE / name).read_bytes(), name


@pytest.mark.parametrize("example", golden.SEALED)
def test_a_post_sealed_before_still_verifies(example: str, tmp_path: Path) -> None:
    post = HERE / golden.sealed_name(example)
    # The commitment line exactly as `fracas commit` printed it before the nonces.
    secret = tmp_path / "gm.secret"
    secret.write_text(golden.SECRET + "\n")
    with golden.in_checkout():
        committed = CliRunner().invoke(
            app, ["commit", f"examples/{example}", "--secret-file", str(secret)]
        )
    assert committed.exit_code == 0, committed.output
    args = ["verify", str(post), "--commitment", committed.stdout.strip()]
    for nonce in golden.NONCES:
        args += ["--nonce", nonce]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "verified: every check holds"


@pytest.mark.parametrize("example", golden.SEALED)
def test_a_changed_roll_in_a_stored_post_is_caught(example: str, tmp_path: Path) -> None:
    text = (HERE / golden.sealed_name(example)).read_text()
    # The first number of the outcome, one higher: the log no longer follows from the dice.
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Outcome" in line)
    index = next(i for i in range(start, len(lines)) if any(c.isdigit() for c in lines[i]))
    line = lines[index]
    position = next(i for i, c in enumerate(line) if c.isdigit())
    digit = str((int(line[position]) + 1) % 10)
    lines[index] = line[:position] + digit + line[position + 1 :]
    tampered = tmp_path / "post.txt"
    tampered.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, ["verify", str(tampered)])
    assert result.exit_code == 1, result.output
    assert "NOT VERIFIED" in result.stdout
