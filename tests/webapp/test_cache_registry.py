"""The app's cached reads are all registered, and its one write path forgets every one of them:
a cached read made another way, or a write that goes around :func:`webapp.cache.writing`, would
leave a page showing what was there before the app's own write."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from contextlib import contextmanager
from pathlib import Path

import pytest

import webapp
import webapp.cache
from webapp import connection
from webapp.cache import registry

WEBAPP = Path(webapp.__file__).parent
REGISTRY = WEBAPP / "cache" / "registry.py"


def _sources() -> list[Path]:
    return sorted(p for p in WEBAPP.rglob("*.py") if p != REGISTRY)


def _calls_outside_registry(attribute: str, owner: str | None = None) -> list[str]:
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            hit = isinstance(node, ast.Attribute) and node.attr == attribute
            if hit and owner is not None:
                hit = isinstance(node.value, ast.Name) and node.value.id == owner
            if isinstance(node, ast.ImportFrom) and any(a.name == attribute for a in node.names):
                hit = owner is None or (node.module or "").endswith(owner)
            if hit:
                found.append(f"{path.relative_to(WEBAPP.parent)}:{node.lineno}")
    return found


def test_no_streamlit_cache_is_made_outside_the_registry():
    made = _calls_outside_registry("cache_data") + _calls_outside_registry("cache_resource")
    assert made == [], "make cached reads with registry.data_read / shared_read"


def test_no_write_goes_around_the_one_write_path():
    assert _calls_outside_registry("writing", owner="connection") == [], "write with cache.writing"


def test_every_cached_read_of_the_cache_package_is_registered():
    modules = [
        importlib.import_module(f"webapp.cache.{m.name}")
        for m in pkgutil.iter_modules(webapp.cache.__path__)
    ]
    cached = {
        f"{module.__name__}.{name}": value
        for module in modules
        for name, value in vars(module).items()
        if callable(getattr(value, "clear", None)) and hasattr(value, "__wrapped__")
    }
    known = {id(read) for read in registry.registered()}
    assert len(cached) >= 30  # the package's reads were found at all
    assert [name for name, read in cached.items() if id(read) not in known] == []


@pytest.fixture
def counted():
    calls: list[int] = []

    def read(x: int) -> int:
        calls.append(x)
        return x

    reads = [registry.shared_read()(read), registry.data_read()(read)]
    yield reads, calls
    for made in reads:
        registry._READS.remove(made)


def test_a_write_forgets_every_registered_read_even_when_it_fails(counted, monkeypatch):
    (shared, data), calls = counted

    @contextmanager
    def fake_writing():
        yield "store"

    monkeypatch.setattr(connection, "writing", fake_writing)
    shared(1), data(2), shared(1), data(2)
    assert calls == [1, 2]  # cached
    with webapp.cache.writing() as store:
        assert store == "store"
    shared(1), data(2)
    assert calls == [1, 2, 1, 2]  # read again after the write
    with pytest.raises(RuntimeError), webapp.cache.writing():
        raise RuntimeError("a write that failed half way")
    shared(1), data(2)
    assert calls == [1, 2, 1, 2, 1, 2]
