"""The library never imports Streamlit: a subprocess imports every cimem module and checks."""

import pkgutil
import subprocess
import sys

import cimem


def test_cimem_does_not_import_streamlit():
    modules = sorted(m.name for m in pkgutil.walk_packages(cimem.__path__, "cimem."))
    assert "cimem.store.database" in modules and "cimem.ingest.official" in modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    if m != 'cimem.__main__':\n"
        "        importlib.import_module(m)\n"
        "bad = sorted(k for k in sys.modules if k == 'streamlit' or k.startswith('streamlit.'))\n"
        "print(len(sys.modules)); assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
