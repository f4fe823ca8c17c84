"""The page's last line of defence: an error no page expected becomes one readable line on the
page (its kind only: a message may quote a server path, data or SQL) and the whole traceback in
the server's log (every password in it masked: a lake's location may hold one), never
Streamlit's exception box. Streamlit's own control flow (``st.stop``,
``st.rerun``) derives from ``BaseException`` and passes through. ``CIMEM_SHOW_TRACEBACKS=1``
(the tests set it, so a failing page fails them) raises instead: Streamlit's own box."""

from __future__ import annotations

import logging
import os
import traceback

import streamlit as st

from cimem.store.lake import catalog_gone
from cimem.store.location import shown
from webapp.render import escape_md

log = logging.getLogger("cimem.app")
SHOW_TRACEBACKS_ENV = "CIMEM_SHOW_TRACEBACKS"


def said(exc: Exception) -> None:
    """Log ``exc`` with its traceback and show one line naming its kind and what to do."""
    if os.environ.get(SHOW_TRACEBACKS_ENV) == "1":
        raise exc
    text = "".join(traceback.format_exception(exc))
    log.error("the page failed: %s\n%s", type(exc).__name__, shown(text).rstrip())
    if catalog_gone(str(exc)):  # a lake whose PostgreSQL went away: say so (not where it is)
        st.error(
            "The lake's catalog (its PostgreSQL server) cannot be reached. Nothing was half"
            " written; reload the page once it is back.",
            icon=":material/cloud_off:",
        )
        return
    st.error(
        f"This page met an unexpected error ({escape_md(type(exc).__name__)}); it is in the "
        "server's log. Reload the page to try again.",
        icon=":material/error:",
    )
