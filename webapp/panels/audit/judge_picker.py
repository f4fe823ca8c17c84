"""The judge a reader re-judges a message with: the offline judge, an endpoint the operator
lists, or (where the operator allows it) an endpoint of the reader's own, with the prompt
editable. The clients and judges are built here, so the page never touches a model client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from cimem.errors import CimemError
from cimem.judges.base import Judge, OfflineJudge
from cimem.judges.llm import JudgeSpec, make_llm_judge
from cimem.llm.client import ClientSettings
from cimem.llm.endpoints import EndpointConfig, check_base_url
from cimem.llm.prompts import load_judge_prompt
from cimem.store import Store
from webapp import endpoints, render

OFFLINE, LISTED, FREE = "offline", "listed endpoint", "another endpoint"


@dataclass(frozen=True)
class PickedJudge:
    """The judge chosen: how to build it over the database held for its use (a listed
    endpoint's judge reads and fills the call cache there), and the endpoint it calls (None for
    the offline judge)."""

    build: Callable[[Store | None], Judge]
    endpoint_url: str | None
    uses_call_cache: bool = False

    def judge(self, store: Store | None) -> Judge:
        return self.build(store if self.uses_call_cache else None)


def pick_judge() -> PickedJudge | None:
    """The judge picker's widgets; the judge they describe, or None while it is incomplete. A
    visitor's own endpoint uses no call cache, so its replies never answer later calls to a
    listed endpoint of the same model name."""
    kind = st.radio("Judge", (OFFLINE, LISTED, FREE), horizontal=True, key="judge_kind")
    if kind == OFFLINE:
        return PickedJudge(lambda _store: OfflineJudge(name="offline judge (audit)"), None)
    try:
        cfg = endpoints.endpoint_config()
    except CimemError as exc:
        st.error(render.escape_md(exc))
        st.stop()
    picked = _listed_endpoint(cfg) if kind == LISTED else _free_endpoint(cfg)
    variant = st.radio("Prompt", ("strict", "lenient"), horizontal=True)
    prompt = load_judge_prompt(None, variant)
    text = st.text_area("Prompt text (editable)", prompt.text, height=220)
    if picked is None:
        return None
    settings, key = picked
    spec = JudgeSpec(settings, variant=variant, prompt_text=text)
    return PickedJudge(
        lambda store: make_llm_judge(spec, store, api_key=key),
        settings.base_url,
        uses_call_cache=kind == LISTED,
    )


def _listed_endpoint(cfg: EndpointConfig) -> tuple[ClientSettings, str] | None:
    """An endpoint the operator lists, with its key (which stays on the server)."""
    listed = {e.name: e for e in cfg.endpoints}
    if not listed:
        st.info(
            "The operator lists no endpoint (Streamlit secrets or CIMEM_ENDPOINTS: see the "
            "README, Serving the app to others)."
        )
        return None
    ep = listed[st.selectbox("Endpoint", list(listed), key="endpoint")]
    st.caption(
        f"{render.escape_md(ep.base_url)}, model {render.escape_md(ep.model)}, "
        f"timeout {ep.timeout:g} s; the key stays on the server."
    )
    try:
        key = endpoints.endpoint_key(ep)
    except CimemError as exc:
        st.error(render.escape_md(exc))
        return None
    settings = ClientSettings(
        model=ep.model,
        base_url=ep.base_url,
        api_key_env=ep.key_env or "",
        timeout=ep.timeout,
        max_retries=0,
    )
    return (settings, key) if key else None


def _free_endpoint(cfg: EndpointConfig) -> tuple[ClientSettings, str] | None:
    """An endpoint the visitor types, with the visitor's own key, where the operator allows it."""
    if not endpoints.free_endpoints_allowed(cfg):
        st.info(
            "This server does not let visitors call endpoints of their own (the operator's "
            "allow_free_endpoints; off when the app is served to others). Use a listed endpoint."
        )
        return None
    e1, e2, e3 = st.columns([3, 2, 1])
    base_url = e1.text_input("Base URL", "http://localhost:8000/v1", key="free_url")
    model = e2.text_input("Model", "", key="free_model")
    timeout = e3.number_input("Timeout (s)", 1, 600, 60, key="free_timeout")
    typed = st.text_input(
        "Your API key (required; kept in this session only, never stored or logged; the "
        "server's keys are never sent to a URL typed here)",
        type="password",
        key="free_key",
    )
    if not (model and base_url):
        return None
    try:
        check_base_url(base_url)
        if not typed:
            raise CimemError(
                "an endpoint typed here needs your own API key (type any text if it needs none)"
            )
    except CimemError as exc:
        st.error(render.escape_md(exc))
        return None
    settings = ClientSettings(
        model=model,
        base_url=base_url.strip(),
        api_key_env="",
        timeout=float(timeout),
        max_retries=0,
    )
    return settings, typed
