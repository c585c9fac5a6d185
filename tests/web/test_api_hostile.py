"""Requests built to break the API: each gets a 4xx naming what is wrong, or its answer."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from fastapi.testclient import TestClient

from .conftest import body

ROOT = Path(__file__).resolve().parents[2]
ENCIRCLEMENT = ROOT / "examples" / "hex" / "encirclement.yaml"


def test_a_lone_surrogate_in_a_title_is_answered_not_an_internal_error(client: TestClient) -> None:
    # JSON may write "\udc80"; the text has no UTF-8, so the answer escapes it as the
    # command line's JSON does.
    document = yaml.safe_load(ENCIRCLEMENT.read_text(encoding="utf-8"))
    document["title"] = "Closing " + chr(0xDC80) + " ring"
    request = {"scenario": json.dumps(document), "name": "ring.json"}
    for endpoint in ("validate", "resolve"):
        response = client.post(f"/api/{endpoint}", json=request)
        assert response.status_code == 200, response.text
    answer = client.post("/api/resolve", json=request)
    assert "\\udc80" in answer.content.decode("ascii")
    assert json.loads(answer.content)["title"] == "Closing " + chr(0xDC80) + " ring"


def test_an_override_too_deep_to_send_to_a_worker_is_a_422_naming_the_limit(
    client: TestClient,
) -> None:
    # 600 levels: within what the request reader parses, past what pickling a job for the
    # worker could (a RecursionError, answered as an internal error).
    for deep in ("[" * 600 + "]" * 600, '{"a":' * 600 + "1" + "}" * 600):
        request = json.dumps({**body(ENCIRCLEMENT), "overrides": {"title": json.loads(deep)}})
        response = client.post(
            "/api/resolve", content=request, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert "nested deeper than the limit input.depth" in error["message"]
        assert "--limit" not in error["message"]


def test_a_long_override_key_is_quoted_short_and_a_huge_index_is_refused(
    client: TestClient,
) -> None:
    cases = {
        # A name in brackets, a path with a doubled dot: quoted at most 40 characters.
        "units[" + "b" * 5000 + "].strength": "no entry named 'bbbb",
        "a..b" + "c" * 5000: "not a key path: 'a..bcc",
        # Python reads no number of 4,301 digits: this was a ValueError, a 500.
        "units[" + "1" * 5000 + "].strength": "the index '1111",
    }
    for key, problem in cases.items():
        response = client.post("/api/resolve", json={**body(ENCIRCLEMENT), "overrides": {key: 1}})
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["problem"].startswith(problem)
        assert len(error["problem"]) < 200
        assert len(error["message"]) < 500


def test_odds_fields_are_read_strictly_and_checked_as_the_command_line_checks_them(
    client: TestClient,
) -> None:
    scenario = body(ROOT / "examples" / "rankflank" / "lance_charge.yaml")
    cases = {
        # These were refused by the odds, after the job was sent: a 400 naming no field.
        '"exact_tolerance": -1': "the exact tolerance must be at least 0 and below 1, not -1.0",
        '"exact_tolerance": NaN': "the exact tolerance must be at least 0 and below 1, not nan",
        # "less than 1", said of NaN.
        '"confidence": NaN': "Input should be a finite number",
        # Read as 1 run, and as true.
        '"runs": true': "Input should be a valid integer",
        '"exact_fractions": "yes"': "Input should be a valid boolean",
    }
    for field, problem in cases.items():
        text = json.dumps(scenario)[:-1] + ", " + field + "}"
        response = client.post(
            "/api/odds", content=text, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422, field
        error = response.json()["error"]
        assert error["path"] == field.split('"')[1]
        assert problem in error["message"], error
    answer = client.post("/api/odds", json={**scenario, "exact_tolerance": 0})
    assert answer.status_code == 200


def test_the_command_shown_reads_back_as_the_same_words_in_a_shell(client: TestClient) -> None:
    import subprocess

    from fracas.io.scenario import override_text

    title = "Ring\x1b[31m\u202eof 'fire'"
    request = {**body(ENCIRCLEMENT), "name": "-rf.yaml", "overrides": {"title": title}}
    command = client.post("/api/resolve", json=request).json()["command"]
    # A file name starting with "-" would be read as an option; no control character
    # reaches the terminal the line is pasted into.
    assert command.startswith("fracas resolve ./-rf.yaml --set $'title=")
    assert command.isprintable()
    shown = subprocess.run(
        ["bash", "-c", f"set -- {command.removeprefix('fracas resolve ')}; printf '%s\\0' \"$@\""],
        capture_output=True,
        check=True,
    )
    # The --set of the command line that gives the same title (JSON text in the value).
    again = override_text("title", title)
    assert shown.stdout.decode().split("\0")[:-1] == ["./-rf.yaml", "--set", again]


def test_a_head_request_gets_the_headers_of_the_page(client: TestClient) -> None:
    # A monitor or a link checker asks HEAD; it was a 405.
    for address in ("/", "/static/app.css"):
        got, head = client.get(address), client.head(address)
        assert head.status_code == 200, address
        assert head.content == b""
        assert head.headers["content-type"] == got.headers["content-type"]


def test_a_body_that_is_not_json_says_where_it_breaks_and_names_no_key(client: TestClient) -> None:
    # The offset was given as a key path: "[29]".
    text = '{"scenario":"fracas: 1"   ,  '
    response = client.post(
        "/api/resolve", content=text, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["path"] is None
    assert error["problem"] == "the body is not valid JSON at character 29"


def test_a_body_the_json_reader_gives_up_on_says_why_it_could_not_be_read(
    client: TestClient,
) -> None:
    # FastAPI's 400 said "There was an error parsing the body".
    bodies = [
        b'{"scenario":"x","overrides":{"a":' + b"[" * 1500 + b"]" * 1500 + b"}}",
        b'{"scenario":"x","runs":' + b"1" * 5001 + b"}",
        b'{"scenario":"\xff\xfe"}',
    ]
    for text in bodies:
        response = client.post(
            "/api/resolve", content=text, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422
        error = response.json()["error"]
        assert error["path"] is None
        assert error["problem"].startswith("the body could not be read as JSON")
