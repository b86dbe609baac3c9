"""The app as `make serve` serves it: app.py plus the security headers Streamlit's config cannot set.

`streamlit run serve.py` finds the `st.App` below (Streamlit's documented ASGI entry point) and serves
`app.py` through it, with this module's middleware around every HTTP response: the page, its scripts,
health, media and uploads. `streamlit run app.py` still works but sends none of these headers.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import streamlit as st
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

INDEX = Path(st.__file__).parent / "static" / "index.html"


def inline_script_hashes() -> list[str]:
    """CSP sources for the inline scripts of Streamlit's own page, so script-src needs no 'unsafe-inline'."""
    bodies = re.findall(r"<script>(.*?)</script>", INDEX.read_text(encoding="utf-8"), re.DOTALL)
    return [f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'" for body in bodies]


CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    # 'wasm-unsafe-eval': Streamlit decodes its messages and lays out graphviz charts in WebAssembly.
    "script-src 'self' 'wasm-unsafe-eval' " + " ".join(inline_script_hashes()),
    "style-src 'self' 'unsafe-inline'",  # Streamlit's components style themselves at run time (emotion)
    "img-src 'self' data:",
    "font-src 'self' data:",  # a small font Streamlit inlines
    "connect-src 'self'",  # the app's websocket is same-origin
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    # No page may frame the app (clickjacking). This also refuses Streamlit components, which are iframes
    # served by this same server: the app uses none.
    "frame-ancestors 'none'",
])  # fmt: skip

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # a trace's name is in the URL
}


class SecurityHeaders:
    """ASGI middleware: every HTTP response carries SECURITY_HEADERS (websocket frames have no headers)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


app = st.App("app.py", middleware=[Middleware(SecurityHeaders)])
