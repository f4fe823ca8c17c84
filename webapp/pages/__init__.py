"""The app's pages: Streamlit runs each file as a script (st.navigation); a package only so that
the import contracts can name them."""
