"""Endpoints an operator allows for live re-judging in a served app.

The operator lists them (in Streamlit secrets or a small TOML file named by ``CIMEM_ENDPOINTS``)
with the name of the environment variable (or secret) holding each one's key, so the server's
key is only ever sent to the base URL listed with it::

    allow_free_endpoints = false        # visitors may type another URL with their own key
    [[endpoints]]
    name = "lab vLLM"
    base_url = "http://gpu1:8000/v1"
    model = "deepseek-r1"
    key_env = "LAB_VLLM_KEY"           # optional: no key is sent without it
    timeout = 60                        # seconds, optional
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cimem.errors import CimemError

ENDPOINTS_ENV = "CIMEM_ENDPOINTS"
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class Endpoint:
    """One allowed endpoint; the key itself is never part of it, only where it lives."""

    name: str
    base_url: str
    model: str
    key_env: str | None = None
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class EndpointConfig:
    endpoints: tuple[Endpoint, ...] = ()
    allow_free: bool | None = None  # None: the app decides (on for localhost, off when served)


def check_base_url(url: str, where: str = "base URL") -> str:
    """An http(s) URL with a host, or a one-line error naming what was expected.

    >>> check_base_url("http://localhost:8000/v1")
    'http://localhost:8000/v1'
    >>> check_base_url("file:///etc/passwd")
    Traceback (most recent call last):
    ...
    cimem.errors.CimemError: base URL: expected an http:// or https:// URL with a host, got 'file:///etc/passwd'
    """
    text = url.strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CimemError(f"{where}: expected an http:// or https:// URL with a host, got {text!r}")
    return text


def parse_endpoint_config(raw: Mapping[str, Any], source: str) -> EndpointConfig:
    """The endpoint list and the free-endpoint switch from a mapping (TOML or secrets)."""
    allow = raw.get("allow_free_endpoints")
    if allow is not None and not isinstance(allow, bool):
        raise CimemError(f"{source}: allow_free_endpoints: expected true or false")
    items = raw.get("endpoints", [])
    if not isinstance(items, list):
        raise CimemError(f"{source}: endpoints: expected a list of [[endpoints]] tables")
    found: list[Endpoint] = []
    for i, item in enumerate(items):
        where = f"{source}: endpoints[{i}]"
        if not isinstance(item, Mapping):
            raise CimemError(f"{where}: expected a table with name, base_url and model")
        values = {}
        for field in ("name", "base_url", "model"):
            value = item.get(field)
            if not isinstance(value, str) or not value.strip():
                raise CimemError(f"{where}: {field}: expected a non-empty string")
            values[field] = value.strip()
        key_env = item.get("key_env")
        if key_env is not None and (not isinstance(key_env, str) or not key_env.strip()):
            raise CimemError(f"{where}: key_env: expected the name of a variable")
        timeout = item.get("timeout", DEFAULT_TIMEOUT)
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
            raise CimemError(f"{where}: timeout: expected a positive number of seconds")
        found.append(
            Endpoint(
                name=values["name"],
                base_url=check_base_url(values["base_url"], f"{where}: base_url"),
                model=values["model"],
                key_env=key_env.strip() if key_env else None,
                timeout=float(timeout),
            )
        )
    names = [e.name for e in found]
    if len(set(names)) != len(names):
        raise CimemError(f"{source}: endpoints: names must differ")
    return EndpointConfig(tuple(found), allow)


def load_endpoint_file(path: str | os.PathLike | None = None) -> EndpointConfig:
    """The TOML file named by ``path`` or ``$CIMEM_ENDPOINTS``; nothing listed without one."""
    name = path or os.environ.get(ENDPOINTS_ENV)
    if not name:
        return EndpointConfig()
    try:
        raw = tomllib.loads(Path(name).read_text())
    except OSError as exc:
        raise CimemError(f"{name}: cannot read the endpoint list ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise CimemError(f"{name}: not valid TOML ({exc})") from None
    return parse_endpoint_config(raw, str(name))
