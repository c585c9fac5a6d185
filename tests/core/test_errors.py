from fracas.core.errors import FracasError, IllegalActionError, ScenarioError, format_path


def test_message_names_file_path_and_problem() -> None:
    err = ScenarioError("must be ≥ 0", source="a.yaml", path=("units", 3, "strength"))
    assert str(err) == "a.yaml: units[3].strength: must be ≥ 0"
    assert isinstance(err, FracasError)
    assert isinstance(err, ValueError)


def test_located_fills_only_a_missing_source() -> None:
    err = IllegalActionError("out of range", path=("orders", 1))
    located = err.located("b.yaml")
    assert str(located) == "b.yaml: orders[1]: out of range"
    assert isinstance(located, IllegalActionError)
    assert located.located("c.yaml") is located


def test_hint_and_document_level_errors() -> None:
    assert str(ScenarioError("empty", source="x.yaml")) == "x.yaml: empty"
    assert str(ScenarioError("bad", hint="try 1")) == "(document): bad (hint: try 1)"
    assert format_path(("a", 0, 1, "b")) == "a[0][1].b"
