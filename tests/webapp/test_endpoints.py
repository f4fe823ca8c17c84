"""The operator's endpoint list: parsed with one-line errors; the server's key never goes to an
endpoint without its variable; the app's free-endpoint rule (on for localhost, off when served)."""

from __future__ import annotations

import pytest

from cimem.errors import CimemError
from cimem.llm.client import NO_KEY, ClientSettings, resolve_api_key
from cimem.llm.endpoints import Endpoint, load_endpoint_file, parse_endpoint_config
from webapp.endpoints import is_local

GOOD = """
allow_free_endpoints = false
[[endpoints]]
name = "lab"
base_url = "http://gpu1:8000/v1"
model = "deepseek-r1"
key_env = "LAB_KEY"
[[endpoints]]
name = "local"
base_url = "http://127.0.0.1:8000/v1"
model = "m"
timeout = 5
"""


def test_an_endpoint_file_is_read(tmp_path, monkeypatch):
    path = tmp_path / "endpoints.toml"
    path.write_text(GOOD)
    monkeypatch.setenv("CIMEM_ENDPOINTS", str(path))
    cfg = load_endpoint_file()
    assert cfg.allow_free is False
    assert cfg.endpoints == (
        Endpoint("lab", "http://gpu1:8000/v1", "deepseek-r1", "LAB_KEY", 60.0),
        Endpoint("local", "http://127.0.0.1:8000/v1", "m", None, 5.0),
    )
    monkeypatch.delenv("CIMEM_ENDPOINTS")
    assert load_endpoint_file().endpoints == ()


@pytest.mark.parametrize(
    "raw,expected",
    [
        ({"endpoints": [{"name": "a", "base_url": "http://h/v1"}]}, "endpoints[0]: model"),
        (
            {"endpoints": [{"name": "a", "base_url": "file:///etc/passwd", "model": "m"}]},
            "base_url: expected an http:// or https:// URL",
        ),
        (
            {"endpoints": [{"name": "a", "base_url": "http://h", "model": "m", "timeout": 0}]},
            "timeout: expected a positive number",
        ),
        (
            {"endpoints": [{"name": "a", "base_url": "http://h", "model": "m"}] * 2},
            "names must differ",
        ),
        ({"allow_free_endpoints": "yes"}, "allow_free_endpoints: expected true or false"),
        ({"endpoints": {"name": "a"}}, "expected a list of [[endpoints]] tables"),
    ],
)
def test_bad_endpoint_lists_say_what_was_expected(raw, expected):
    with pytest.raises(CimemError) as err:
        parse_endpoint_config(raw, "secrets")
    assert str(err.value).startswith("secrets: ") and expected in str(err.value)
    assert "\n" not in str(err.value)


def test_a_bad_file_is_one_line(tmp_path):
    path = tmp_path / "e.toml"
    path.write_text("[[endpoints]\n")
    with pytest.raises(CimemError, match="not valid TOML"):
        load_endpoint_file(path)


def test_no_key_variable_means_the_environment_is_never_read(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "server-canary")
    free = ClientSettings(model="m", base_url="http://h/v1", api_key_env="")
    assert resolve_api_key(free) == NO_KEY
    assert resolve_api_key(free, "visitor") == "visitor"
    assert resolve_api_key(ClientSettings(model="m", base_url="http://h/v1")) == "server-canary"


@pytest.mark.parametrize(
    "address,ip,host,proxied,local",
    [
        ("127.0.0.1", None, "127.0.0.1:8501", False, True),  # Streamlit: no IP for loopback
        ("127.0.0.1", "127.0.0.1", "127.0.0.1:8501", False, True),
        ("localhost", "::1", "[::1]:8501", False, True),
        ("0.0.0.0", None, "localhost:8501", False, False),  # served
        (None, None, "localhost:8501", False, False),  # listens on every interface
        ("127.0.0.1", "10.0.0.5", "localhost:8501", False, False),  # a visitor from elsewhere
        ("127.0.0.1", None, "lab.example.org", False, False),  # a proxy passing its name
        ("127.0.0.1", None, "127.0.0.1:8501", True, False),  # a proxy forwarding a visitor
        ("127.0.0.1", None, None, False, False),  # no browser at all
    ],
)
def test_free_endpoints_only_when_nobody_else_can_reach_the_app(address, ip, host, proxied, local):
    assert is_local(address, ip, host, proxied) is local
