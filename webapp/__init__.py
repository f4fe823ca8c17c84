"""The Streamlit app's own code: state.py (cached calls, connections), render.py (charts,
escaping), pages/ (one file per page). Pages live here, not in a pages/ folder beside app.py:
Streamlit would start such a folder in its legacy multipage mode."""
