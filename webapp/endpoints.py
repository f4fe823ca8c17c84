"""The model endpoints a visitor may call from the app: the operator's list (the
CIMEM_ENDPOINTS file and the Streamlit secrets), each one's key, and whether a visitor may type
an endpoint of their own (only on a server nobody else reaches, unless the operator says)."""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

from cimem.errors import CimemError
from cimem.llm.client import NO_KEY
from cimem.llm.endpoints import Endpoint, EndpointConfig, load_endpoint_file, parse_endpoint_config

_LOOPBACK = {"127.0.0.1", "::1", "localhost"}
_PROXY_HEADERS = ("X-Forwarded-For", "X-Forwarded-Host", "Forwarded", "X-Real-Ip")


def _secrets() -> dict[str, Any]:
    try:
        return dict(st.secrets)
    except Exception:  # no secrets file (Streamlit raises rather than returning nothing)
        return {}


def endpoint_config() -> EndpointConfig:
    """The operator's endpoints: the CIMEM_ENDPOINTS file's, then the Streamlit secrets' (whose
    allow_free_endpoints, when set, wins)."""
    from_file = load_endpoint_file()
    secrets = _secrets()
    from_secrets = parse_endpoint_config(
        {k: secrets[k] for k in ("endpoints", "allow_free_endpoints") if k in secrets},
        "Streamlit secrets",
    )
    endpoints = from_file.endpoints + from_secrets.endpoints
    if len({e.name for e in endpoints}) != len(endpoints):
        raise CimemError("endpoints: the same name is listed in CIMEM_ENDPOINTS and the secrets")
    allow = from_file.allow_free if from_secrets.allow_free is None else from_secrets.allow_free
    return EndpointConfig(endpoints, allow)


def _host(value: str | None) -> str | None:
    """The host of an address or a Host header (port and IPv6 brackets taken off)."""
    if not value:
        return None
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def is_local(
    address: str | None, visitor_ip: str | None, host_header: str | None, proxied: bool = False
) -> bool:
    """The server listens on loopback only, this visitor came through loopback (Streamlit
    reports no IP for it) to a loopback name, and no proxy forwarded the request: nobody else
    can be using the app.

    >>> is_local("127.0.0.1", None, "localhost:8501")
    True
    >>> is_local("0.0.0.0", None, "localhost:8501"), is_local("127.0.0.1", None, None)
    (False, False)
    """
    return (
        _host(address) in _LOOPBACK
        and (visitor_ip is None or _host(visitor_ip) in _LOOPBACK)
        and _host(host_header) in _LOOPBACK
        and not proxied
    )


def free_endpoints_allowed(cfg: EndpointConfig) -> bool:
    """May this visitor type an endpoint of their own? The operator's allow_free_endpoints;
    unset: only on a server nobody else reaches (off when served)."""
    if cfg.allow_free is not None:
        return cfg.allow_free
    try:
        ip, headers = st.context.ip_address, st.context.headers
        host = headers.get("Host")
        proxied = any(headers.get(h) for h in _PROXY_HEADERS)
    except Exception:  # no browser behind this run (tests)
        ip, host, proxied = None, None, True
    return is_local(st.get_option("server.address"), ip, host, proxied)


def endpoint_key(endpoint: Endpoint) -> str:
    """A listed endpoint's key, from the environment or the secrets under its key_env; a
    placeholder when it lists none (the server's other keys are never sent)."""
    if endpoint.key_env is None:
        return NO_KEY
    key = os.environ.get(endpoint.key_env) or _secrets().get(endpoint.key_env)
    if not key:
        raise CimemError(
            f"endpoint {endpoint.name}: the server has no key in {endpoint.key_env}"
            " (environment or Streamlit secrets)"
        )
    return str(key)
